/// Collects routes and middleware, then freezes them into a ``RouterResponder``.
///
/// ```swift
/// let router = Router()
/// router.add(middleware: AuthMiddleware())
/// router.get("/health") { _, _ in ["ok": true] }
/// let api = router.group("/api")
/// api.get("/products/{id}") { request, context in
///     try await catalog.product(id: context.parameters.require("id", as: Int.self))
/// }
/// let server = HTTPServer(responder: router.buildResponder(), configuration: .init(), logger: logger)
/// ```
/// Build the router on one task, then hand the responder to the server.
public final class Router: RouteRegistrar {
    var root = RouteNode()
    var middlewares: [any RouterMiddleware] = []

    public init() {}

    /// Adds middleware that runs for every request, including unmatched ones (404/405),
    /// outside any group middleware. Order of calls is order of execution.
    public func add(middleware: any RouterMiddleware) {
        middlewares.append(middleware)
    }

    @discardableResult
    public func on(_ path: String, method: HTTPMethod, use handler: @escaping RouteHandler) -> Router {
        register(path, method: method, middlewares: [], handler: handler)
        return self
    }

    @discardableResult
    public func immediate(_ method: HTTPMethod, _ path: String, _ handler: @escaping ImmediateRouteHandler) -> Router {
        register(path, method: method, middlewares: [], handler: { request, context in try handler(request, context) }, immediate: handler)
        return self
    }

    @discardableResult
    public func deferred(_ method: HTTPMethod, _ path: String, _ handler: @escaping DeferredRouteHandler) -> Router {
        register(path, method: method, middlewares: [], handler: awaitingCompletion(handler), deferred: handler)
        return self
    }

    /// A group whose routes share the path `prefix` and the group's middleware.
    public func group(_ prefix: String) -> RouterGroup {
        RouterGroup(router: self, prefix: prefix, middlewares: [])
    }

    func register(
        _ path: String, method: HTTPMethod, middlewares: [any RouterMiddleware], handler: @escaping RouteHandler,
        immediate: ImmediateRouteHandler? = nil, deferred: DeferredRouteHandler? = nil
    ) {
        let template = joinPath("", path)
        let segments = RouteNode.parse(template: template)
        let names = segments.compactMap { segment -> String? in
            switch segment {
            case .parameter(let name): name
            case .catchAll: RouteNode.catchAllParameter
            case .literal: nil
            }
        }
        let endpoint = Endpoint(
            method: method, template: template, parameterNames: names,
            handler: MiddlewareChain.compose(middlewares, around: handler),
            immediate: middlewares.isEmpty ? immediate : nil, deferred: middlewares.isEmpty ? deferred : nil)
        root.insert(segments[...], endpoint: endpoint)
    }

    /// Freezes the routes registered so far, composing the router middleware around each.
    public func buildResponder() -> RouterResponder {
        RouterResponder(root: root, middlewares: middlewares)
    }
}

/// Routes sharing a path prefix and middleware (`router.group("/api")`).
///
/// Middleware added to a group applies to routes registered on it afterwards.
public struct RouterGroup: RouteRegistrar {
    let router: Router
    let prefix: String
    let middlewares: [any RouterMiddleware]

    /// A copy of this group whose later routes also run `middleware`.
    public func add(middleware: any RouterMiddleware) -> RouterGroup {
        RouterGroup(router: router, prefix: prefix, middlewares: middlewares + [middleware])
    }

    /// A nested group (`router.group("/api").group("/v1")`).
    public func group(_ prefix: String) -> RouterGroup {
        RouterGroup(router: router, prefix: joinPath(self.prefix, prefix), middlewares: middlewares)
    }

    @discardableResult
    public func on(_ path: String, method: HTTPMethod, use handler: @escaping RouteHandler) -> RouterGroup {
        router.register(joinPath(prefix, path), method: method, middlewares: middlewares, handler: handler)
        return self
    }

    @discardableResult
    public func immediate(_ method: HTTPMethod, _ path: String, _ handler: @escaping ImmediateRouteHandler) -> RouterGroup {
        router.register(
            joinPath(prefix, path), method: method, middlewares: middlewares,
            handler: { request, context in try handler(request, context) }, immediate: handler)
        return self
    }

    @discardableResult
    public func deferred(_ method: HTTPMethod, _ path: String, _ handler: @escaping DeferredRouteHandler) -> RouterGroup {
        router.register(
            joinPath(prefix, path), method: method, middlewares: middlewares,
            handler: awaitingCompletion(handler), deferred: handler)
        return self
    }
}
