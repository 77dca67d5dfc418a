/// Something routes can be added to: the ``Router`` itself or a ``RouterGroup``.
public protocol RouteRegistrar {
    /// Registers `handler` for `method` at `path` (a template such as `/products/{id}`).
    @discardableResult
    func on(_ path: String, method: HTTPMethod, use handler: @escaping RouteHandler) -> Self
    /// Registers an immediate `handler` (``ImmediateRouteHandler``) for `method` at `path`.
    @discardableResult
    func immediate(_ method: HTTPMethod, _ path: String, _ handler: @escaping ImmediateRouteHandler) -> Self
    /// Registers a deferred `handler` (``DeferredRouteHandler``) for `method` at `path`.
    @discardableResult
    func deferred(_ method: HTTPMethod, _ path: String, _ handler: @escaping DeferredRouteHandler) -> Self
}

extension RouteRegistrar {
    /// Registers a handler whose result is encoded as JSON with status 200.
    @discardableResult
    public func on<Output: Encodable & Sendable>(
        _ path: String, method: HTTPMethod,
        use handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> Output
    ) -> Self {
        on(path, method: method) { request, context in
            try HTTPResponse.json(try await handler(request, context))
        }
    }

    @discardableResult
    public func get(_ path: String, use handler: @escaping RouteHandler) -> Self { on(path, method: .get, use: handler) }
    @discardableResult
    public func post(_ path: String, use handler: @escaping RouteHandler) -> Self { on(path, method: .post, use: handler) }
    @discardableResult
    public func put(_ path: String, use handler: @escaping RouteHandler) -> Self { on(path, method: .put, use: handler) }
    @discardableResult
    public func patch(_ path: String, use handler: @escaping RouteHandler) -> Self { on(path, method: .patch, use: handler) }
    @discardableResult
    public func delete(_ path: String, use handler: @escaping RouteHandler) -> Self { on(path, method: .delete, use: handler) }

    @discardableResult
    public func get<Output: Encodable & Sendable>(
        _ path: String, use handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> Output
    ) -> Self {
        on(path, method: .get, use: handler)
    }
    @discardableResult
    public func post<Output: Encodable & Sendable>(
        _ path: String, use handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> Output
    ) -> Self {
        on(path, method: .post, use: handler)
    }
    @discardableResult
    public func put<Output: Encodable & Sendable>(
        _ path: String, use handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> Output
    ) -> Self {
        on(path, method: .put, use: handler)
    }
    @discardableResult
    public func patch<Output: Encodable & Sendable>(
        _ path: String, use handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> Output
    ) -> Self {
        on(path, method: .patch, use: handler)
    }
    @discardableResult
    public func delete<Output: Encodable & Sendable>(
        _ path: String, use handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> Output
    ) -> Self {
        on(path, method: .delete, use: handler)
    }
}

/// Joins two path pieces with exactly one `/` between them.
func joinPath(_ prefix: String, _ path: String) -> String {
    let left = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
    let right = path.hasPrefix("/") ? path : "/" + path
    let joined = left + (right == "/" && !left.isEmpty ? "" : right)
    return joined.isEmpty ? "/" : joined
}
