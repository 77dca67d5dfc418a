import ServiceSettings
import Foundation
import BillingModel
import Webhooks

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

    /// Reads the settings a service with `uses` needs, and nothing else,
    /// through the service's one `ConfigReader`: secrets may come from
    /// `*_FILE` variables, and every problem is reported to `reader` by
    /// variable name, so start-up lists them all at once.
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
    /// (comma-separated). Variables of other uses, secrets included, are not
    /// read at all, so a service never depends on a secret it does not use.
    /// - Returns: the configuration, or nil when a problem was reported (a
    ///   provider half configured, a malformed value, or no provider at all).
    public static func fromEnvironment(_ reader: inout ConfigReader, uses: ProviderUses = .all) -> ProvidersConfiguration? {
        let problemsBefore = reader.problems.count
        func problem(_ variable: String, _ message: String) { reader.report(variable, message) }
        func value(_ name: String) -> String? {
            guard let raw = reader.string(name)?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return raw
        }
        func secret(_ name: String) -> Secret? {
            guard let raw = reader.secret(name)?.reveal().trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return Secret(raw)
        }
        let api = uses.contains(.api), webhooks = uses.contains(.webhooks)

        var configuration = ProvidersConfiguration()

        // MARK: Lemon Squeezy
        let lsKey = api ? secret("LEMONSQUEEZY_API_KEY") : nil
        let lsSecret = webhooks ? secret("LEMONSQUEEZY_WEBHOOK_SECRET") : nil
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
                base = baseURL(value("LEMONSQUEEZY_API_BASE_URL"), default: base, name: "LEMONSQUEEZY_API_BASE_URL", reader: &reader)
                testMode = reader.bool("LEMONSQUEEZY_TEST_MODE", default: false)
                currency = value("LEMONSQUEEZY_STORE_CURRENCY") ?? currency
                if !(currency.count == 3 && currency.allSatisfy({ $0.isASCII && $0.isLetter })) {
                    problem("LEMONSQUEEZY_STORE_CURRENCY", "must be a three-letter ISO 4217 code")
                }
            }
            if missing.isEmpty {
                configuration.lemonSqueezy = LemonSqueezyConfiguration(
                    apiKey: lsKey, storeID: lsStore, webhookSecret: lsSecret,
                    apiBaseURL: base, testMode: testMode, storeCurrency: currency)
            }
        }

        // MARK: Paystack
        let psKey = uses.isEmpty ? nil : secret("PAYSTACK_SECRET_KEY")
        let psAllow = webhooks ? value("PAYSTACK_WEBHOOK_IP_ALLOWLIST") : nil
        if psKey == nil, psAllow != nil {
            problem("PAYSTACK_WEBHOOK_IP_ALLOWLIST", "is set but PAYSTACK_SECRET_KEY is not")
        }
        if let psKey {
            if psKey.reveal().hasPrefix("pk_") {
                problem("PAYSTACK_SECRET_KEY", "holds a public key (pk_…); the API and webhook signatures need the secret key (sk_…)")
            }
            let base =
                api
                ? baseURL(
                    value("PAYSTACK_API_BASE_URL"), default: PaystackConfiguration.defaultAPIBaseURL, name: "PAYSTACK_API_BASE_URL", reader: &reader)
                : PaystackConfiguration.defaultAPIBaseURL
            var allowList: IPAllowList?
            if let psAllow {
                do {
                    allowList = try IPAllowList(commaSeparated: psAllow)
                } catch {
                    problem("PAYSTACK_WEBHOOK_IP_ALLOWLIST", error.description)
                }
            }
            configuration.paystack = PaystackConfiguration(secretKey: psKey, apiBaseURL: base, webhookIPAllowList: allowList)
        }

        if lsKey == nil, lsSecret == nil, lsStore == nil, psKey == nil {
            problem(
                uses.secretVariables.first ?? "PAYSTACK_SECRET_KEY",
                "no payment provider configured: set \(listed(lsNeeded)), and/or PAYSTACK_SECRET_KEY")
        }
        return reader.problems.count == problemsBefore ? configuration : nil
    }

    /// `A`, `A and B`, `A, B and C`.
    static func listed(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    /// An absolute http(s) URL without query, fragment or user info; the value is never echoed.
    static func baseURL(_ raw: String?, default fallback: String, name: String, reader: inout ConfigReader) -> String {
        guard let raw else { return fallback }
        guard let components = URLComponents(string: raw), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else {
            reader.report(name, "must be an absolute http(s) URL without query, fragment or credentials")
            return fallback
        }
        return raw.hasSuffix("/") ? String(raw.dropLast()) : raw
    }
}
