import Basics
import Foundation
import Models

/// Which providers are enabled and how to reach them, read from the environment.
///
/// A provider is enabled when the credentials of the service's uses
/// (``ProviderUses``) are present: Lemon Squeezy needs `LEMONSQUEEZY_API_KEY`
/// and `LEMONSQUEEZY_STORE_ID` to call the API and `LEMONSQUEEZY_WEBHOOK_SECRET`
/// to verify webhooks; Paystack needs `PAYSTACK_SECRET_KEY` for both. Both
/// providers may be enabled at once.
public struct ProvidersConfiguration: Sendable {
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
    /// (``BooleanSetting``), `LEMONSQUEEZY_STORE_CURRENCY`,
    /// `PAYSTACK_API_BASE_URL`; webhook settings: `PAYSTACK_WEBHOOK_IP_ALLOWLIST`
    /// (comma-separated). Variables of other uses are not read at all, so a
    /// service never depends on a secret it does not use.
    /// - Throws: ``ProvidersConfigurationError`` listing every problem: a provider
    ///   half configured, a malformed value, or no provider at all.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment,
                                       uses: ProviderUses = .all) throws(ProvidersConfigurationError) -> ProvidersConfiguration {
        var problems: [ConfigurationProblem] = []
        func problem(_ variable: String, _ message: String) { problems.append(ConfigurationProblem(variable: variable, message: message)) }
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
                problem("LEMONSQUEEZY_STORE_ID", "differs from LEMON_SQUEEZY_STORE_ID (the seed tutorial's name); set only one")
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
                problem(name, "is not set (Lemon Squeezy needs \(listed(lsNeeded)) together)")
            }
            if let store = lsStore, !(store.count <= 20 && store.allSatisfy({ $0.isASCII && $0.isNumber }) && store.contains(where: { $0 != "0" })) {
                problem("LEMONSQUEEZY_STORE_ID", "must be a positive integer")
            }
            var base = LemonSqueezyConfiguration.defaultAPIBaseURL, testMode = false, currency = "USD"
            if api {
                base = baseURL(value("LEMONSQUEEZY_API_BASE_URL"), default: base, name: "LEMONSQUEEZY_API_BASE_URL", problems: &problems)
                testMode = flag(value("LEMONSQUEEZY_TEST_MODE"), name: "LEMONSQUEEZY_TEST_MODE", problems: &problems)
                currency = value("LEMONSQUEEZY_STORE_CURRENCY") ?? currency
                if !(currency.count == 3 && currency.allSatisfy({ $0.isASCII && $0.isLetter })) {
                    problem("LEMONSQUEEZY_STORE_CURRENCY", "must be a three-letter ISO 4217 code")
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
            problem("PAYSTACK_WEBHOOK_IP_ALLOWLIST", "is set but PAYSTACK_SECRET_KEY is not")
        }
        if let psKey {
            if psKey.hasPrefix("pk_") {
                problem("PAYSTACK_SECRET_KEY", "holds a public key (pk_…); the API and webhook signatures need the secret key (sk_…)")
            }
            let base = api
                ? baseURL(value("PAYSTACK_API_BASE_URL"), default: PaystackConfiguration.defaultAPIBaseURL, name: "PAYSTACK_API_BASE_URL", problems: &problems)
                : PaystackConfiguration.defaultAPIBaseURL
            var allowList: IPAllowList?
            if let psAllow {
                do {
                    allowList = try IPAllowList(commaSeparated: psAllow)
                } catch {
                    problem("PAYSTACK_WEBHOOK_IP_ALLOWLIST", error.description)
                }
            }
            configuration.paystack = PaystackConfiguration(secretKey: Secret(psKey), apiBaseURL: base, webhookIPAllowList: allowList)
        }

        if lsKey == nil, lsSecret == nil, lsStore == nil, psKey == nil {
            problem("PROVIDERS", "no payment provider configured: set \(listed(lsNeeded)), and/or PAYSTACK_SECRET_KEY")
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
    static func baseURL(_ raw: String?, default fallback: String, name: String, problems: inout [ConfigurationProblem]) -> String {
        guard let raw else { return fallback }
        guard let components = URLComponents(string: raw), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
              components.user == nil, components.password == nil
        else {
            problems.append(ConfigurationProblem(variable: name, message: "must be an absolute http(s) URL without query, fragment or credentials"))
            return fallback
        }
        return raw.hasSuffix("/") ? String(raw.dropLast()) : raw
    }

    /// The same words as every other boolean setting (``BooleanSetting``).
    static func flag(_ raw: String?, name: String, problems: inout [ConfigurationProblem]) -> Bool {
        guard let raw else { return false }
        guard let value = BooleanSetting.parse(raw) else {
            problems.append(ConfigurationProblem(variable: name, message: "expected \(BooleanSetting.accepted)"))
            return false
        }
        return value
    }
}
