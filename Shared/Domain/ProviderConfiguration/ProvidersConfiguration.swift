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
        func problem(_ setting: Setting, _ message: String) { reader.report(setting, message) }
        func value(_ setting: Setting) -> String? {
            guard let raw = reader.string(setting)?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return raw
        }
        func secret(_ setting: Setting) -> Secret? {
            guard let raw = reader.secret(setting)?.reveal().trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return Secret(raw)
        }
        let api = uses.contains(.api), webhooks = uses.contains(.webhooks)

        var configuration = ProvidersConfiguration()

        // MARK: Lemon Squeezy
        let lsKey = api ? secret(.lemonSqueezyAPIKey) : nil
        let lsSecret = webhooks ? secret(.lemonSqueezyWebhookSecret) : nil
        var lsStore = api ? value(.lemonSqueezyStoreID) : nil
        if api, let alias = value(.lemonSqueezyStoreIDAlias) {
            if let primary = lsStore, primary != alias {
                problem(.lemonSqueezyStoreID, "differs from LEMON_SQUEEZY_STORE_ID (the seed tutorial's name); set only one")
            }
            lsStore = lsStore ?? alias
        }
        let lsNeeded: [Setting] = (api ? [.lemonSqueezyAPIKey, .lemonSqueezyStoreID] : []) + (webhooks ? [.lemonSqueezyWebhookSecret] : [])
        if lsKey != nil || lsSecret != nil || lsStore != nil {
            var missing: [Setting] = []
            if api, lsKey == nil { missing.append(.lemonSqueezyAPIKey) }
            if api, lsStore == nil { missing.append(.lemonSqueezyStoreID) }
            if webhooks, lsSecret == nil { missing.append(.lemonSqueezyWebhookSecret) }
            for setting in missing {
                problem(setting, "is not set (Lemon Squeezy needs \(listed(lsNeeded)) together)")
            }
            if let store = lsStore, !(store.count <= 20 && store.allSatisfy({ $0.isASCII && $0.isNumber }) && store.contains(where: { $0 != "0" })) {
                problem(.lemonSqueezyStoreID, "must be a positive integer")
            }
            var base = LemonSqueezyConfiguration.defaultAPIBaseURL, testMode = false, currency = "USD"
            if api {
                base = baseURL(value(.lemonSqueezyAPIBaseURL), default: base, setting: .lemonSqueezyAPIBaseURL, reader: &reader)
                testMode = reader.bool(.lemonSqueezyTestMode, default: false)
                currency = value(.lemonSqueezyStoreCurrency) ?? currency
                if !(currency.count == 3 && currency.allSatisfy({ $0.isASCII && $0.isLetter })) {
                    problem(.lemonSqueezyStoreCurrency, "must be a three-letter ISO 4217 code")
                }
            }
            if missing.isEmpty {
                configuration.lemonSqueezy = LemonSqueezyConfiguration(
                    apiKey: lsKey, storeID: lsStore, webhookSecret: lsSecret,
                    apiBaseURL: base, testMode: testMode, storeCurrency: currency)
            }
        }

        // MARK: Paystack
        let psKey = uses.isEmpty ? nil : secret(.paystackSecretKey)
        let psAllow = webhooks ? value(.paystackWebhookIPAllowlist) : nil
        if psKey == nil, psAllow != nil {
            problem(.paystackWebhookIPAllowlist, "is set but PAYSTACK_SECRET_KEY is not")
        }
        if let psKey {
            if psKey.reveal().hasPrefix("pk_") {
                problem(.paystackSecretKey, "holds a public key (pk_…); the API and webhook signatures need the secret key (sk_…)")
            }
            let base =
                api
                ? baseURL(
                    value(.paystackAPIBaseURL), default: PaystackConfiguration.defaultAPIBaseURL, setting: .paystackAPIBaseURL, reader: &reader)
                : PaystackConfiguration.defaultAPIBaseURL
            var allowList: IPAllowList?
            if let psAllow {
                do {
                    allowList = try IPAllowList(commaSeparated: psAllow)
                } catch {
                    problem(.paystackWebhookIPAllowlist, error.description)
                }
            }
            configuration.paystack = PaystackConfiguration(secretKey: psKey, apiBaseURL: base, webhookIPAllowList: allowList)
        }

        if lsKey == nil, lsSecret == nil, lsStore == nil, psKey == nil {
            problem(
                uses.secretSettings.first ?? .paystackSecretKey,
                "no payment provider configured: set \(listed(lsNeeded)), and/or PAYSTACK_SECRET_KEY")
        }
        return reader.problems.count == problemsBefore ? configuration : nil
    }

    /// `A`, `A and B`, `A, B and C`.
    static func listed(_ settings: [Setting]) -> String {
        let names = settings.map(\.name)
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    /// An absolute http(s) URL without query, fragment or user info; the value is never echoed.
    static func baseURL(_ raw: String?, default fallback: String, setting: Setting, reader: inout ConfigReader) -> String {
        guard let raw else { return fallback }
        guard let components = URLComponents(string: raw), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else {
            reader.report(setting, "must be an absolute http(s) URL without query, fragment or credentials")
            return fallback
        }
        return raw.hasSuffix("/") ? String(raw.dropLast()) : raw
    }
}
