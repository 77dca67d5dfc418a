import ServiceSettings
import Foundation
import Telemetry

/// What an executable does when its configuration is invalid: log every
/// problem, then exit with `EX_CONFIG` (78) so supervisors see a
/// configuration fault rather than a crash.
public enum ServiceConfigurationFailure {
    /// `EX_CONFIG` from `sysexits.h`.
    public static let exitCode: Int32 = 78

    /// Logs one `critical` line per problem (metadata `config.variable`,
    /// `config.problem`) and a summary line. Other errors are logged as one line.
    public static func log(_ error: any Error, to logger: Logger) {
        guard let configurationError = error as? ConfigurationError else {
            logger.critical("invalid configuration", metadata: ["error": String(describing: error)])
            return
        }
        for problem in configurationError.problems {
            logger.critical("invalid configuration: \(problem)", metadata: ["config.variable": problem.variable, "config.problem": problem.message])
        }
        logger.critical(
            "refusing to start: \(configurationError.problems.count) configuration problem(s) in \(configurationError.variables.joined(separator: ", "))"
        )
    }

    /// Logs `error` with ``log(_:to:)`` and exits the process with ``exitCode``.
    public static func exit(_ error: any Error, logger: Logger) -> Never {
        log(error, to: logger)
        Foundation.exit(exitCode)
    }
}
