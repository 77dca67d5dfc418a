import ServiceSettings

extension HTTPServerConfiguration {
    /// Reads the HTTP settings every service shares: `HOST` (default
    /// `0.0.0.0`), `PORT` (the service's own default), `HTTP_THREADS`,
    /// `HTTP_MAX_CONNECTIONS`, `HTTP_MAX_CONNECTIONS_PER_IP` (default 256; 0
    /// is no limit: behind a gateway every request comes from its address,
    /// so set it to `HTTP_MAX_CONNECTIONS` there), `HTTP_MAX_BODY_BYTES`,
    /// `HTTP_CONNECTION_TIMEOUT` (seconds, the idle timeout; a gateway must
    /// keep idle upstream connections for less), `HTTP_HANDLER_TIMEOUT` and
    /// `HTTP_SHUTDOWN_GRACE`.
    public static func fromEnvironment(_ reader: inout ConfigReader, defaultPort: Int) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.bindAddress = reader.string("HOST", default: "0.0.0.0")
        configuration.port = UInt16(clamping: reader.int("PORT", default: defaultPort, in: 0...65_535))
        configuration.threadPoolSize = reader.int("HTTP_THREADS", default: configuration.threadPoolSize, in: 1...256)
        configuration.maxConnections = reader.int("HTTP_MAX_CONNECTIONS", default: configuration.maxConnections, in: 1...100_000)
        configuration.maxConnectionsPerIP = reader.int("HTTP_MAX_CONNECTIONS_PER_IP", default: configuration.maxConnectionsPerIP, in: 0...100_000)
        configuration.maxBodyBytes = reader.int("HTTP_MAX_BODY_BYTES", default: configuration.maxBodyBytes, in: 1...(64 << 20))
        configuration.connectionTimeoutSeconds = reader.int("HTTP_CONNECTION_TIMEOUT", default: configuration.connectionTimeoutSeconds, in: 1...3600)
        configuration.handlerTimeout = reader.duration("HTTP_HANDLER_TIMEOUT", default: configuration.handlerTimeout)
        configuration.shutdownGracePeriod = reader.duration("HTTP_SHUTDOWN_GRACE", default: configuration.shutdownGracePeriod)
        return configuration
    }
}
