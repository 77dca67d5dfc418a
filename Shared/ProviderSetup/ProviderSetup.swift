import HTTPClient
import Providers
import ServiceRuntime

/// Reads the payment providers' settings the way every Storefront service
/// reads configuration: secrets may come from `*_FILE` variables (compose and
/// Kubernetes secrets), and every problem joins the reader's list so the
/// process reports them all at once at start-up.
public enum ProviderSetup {
    /// Variables that hold provider secrets and may instead name a file.
    static let secretVariables = ["LEMONSQUEEZY_API_KEY", "LEMONSQUEEZY_WEBHOOK_SECRET", "PAYSTACK_SECRET_KEY"]

    /// The providers enabled by the environment, or nil when their settings
    /// have problems (already reported to `reader`).
    /// - Parameter requireOne: report a problem when no provider is enabled.
    public static func configuration(_ reader: inout ConfigReader, requireOne: Bool = true) -> ProvidersConfiguration? {
        var values = reader.environment.values
        for name in secretVariables {
            if let secret = reader.secret(name) { values[name] = secret.reveal() }
            values[name + "_FILE"] = nil
        }
        do {
            let configuration = try ProvidersConfiguration.fromEnvironment(values)
            if requireOne, configuration.enabledProviders.isEmpty {
                reader.report("LEMONSQUEEZY_API_KEY", "no payment provider is enabled: set the Lemon Squeezy (LEMONSQUEEZY_API_KEY, LEMONSQUEEZY_STORE_ID, LEMONSQUEEZY_WEBHOOK_SECRET) or Paystack (PAYSTACK_SECRET_KEY) settings")
                return nil
            }
            return configuration
        } catch {
            for problem in error.problems {
                let variable = problem.prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
                // Problems read "VARIABLE must be …"; name the variable once.
                let message = problem.dropFirst(variable.count).drop { $0 == ":" || $0 == " " }
                reader.report(variable.isEmpty ? "PROVIDERS" : String(variable), String(message))
            }
            return nil
        }
    }
}
