import Foundation
import ServiceRuntime
import ServiceSettings
import ProviderConfiguration

/// Whether this deployment takes real money (`live`) or only test payments
/// (`test`), from `STOREFRONT_MODE`.
///
/// Rules, checked at start-up (every violation is a ``ConfigReader`` problem),
/// against the credentials of the configured providers that show their mode
/// (``ProviderConfiguration/CredentialMode``: Paystack's and Stripe's `sk_test_…`/`sk_live_…`):
/// - `STOREFRONT_MODE` set: every such credential must agree with it.
/// - unset: derived from them, when they agree.
/// - unset and no credential shows a mode: an error; set `STOREFRONT_MODE=test` or `live`.
///
/// Lemon Squeezy API keys do not show their mode (test-mode and live-mode
/// keys look alike and only the API can tell them apart), so with Lemon
/// Squeezy alone `STOREFRONT_MODE` must be set and it is the operator's word.
/// `LEMONSQUEEZY_TEST_MODE` is not read here.
public enum DeploymentMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Test payments only (provider test keys, sandbox).
    case test
    /// Real payments.
    case live

    /// The variable read.
    public static var variable: String { Setting.storefrontMode.name }

    public var description: String { rawValue }

    init(isLive: Bool) { self = isLive ? .live : .test }

    /// Reads `STOREFRONT_MODE` (`test` or `live`) and checks it against
    /// `credentials` (``ProvidersConfiguration/credentialModes`` of the
    /// configured providers). A key never appears in a problem message.
    /// - Returns: the mode; `.test` as a placeholder when a problem was
    ///   reported (``ConfigReader/finish()`` then throws).
    public static func fromEnvironment(_ reader: inout ConfigReader, credentials: [CredentialMode]) -> DeploymentMode {
        let configured = reader.enumeration(.storefrontMode, as: DeploymentMode.self)
        let invalid = configured == nil && reader.isSet(.storefrontMode)
        var shown: [(credential: CredentialMode, mode: DeploymentMode)] = []
        for credential in credentials {
            guard let live = credential.isLive else {
                reader.report(
                    credential.setting,
                    "does not start with \(credential.testMark) or \(credential.liveMark), so it cannot be checked against STOREFRONT_MODE")
                return .test
            }
            shown.append((credential, DeploymentMode(isLive: live)))
        }
        guard let first = shown.first else {
            if let configured { return configured }
            if !invalid {
                reader.report(
                    variable,
                    "set STOREFRONT_MODE=test or live: no configured provider's key shows its mode offline")
            }
            return .test
        }
        if invalid { return .test }
        let expected = configured ?? first.mode
        for (credential, mode) in shown where mode != expected {
            let said = configured.map { "STOREFRONT_MODE is \($0)" } ?? "\(first.credential.setting.name) is a \(first.mode) key"
            let mark = mode.isLive ? credential.liveMark : credential.testMark
            reader.report(
                variable,
                "\(said) but \(credential.setting.name) is a \(mode) key (\(mark)…); "
                    + "use \(expected == .live ? "live" : "test") keys everywhere or set STOREFRONT_MODE=\(mode)")
            return .test
        }
        return expected
    }

    /// Like ``fromEnvironment(_:credentials:)``, reading the providers'
    /// API credentials itself (the way `ProviderSetup` does). A problem with
    /// a credential's variables (both set, unreadable file) is reported once:
    /// not again if `ProvidersConfiguration.fromEnvironment` already reported
    /// it, so call this after it.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> DeploymentMode {
        var scratch = reader.withoutProblems()
        let providers = ProvidersConfiguration.fromEnvironment(&scratch, uses: .api)
        // Problems reading a key (or its `_FILE`), not the provider's other settings.
        let secrets = Set(ProviderUses.api.secretVariables.flatMap { [$0, $0 + "_FILE"] })
        let credentialProblems = scratch.problems.filter { secrets.contains($0.variable) && !$0.message.hasPrefix("no payment provider") }
        for problem in credentialProblems where !reader.problems.contains(problem) {
            reader.report(problem.variable, problem.message)
        }
        if !credentialProblems.isEmpty {
            // A key exists but cannot be read: check nothing against it,
            // but still read (and validate) STOREFRONT_MODE.
            _ = reader.enumeration(.storefrontMode, as: DeploymentMode.self)
            return .test
        }
        return fromEnvironment(&reader, credentials: providers?.credentialModes ?? [])
    }

    /// True for ``live``.
    public var isLive: Bool { self == .live }
}
