import SandboxServer
import ServiceHTTP
import ServiceRuntime
import Telemetry
import Foundation

/// `provider-sandbox`: a local emulator of the Lemon Squeezy and Paystack APIs
/// and webhooks. Configuration comes from the environment; see the README.
@main
struct ProviderSandboxMain {
    static func main() async {
        var reader = ConfigReader(Environment())
        let logger = Logger.bootstrap(service: "provider-sandbox", reader: &reader)
        let settings = ProviderSandboxSettings.fromEnvironment(&reader)
        do {
            try reader.finish()
        } catch {
            ServiceConfigurationFailure.exit(error, logger: logger)
        }
        do {
            let sandbox = try ProviderSandboxServer(settings: settings, logger: logger)
            let group = ServiceGroup(services: [HTTPServerService(name: "provider-sandbox", server: sandbox.server)], logger: logger)
            logger.info("provider sandbox starting", metadata: ["http.port": String(settings.port), "sandbox.public_url": settings.sandbox.publicBaseURL])
            try await group.run()
        } catch {
            logger.critical("provider sandbox stopped: \(error)")
            exit(1)
        }
    }
}
