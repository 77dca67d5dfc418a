import Foundation
import Models

/// Which providers are enabled and how to reach them, read from the environment.
///
/// A provider is enabled when its credentials are present: Lemon Squeezy needs
/// `LEMONSQUEEZY_API_KEY`, `LEMONSQUEEZY_STORE_ID` and `LEMONSQUEEZY_WEBHOOK_SECRET`;
/// Paystack needs `PAYSTACK_SECRET_KEY`. Both may be enabled at once.
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

    /// Reads the settings.
    ///
    /// Empty values count as unset. Variables: `LEMONSQUEEZY_API_KEY`,
    /// `LEMONSQUEEZY_STORE_ID` (or the seed tutorial's `LEMON_SQUEEZY_STORE_ID`),
    /// `LEMONSQUEEZY_WEBHOOK_SECRET`, `LEMONSQUEEZY_API_BASE_URL`,
    /// `LEMONSQUEEZY_TEST_MODE` (`true/false/1/0/yes/no`),
    /// `LEMONSQUEEZY_STORE_CURRENCY`; `PAYSTACK_SECRET_KEY`,
    /// `PAYSTACK_API_BASE_URL`, `PAYSTACK_WEBHOOK_IP_ALLOWLIST` (comma-separated).
    /// - Throws: ``ProvidersConfigurationError`` listing every problem: a provider
    ///   half configured, a malformed value, or no provider at all.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(ProvidersConfigurationError) -> ProvidersConfiguration {
        var problems: [String] = []
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return raw
        }

        var configuration = ProvidersConfiguration()

        // MARK: Lemon Squeezy
        let lsKey = value("LEMONSQUEEZY_API_KEY")
        let lsSecret = value("LEMONSQUEEZY_WEBHOOK_SECRET")
        var lsStore = value("LEMONSQUEEZY_STORE_ID")
        if let alias = value("LEMON_SQUEEZY_STORE_ID") {
            if let primary = lsStore, primary != alias {
                problems.append("LEMONSQUEEZY_STORE_ID and LEMON_SQUEEZY_STORE_ID are both set and differ; set only one")
            }
            lsStore = lsStore ?? alias
        }
        if lsKey != nil || lsSecret != nil || lsStore != nil {
            var missing: [String] = []
            if lsKey == nil { missing.append("LEMONSQUEEZY_API_KEY") }
            if lsStore == nil { missing.append("LEMONSQUEEZY_STORE_ID") }
            if lsSecret == nil { missing.append("LEMONSQUEEZY_WEBHOOK_SECRET") }
            for name in missing {
                problems.append("\(name) is not set (Lemon Squeezy needs LEMONSQUEEZY_API_KEY, LEMONSQUEEZY_STORE_ID and LEMONSQUEEZY_WEBHOOK_SECRET together)")
            }
            if let store = lsStore, !(store.count <= 20 && store.allSatisfy({ $0.isASCII && $0.isNumber }) && store.contains(where: { $0 != "0" })) {
                problems.append("LEMONSQUEEZY_STORE_ID must be a positive integer")
            }
            let base = baseURL(value("LEMONSQUEEZY_API_BASE_URL"), default: LemonSqueezyConfiguration.defaultAPIBaseURL, name: "LEMONSQUEEZY_API_BASE_URL", problems: &problems)
            let testMode = flag(value("LEMONSQUEEZY_TEST_MODE"), name: "LEMONSQUEEZY_TEST_MODE", problems: &problems)
            let currency = value("LEMONSQUEEZY_STORE_CURRENCY") ?? "USD"
            if !(currency.count == 3 && currency.allSatisfy({ $0.isASCII && $0.isLetter })) {
                problems.append("LEMONSQUEEZY_STORE_CURRENCY must be a three-letter ISO 4217 code")
            }
            if let lsKey, let lsStore, let lsSecret {
                configuration.lemonSqueezy = LemonSqueezyConfiguration(
                    apiKey: Secret(lsKey), storeID: lsStore, webhookSecret: Secret(lsSecret), apiBaseURL: base, testMode: testMode, storeCurrency: currency)
            }
        }

        // MARK: Paystack
        let psKey = value("PAYSTACK_SECRET_KEY")
        let psAllow = value("PAYSTACK_WEBHOOK_IP_ALLOWLIST")
        if psKey == nil, psAllow != nil {
            problems.append("PAYSTACK_WEBHOOK_IP_ALLOWLIST is set but PAYSTACK_SECRET_KEY is not")
        }
        if let psKey {
            if psKey.hasPrefix("pk_") {
                problems.append("PAYSTACK_SECRET_KEY holds a public key (pk_…); the API and webhook signatures need the secret key (sk_…)")
            }
            let base = baseURL(value("PAYSTACK_API_BASE_URL"), default: PaystackConfiguration.defaultAPIBaseURL, name: "PAYSTACK_API_BASE_URL", problems: &problems)
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
            problems.append("no payment provider configured: set LEMONSQUEEZY_API_KEY, LEMONSQUEEZY_STORE_ID and LEMONSQUEEZY_WEBHOOK_SECRET, and/or PAYSTACK_SECRET_KEY")
        }
        guard problems.isEmpty else { throw ProvidersConfigurationError(problems: problems) }
        return configuration
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
