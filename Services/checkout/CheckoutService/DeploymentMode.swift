import Foundation
import ServiceRuntime
import ServiceSettings

/// Whether this deployment takes real money (`live`) or only test payments
/// (`test`), from `STOREFRONT_MODE`.
///
/// Rules, checked at start-up (every violation is a ``ConfigReader`` problem):
/// - `STOREFRONT_MODE` set: it must agree with the Paystack secret key when
///   Paystack is configured (`sk_test_…` ↔ `test`, `sk_live_…` ↔ `live`).
/// - unset: derived from the Paystack secret key's prefix.
/// - unset and no Paystack key: an error; set `STOREFRONT_MODE=test` or `live`.
///
/// Lemon Squeezy API keys do not show their mode (test-mode and live-mode
/// keys look alike and only the API can tell them apart), so they are not
/// checked offline: with Lemon Squeezy alone, `STOREFRONT_MODE` must be set
/// and it is the operator's word. `LEMONSQUEEZY_TEST_MODE` is not read here.
public enum DeploymentMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Test payments only (provider test keys, sandbox).
    case test
    /// Real payments.
    case live

    /// The variable read.
    public static let variable = "STOREFRONT_MODE"
    /// The Paystack key variable the mode is checked against (or `_FILE`).
    public static let paystackKeyVariable = "PAYSTACK_SECRET_KEY"

    public var description: String { rawValue }

    /// The mode a Paystack secret key belongs to, from its documented prefix
    /// (`sk_test_` or `sk_live_`); nil for anything else. Never echoes the key.
    public static func of(paystackSecretKey key: String) -> DeploymentMode? {
        let key = key.trimmingCharacters(in: .whitespacesAndNewlines)
        if key.hasPrefix("sk_test_") { return .test }
        if key.hasPrefix("sk_live_") { return .live }
        return nil
    }

    /// Reads `STOREFRONT_MODE` (`test` or `live`) and checks it against
    /// `paystackSecretKey` (pass the key of the configured Paystack provider,
    /// e.g. `providers?.paystack?.secretKey.reveal()`, or nil when Paystack
    /// is not configured). The key never appears in a problem message.
    /// - Returns: the mode; `.test` as a placeholder when a problem was
    ///   reported (``ConfigReader/finish()`` then throws).
    public static func fromEnvironment(_ reader: inout ConfigReader, paystackSecretKey: String?) -> DeploymentMode {
        let configured = reader.enumeration("STOREFRONT_MODE", as: DeploymentMode.self)
        let invalid = configured == nil && reader.environment[variable] != nil
        guard let key = paystackSecretKey?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty else {
            if let configured { return configured }
            if !invalid {
                reader.report(
                    variable,
                    "set STOREFRONT_MODE=test or live: Paystack is not configured, so the mode cannot be derived "
                        + "from its key, and Lemon Squeezy keys do not show their mode offline")
            }
            return .test
        }
        guard let keyMode = of(paystackSecretKey: key) else {
            // Paystack only issues sk_test_ and sk_live_ secret keys.
            reader.report(paystackKeyVariable, "does not start with sk_test_ or sk_live_, so it cannot be checked against STOREFRONT_MODE")
            return .test
        }
        guard let configured else {
            return invalid ? .test : keyMode
        }
        guard configured == keyMode else {
            reader.report(
                variable,
                "STOREFRONT_MODE is \(configured) but PAYSTACK_SECRET_KEY is a \(keyMode) key (sk_\(keyMode)_…); "
                    + "use a \(configured) key or set STOREFRONT_MODE=\(keyMode)")
            return .test
        }
        return configured
    }

    /// Like ``fromEnvironment(_:paystackSecretKey:)``, reading the Paystack
    /// key itself from `PAYSTACK_SECRET_KEY` or `PAYSTACK_SECRET_KEY_FILE`
    /// (the way `ProviderSetup` does). A problem with the key variables
    /// (both set, unreadable file) is reported once: not again if
    /// `ProvidersConfiguration.fromEnvironment` already reported it, so call this after it.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> DeploymentMode {
        var scratch = ConfigReader(reader.environment)
        let key = scratch.secret("PAYSTACK_SECRET_KEY")
        for problem in scratch.problems where !reader.problems.contains(problem) {
            reader.report(problem.variable, problem.message)
        }
        if !scratch.problems.isEmpty {
            // The key exists but cannot be read: check nothing against it,
            // but still read (and validate) STOREFRONT_MODE.
            _ = reader.enumeration("STOREFRONT_MODE", as: DeploymentMode.self)
            return .test
        }
        return fromEnvironment(&reader, paystackSecretKey: key?.reveal())
    }

    /// True for ``live``.
    public var isLive: Bool { self == .live }
}
