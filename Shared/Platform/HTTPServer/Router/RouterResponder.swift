import Telemetry

/// The frozen routing table: finds the endpoint for a request and runs it.
///
/// Tests can call ``respond(to:logger:)`` directly, without a socket.
public struct RouterResponder: Sendable {
    /// Route label for requests that match no template (keeps metric labels bounded).
    public static let unmatchedRoute = "<unmatched>"

    let root: RouteNode
    let middlewares: [any RouterMiddleware]
    let notFound: RouteHandler

    init(root: RouteNode, middlewares: [any RouterMiddleware]) {
        self.middlewares = middlewares
        self.root = Self.wrap(root, in: middlewares)
        notFound = MiddlewareChain.compose(middlewares) { _, _ in throw HTTPError(.notFound, "Not found") }
    }

    private static func wrap(_ node: RouteNode, in middlewares: [any RouterMiddleware]) -> RouteNode {
        guard !middlewares.isEmpty else { return node }
        var copy = node
        // No immediate or deferred path behind middleware: it must run, and it is async.
        copy.endpoints = node.endpoints.mapValues { endpoint in
            Endpoint(
                method: endpoint.method, template: endpoint.template, parameterNames: endpoint.parameterNames,
                handler: MiddlewareChain.compose(middlewares, around: endpoint.handler))
        }
        copy.literals = node.literals.mapValues { wrap($0, in: middlewares) }
        copy.parameter = node.parameter.map { wrap($0, in: middlewares) }
        copy.catchAll = node.catchAll.map { wrap($0, in: middlewares) }
        return copy
    }

    /// What routing decided for one request.
    struct Resolution {
        let route: String
        let parameters: RouteParameters
        let handler: RouteHandler
        /// The endpoint's immediate handler, when it has one (``Endpoint/immediate``).
        var immediate: ImmediateRouteHandler? = nil
        /// The endpoint's deferred handler, when it has one (``Endpoint/deferred``).
        var deferred: DeferredRouteHandler? = nil
    }

    /// Picks the handler for `method` and `path` (404, 405 with `Allow`, or 400 for bad escapes
    /// become handlers that throw, so router middleware still runs around them).
    func resolve(method: HTTPMethod, path: String) -> Resolution {
        var segments: [String] = []
        for raw in path.split(separator: "/") {
            guard let decoded = PercentDecoding.decode(raw, plusAsSpace: false) else {
                return failure(HTTPError(.badRequest, "Malformed request path"))
            }
            segments.append(decoded)
        }
        var values: [String] = []
        guard let node = root.match(segments[...], values: &values) else {
            return Resolution(route: Self.unmatchedRoute, parameters: RouteParameters(), handler: notFound)
        }
        let endpoint = node.endpoints[method] ?? (method == .head ? node.endpoints[.get] : nil)
        guard let endpoint else {
            var allowed = Set(node.endpoints.keys.map(\.rawValue))
            if allowed.contains("GET") { allowed.insert("HEAD") }
            let allow = allowed.sorted().joined(separator: ", ")
            let template = node.endpoints.values.first?.template ?? Self.unmatchedRoute
            return failure(HTTPError(.methodNotAllowed, "Method not allowed", headers: ["Allow": allow]), route: template)
        }
        return Resolution(
            route: endpoint.template, parameters: RouteParameters(names: endpoint.parameterNames, values: values),
            handler: endpoint.handler, immediate: endpoint.immediate, deferred: endpoint.deferred)
    }

    private func failure(_ error: HTTPError, route: String = RouterResponder.unmatchedRoute) -> Resolution {
        Resolution(
            route: route, parameters: RouteParameters(),
            handler: MiddlewareChain.compose(middlewares) { _, _ in throw error })
    }

    /// Runs the request through middleware and handler and turns errors into responses:
    /// ``HTTPError`` renders its message, anything else is logged and becomes a bare 500.
    /// - Returns: the response and the route template used as metric label.
    public func respond(to request: HTTPRequest, logger: Logger) async -> (response: HTTPResponse, route: String) {
        let resolution = resolve(method: request.method, path: request.path)
        let context = RequestContext(
            parameters: resolution.parameters, route: resolution.route,
            logger: logger, requestID: request.requestID)
        var response = await Self.run(resolution.handler, request, context)
        // The server adds them when it queues an answer; here for callers without a socket (tests).
        SecurityHeaders.apply(to: &response, request: request.headers)
        return (response, resolution.route)
    }

    static func run(_ handler: RouteHandler, _ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        do {
            return try await handler(request, context)
        } catch let error as HTTPError {
            return error.response
        } catch is CancellationError {
            return HTTPError(.serviceUnavailable, "Request cancelled").response
        } catch {
            // The details go to the log only; the client learns nothing about internals.
            context.logger.error("handler failed", metadata: ["error": String(describing: error), "http.route": context.route])
            return HTTPError(.internalServerError, "Internal server error").response
        }
    }
}
