/// One path segment level of the routing tree: literal children, at most one
/// `{parameter}` child, at most one `**` child (the rest of the path, for
/// mounting a whole sub-application), and the endpoints for the path ending here.
struct RouteNode: Sendable {
    var literals: [String: RouteNode] = [:]
    var parameter: [RouteNode] = [] // zero or one element; an array keeps the struct finite
    var catchAll: [RouteNode] = [] // likewise; matches zero or more remaining segments
    var endpoints: [HTTPMethod: Endpoint] = [:]

    /// A template segment: a literal or a named parameter.
    enum Segment: Equatable {
        case literal(String)
        case parameter(String)
        /// `**`, the last segment of a template: the rest of the path, captured as parameter `**`.
        case catchAll
    }

    /// Name under which a `**` route's remaining path (segments joined by `/`) is captured.
    static let catchAllParameter = "**"

    /// Splits `/api/products/{id}` into segments; empty segments are ignored.
    static func parse(template: String) -> [Segment] {
        template.split(separator: "/").map { part in
            if part == "**" { return .catchAll }
            if part.first == "{" && part.last == "}" && part.count > 2 {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
    }

    mutating func insert(_ segments: ArraySlice<Segment>, endpoint: Endpoint) {
        guard let first = segments.first else {
            precondition(endpoints[endpoint.method] == nil, "route \(endpoint.method) \(endpoint.template) registered twice")
            endpoints[endpoint.method] = endpoint
            return
        }
        switch first {
        case .literal(let text):
            literals[text, default: RouteNode()].insert(segments.dropFirst(), endpoint: endpoint)
        case .parameter:
            if parameter.isEmpty { parameter.append(RouteNode()) }
            parameter[0].insert(segments.dropFirst(), endpoint: endpoint)
        case .catchAll:
            precondition(segments.count == 1, "** must be the last segment of \(endpoint.template)")
            if catchAll.isEmpty { catchAll.append(RouteNode()) }
            catchAll[0].insert(segments.dropFirst(), endpoint: endpoint)
        }
    }

    /// The node for `segments` (literal matches win over parameters), collecting parameter values.
    func match(_ segments: ArraySlice<String>, values: inout [String]) -> RouteNode? {
        if let first = segments.first {
            let rest = segments.dropFirst()
            if let child = literals[first], let found = child.match(rest, values: &values) { return found }
            if let child = parameter.first {
                values.append(first)
                if let found = child.match(rest, values: &values) { return found }
                values.removeLast()
            }
        } else if !endpoints.isEmpty {
            return self
        }
        if let child = catchAll.first, !child.endpoints.isEmpty {
            values.append(segments.joined(separator: "/"))
            return child
        }
        return nil
    }
}

/// A registered route with its middleware already composed around the handler.
final class Endpoint: Sendable {
    let method: HTTPMethod
    let template: String
    let parameterNames: [String]
    let handler: RouteHandler
    /// Set for an immediate route with no middleware around it: the server
    /// runs it on its own thread (``ImmediateRouteHandler``); `handler` is
    /// the same handler as an async one, for everything else.
    let immediate: ImmediateRouteHandler?
    /// Set for a deferred route with no middleware around it: the server
    /// starts it on its own thread (``DeferredRouteHandler``); `handler`
    /// awaits its completion, for everything else.
    let deferred: DeferredRouteHandler?

    init(
        method: HTTPMethod, template: String, parameterNames: [String], handler: @escaping RouteHandler,
        immediate: ImmediateRouteHandler? = nil, deferred: DeferredRouteHandler? = nil
    ) {
        self.method = method
        self.template = template
        self.parameterNames = parameterNames
        self.handler = handler
        self.immediate = immediate
        self.deferred = deferred
    }
}
