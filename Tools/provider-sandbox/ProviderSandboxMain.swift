import SandboxKit
import SandboxServer
import ServiceRuntime
import Telemetry

/// `provider-sandbox`: a local emulator of the Lemon Squeezy, Paystack and
/// Stripe APIs and webhooks. Its settings are declared in ``ProviderSandboxBinary/settings``:
/// `provider-sandbox --help-settings` lists them.
@main
struct ProviderSandboxMain {
    static func main() async {
        await ServiceLauncher.run(
            "provider-sandbox", settings: ProviderSandboxBinary.settings,
            read: { reader, _ in
                ProviderSandboxSettings.fromEnvironment(&reader)
            },
            start: { settings, logger, metrics in
                let sandbox = try ProviderSandboxServer(settings: settings, logger: logger, metrics: metrics)
                logger.info(
                    "provider sandbox starting",
                    metadata: [
                        "http.port": String(settings.port), "sandbox.public_url": settings.sandbox.publicBaseURL,
                    ])
                return ServiceLaunch(services: sandbox.services)
            })
    }
}
