import Timing
import ServiceSettings

// The HTTP server's settings, read by every service (HTTPServerConfiguration.fromEnvironment).

extension Setting {
    public static let host = Setting(
        "HOST", default: "0.0.0.0", "address to listen on")
    public static let port = Setting(
        "PORT", default: "the service's own (catalog 8081, checkout 8082, webhook-receiver 8083, projector 8084, reconciler 8085)",
        "port to listen on; 0 picks a free one")
    public static let httpThreads = Setting(
        "HTTP_THREADS", default: "2", "threads serving connections")
    public static let httpMaxConnections = Setting(
        "HTTP_MAX_CONNECTIONS", default: "1024", "most open connections; more are refused")
    public static let httpMaxConnectionsPerIP = Setting(
        "HTTP_MAX_CONNECTIONS_PER_IP", default: "256",
        "most open connections per client address; 0 = no limit (behind the gateway every request comes from its address)")
    public static let httpMaxBodyBytes = Setting(
        "HTTP_MAX_BODY_BYTES", default: "1048576", "largest request body accepted (413 above)")
    public static let httpConnectionTimeout = Setting(
        "HTTP_CONNECTION_TIMEOUT", default: "30", "seconds an idle connection stays open")
    public static let httpHandlerTimeout = Setting(
        "HTTP_HANDLER_TIMEOUT", default: "30s", "longest a request may take before it is answered 503")
    public static let httpShutdownGrace = Setting(
        "HTTP_SHUTDOWN_GRACE", default: "10s", "longest open requests may take to finish after SIGTERM")
}

extension SettingGroup {
    public static let httpServer = SettingGroup(
        "HTTP server",
        [
            .host, .port, .httpThreads, .httpMaxConnections, .httpMaxConnectionsPerIP, .httpMaxBodyBytes, .httpConnectionTimeout, .httpHandlerTimeout,
            .httpShutdownGrace,
        ])
}
