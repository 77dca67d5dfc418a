/// Code that runs around handlers: authentication, allow-lists, extra headers.
///
/// Call `next` to continue the chain (possibly with a changed request or
/// context), or return a response of your own to stop it. Errors thrown by
/// `next` pass through, so a middleware can observe or translate them.
public protocol RouterMiddleware: Sendable {
    func handle(
        _ request: HTTPRequest, context: RequestContext,
        next: (HTTPRequest, RequestContext) async throws -> HTTPResponse
    ) async throws -> HTTPResponse
}

/// The shape every route handler is reduced to.
public typealias RouteHandler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

enum MiddlewareChain {
    /// Wraps `handler` so that `middlewares[0]` runs first and the handler last.
    static func compose(_ middlewares: [any RouterMiddleware], around handler: @escaping RouteHandler) -> RouteHandler {
        var chain = handler
        for middleware in middlewares.reversed() {
            let next = chain
            chain = { request, context in
                try await middleware.handle(request, context: context, next: next)
            }
        }
        return chain
    }
}
