import SandboxKit
import SandboxServer
import ServiceRuntime
import Telemetry

/// `provider-sandbox`: a local emulator of the Lemon Squeezy and Paystack APIs
/// and webhooks. Configuration comes from the environment; see the README.
@main
struct ProviderSandboxMain {
    static func main() async {
        await ServiceLauncher.run(
            "provider-sandbox",
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
