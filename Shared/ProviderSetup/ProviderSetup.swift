import HTTPClient
import Providers
import ServiceRuntime
import Basics

/// Reads the payment providers' settings the way every Storefront service
/// reads configuration: secrets may come from `*_FILE` variables (compose and
/// Kubernetes secrets), and every problem joins the reader's list so the
/// process reports them all at once at start-up.
public enum ProviderSetup {
    /// The providers enabled by the environment for a service with `uses`,
    /// or nil when their settings have problems (already reported to
    /// `reader`). Only the secrets of `uses` are read (their `*_FILE` files
    /// too); the others' variables are ignored, so a service never needs a
    /// secret it does not use (``ProviderUses``).
    /// - Parameter requireOne: report a problem when no provider is enabled.
    public static func configuration(_ reader: inout ConfigReader, uses: ProviderUses, requireOne: Bool = true) -> ProvidersConfiguration? {
        var values = reader.environment.values
        for name in ProviderUses.all.secretVariables {
            values[name] = nil
            values[name + "_FILE"] = nil
        }
        for name in uses.secretVariables {
            if let secret = reader.secret(name) { values[name] = secret.reveal() }
        }
        do {
            let configuration = try ProvidersConfiguration.fromEnvironment(values, uses: uses)
            if requireOne, configuration.enabledProviders.isEmpty {
                let needed = (uses.contains(.api) ? ["LEMONSQUEEZY_API_KEY", "LEMONSQUEEZY_STORE_ID"] : [])
                    + (uses.contains(.webhooks) ? ["LEMONSQUEEZY_WEBHOOK_SECRET"] : [])
                reader.report(uses.secretVariables.first ?? "PROVIDERS",
                              "no payment provider is enabled: set the Lemon Squeezy (\(needed.joined(separator: ", "))) or Paystack (PAYSTACK_SECRET_KEY) settings")
                return nil
            }
            return configuration
        } catch {
            for problem in error.problems { reader.report(problem.variable, problem.message) }
            return nil
        }
    }
}
