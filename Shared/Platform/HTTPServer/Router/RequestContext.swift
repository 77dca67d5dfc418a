import Telemetry

/// What the router knows about a request besides the request itself.
public struct RequestContext: Sendable {
    /// Values of the matched template's `{name}` segments.
    public var parameters: RouteParameters
    /// The matched route template (`/api/products/{id}`), or a fixed label for unmatched requests.
    public var route: String
    /// The request's logger: every line it writes carries the request id.
    public var logger: Logger
    public var requestID: String

    public init(parameters: RouteParameters = RouteParameters(), route: String, logger: Logger, requestID: String) {
        self.parameters = parameters
        self.route = route
        self.logger = logger
        self.requestID = requestID
    }
}
