import Foundation
import Models

/// Which providers are enabled and how to reach them, read from the environment.
///
/// A provider is enabled when the credentials of the service's uses
/// (``ProviderUses``) are present: Lemon Squeezy needs `LEMONSQUEEZY_API_KEY`
/// and `LEMONSQUEEZY_STORE_ID` to call the API and `LEMONSQUEEZY_WEBHOOK_SECRET`
/// to verify webhooks; Paystack needs `PAYSTACK_SECRET_KEY` for both. Both
/// providers may be enabled at once.
public struct ProvidersConfiguration: Sendable, Hashable {
    public var lemonSqueezy: LemonSqueezyConfiguration?
    public var paystack: PaystackConfiguration?

    public init(lemonSqueezy: LemonSqueezyConfiguration? = nil, paystack: PaystackConfiguration? = nil) {
        self.lemonSqueezy = lemonSqueezy
        self.paystack = paystack
    }

    /// The enabled providers, in ``Provider/allCases`` order.
    public var enabledProviders: [Provider] {
        Provider.allCases.filter { provider in
            switch provider {
            case .lemonsqueezy: lemonSqueezy != nil
            case .paystack: paystack != nil
            }
        }
    }

    /// Reads the settings a service with `uses` needs, and nothing else.
    ///
    /// Empty values count as unset. A provider is enabled when the
    /// credentials of these uses are set: Lemon Squeezy needs
    /// `LEMONSQUEEZY_API_KEY` and `LEMONSQUEEZY_STORE_ID` (or the seed
    /// tutorial's `LEMON_SQUEEZY_STORE_ID`) for ``ProviderUses/api`` and
    /// `LEMONSQUEEZY_WEBHOOK_SECRET` for ``ProviderUses/webhooks``; Paystack
    /// needs `PAYSTACK_SECRET_KEY` for either. API settings:
    /// `LEMONSQUEEZY_API_BASE_URL`, `LEMONSQUEEZY_TEST_MODE`
    /// (`true/false/1/0/yes/no`), `LEMONSQUEEZY_STORE_CURRENCY`,
    /// `PAYSTACK_API_BASE_URL`; webhook settings: `PAYSTACK_WEBHOOK_IP_ALLOWLIST`
    /// (comma-separated). Variables of other uses are not read at all, so a
    /// service never depends on a secret it does not use.
    /// - Throws: ``ProvidersConfigurationError`` listing every problem: a provider
    ///   half configured, a malformed value, or no provider at all.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment,
                                       uses: ProviderUses = .all) throws(ProvidersConfigurationError) -> ProvidersConfiguration {
        var problems: [String] = []
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return raw
        }
        let api = uses.contains(.api), webhooks = uses.contains(.webhooks)

        var configuration = ProvidersConfiguration()

        // MARK: Lemon Squeezy
        let lsKey = api ? value("LEMONSQUEEZY_API_KEY") : nil
        let lsSecret = webhooks ? value("LEMONSQUEEZY_WEBHOOK_SECRET") : nil
        var lsStore = api ? value("LEMONSQUEEZY_STORE_ID") : nil
        if api, let alias = value("LEMON_SQUEEZY_STORE_ID") {
            if let primary = lsStore, primary != alias {
                problems.append("LEMONSQUEEZY_STORE_ID and LEMON_SQUEEZY_STORE_ID are both set and differ; set only one")
            }
            lsStore = lsStore ?? alias
        }
        let lsNeeded = (api ? ["LEMONSQUEEZY_API_KEY", "LEMONSQUEEZY_STORE_ID"] : []) + (webhooks ? ["LEMONSQUEEZY_WEBHOOK_SECRET"] : [])
        if lsKey != nil || lsSecret != nil || lsStore != nil {
            var missing: [String] = []
            if api, lsKey == nil { missing.append("LEMONSQUEEZY_API_KEY") }
            if api, lsStore == nil { missing.append("LEMONSQUEEZY_STORE_ID") }
            if webhooks, lsSecret == nil { missing.append("LEMONSQUEEZY_WEBHOOK_SECRET") }
            for name in missing {
                problems.append("\(name) is not set (Lemon Squeezy needs \(listed(lsNeeded)) together)")
            }
            if let store = lsStore, !(store.count <= 20 && store.allSatisfy({ $0.isASCII && $0.isNumber }) && store.contains(where: { $0 != "0" })) {
                problems.append("LEMONSQUEEZY_STORE_ID must be a positive integer")
            }
            var base = LemonSqueezyConfiguration.defaultAPIBaseURL, testMode = false, currency = "USD"
            if api {
                base = baseURL(value("LEMONSQUEEZY_API_BASE_URL"), default: base, name: "LEMONSQUEEZY_API_BASE_URL", problems: &problems)
                testMode = flag(value("LEMONSQUEEZY_TEST_MODE"), name: "LEMONSQUEEZY_TEST_MODE", problems: &problems)
                currency = value("LEMONSQUEEZY_STORE_CURRENCY") ?? currency
                if !(currency.count == 3 && currency.allSatisfy({ $0.isASCII && $0.isLetter })) {
                    problems.append("LEMONSQUEEZY_STORE_CURRENCY must be a three-letter ISO 4217 code")
                }
            }
            if missing.isEmpty {
                configuration.lemonSqueezy = LemonSqueezyConfiguration(
                    apiKey: lsKey.map(Secret.init), storeID: lsStore, webhookSecret: lsSecret.map(Secret.init),
                    apiBaseURL: base, testMode: testMode, storeCurrency: currency)
            }
        }

        // MARK: Paystack
        let psKey = uses.isEmpty ? nil : value("PAYSTACK_SECRET_KEY")
        let psAllow = webhooks ? value("PAYSTACK_WEBHOOK_IP_ALLOWLIST") : nil
        if psKey == nil, psAllow != nil {
            problems.append("PAYSTACK_WEBHOOK_IP_ALLOWLIST is set but PAYSTACK_SECRET_KEY is not")
        }
        if let psKey {
            if psKey.hasPrefix("pk_") {
                problems.append("PAYSTACK_SECRET_KEY holds a public key (pk_…); the API and webhook signatures need the secret key (sk_…)")
            }
            let base = api
                ? baseURL(value("PAYSTACK_API_BASE_URL"), default: PaystackConfiguration.defaultAPIBaseURL, name: "PAYSTACK_API_BASE_URL", problems: &problems)
                : PaystackConfiguration.defaultAPIBaseURL
            var allowList: IPAllowList?
            if let psAllow {
                do {
                    allowList = try IPAllowList(commaSeparated: psAllow)
                } catch {
                    problems.append("PAYSTACK_WEBHOOK_IP_ALLOWLIST: \(error.description)")
                }
            }
            configuration.paystack = PaystackConfiguration(secretKey: Secret(psKey), apiBaseURL: base, webhookIPAllowList: allowList)
        }

        if lsKey == nil, lsSecret == nil, lsStore == nil, psKey == nil {
            problems.append("no payment provider configured: set \(listed(lsNeeded)), and/or PAYSTACK_SECRET_KEY")
        }
        guard problems.isEmpty else { throw ProvidersConfigurationError(problems: problems) }
        return configuration
    }

    /// `A`, `A and B`, `A, B and C`.
    static func listed(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    /// An absolute http(s) URL without query, fragment or user info; the value is never echoed.
    static func baseURL(_ raw: String?, default fallback: String, name: String, problems: inout [String]) -> String {
        guard let raw else { return fallback }
        guard let components = URLComponents(string: raw), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
              components.user == nil, components.password == nil
        else {
            problems.append("\(name) must be an absolute http(s) URL without query, fragment or credentials")
            return fallback
        }
        return raw.hasSuffix("/") ? String(raw.dropLast()) : raw
    }

    static func flag(_ raw: String?, name: String, problems: inout [String]) -> Bool {
        guard let raw else { return false }
        switch raw.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default:
            problems.append("\(name) must be true or false")
            return false
        }
    }
}
