import ServiceSettings
import Telemetry

extension ConfigValueParser where Value == LogLevel {
    /// A log level name, case-insensitive (`warn` means `warning`).
    public static var logLevel: Self {
        Self(expected: "one of " + LogLevel.allCases.map(\.rawValue).joined(separator: ", ")) { LogLevel(name: $0) }
    }
}

extension Logger {
    /// The service's root logger, at the level named by `LOG_LEVEL` (default `info`).
    ///
    /// An invalid `LOG_LEVEL` is recorded as a problem in `reader` and the
    /// logger uses `info`, so it can still report that problem.
    /// - Parameters:
    ///   - service: the service name put on every line.
    ///   - reader: the configuration being read.
    ///   - sink: where lines go; standard error by default.
    public static func bootstrap(service: String, reader: inout ConfigReader, sink: any LogSink = StandardErrorLogSink()) -> Logger {
        let level = reader.value("LOG_LEVEL", .logLevel, default: .info)
        return Logger(service: service, minimumLevel: level, sink: sink)
    }
}
