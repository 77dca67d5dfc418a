import ServiceSettings
import Foundation
import Telemetry

/// What a service executable runs: its services, in start order, and what to
/// release once they have all stopped.
public struct ServiceLaunch: Sendable {
    public var services: [any Service]
    public var afterStop: @Sendable () async -> Void

    public init(services: [any Service], afterStop: @escaping @Sendable () async -> Void = {}) {
        self.services = services
        self.afterStop = afterStop
    }
}

/// The one start-up sequence of every Storefront executable, so each `main`
/// only says what it reads and what it runs:
///
/// 0. `--help-settings` prints the binary's declared settings and exits 0
///    (``SettingsHelpCommand``), reading nothing; then the allocator's
///    policy is set (``HeapPolicy``).
/// 1. `LOG_LEVEL` and the service's settings are read with one
///    ``ConfigReader`` that accepts only `settings`; any problem, all of them
///    listed by name, exits 78.
/// 2. Process metrics and ``BuildInfo`` are registered; `start` builds the services (a
///    ``ConfigurationError`` it throws exits 78, any other error exits 1).
/// 3. The services run in a ``ServiceGroup`` until SIGTERM or SIGINT; a
///    service that fails stops the others and the process exits 1.
public enum ServiceLauncher {
    public static func run<Settings>(
        _ service: String,
        settings declared: BinarySettings,
        environment: Environment = Environment(),
        read: (inout ConfigReader, Logger) -> Settings,
        start: (Settings, Logger, MetricsRegistry) async throws -> ServiceLaunch,
        // Runs on the caller's actor (a `@main` is on the main actor), so the
        // closures need not be Sendable.
        isolation: isolated (any Actor)? = #isolation
    ) async -> Never {
        SettingsHelpCommand.answerIfAsked([declared])
        HeapPolicy.apply()
        var reader = ConfigReader(environment, declared: declared)
        let logger = Logger.bootstrap(service: service, reader: &reader)
        let settings = read(&reader, logger)
        let build = BuildInfo.fromEnvironment(&reader)
        do {
            try reader.finish()
        } catch {
            ServiceConfigurationFailure.exit(error, logger: logger)
        }

        let metrics = MetricsRegistry()
        ProcessMetrics.register(into: metrics)
        build.register(into: metrics)
        let launch: ServiceLaunch
        do {
            launch = try await start(settings, logger, metrics)
        } catch let error as ConfigurationError {
            ServiceConfigurationFailure.exit(error, logger: logger)
        } catch {
            logger.critical("\(service) could not start: \(error)")
            exit(1)
        }

        do {
            try await ServiceGroup(services: launch.services, logger: logger).run()
        } catch {
            logger.critical("\(service) stopped: \(error)")
            await launch.afterStop()
            exit(1)
        }
        await launch.afterStop()
        exit(0)
    }
}
