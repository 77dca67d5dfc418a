import HTTPServer
import SandboxKit

/// Translates between the HTTP server's types and the transport-neutral sandbox.
enum SandboxRouting {
    static func mount(_ app: SandboxApp, on router: Router) {
        let forward: RouteHandler = { request, context in
            let path = "/" + (try context.parameters.require("**"))
            let answer = await app.handle(sandboxRequest(request, path: path))
            var headers = HTTPHeaders()
            for (name, value) in answer.headers.fields { headers.add(name: name, value: value) }
            return HTTPResponse(status: HTTPStatus(code: answer.status), headers: headers, body: answer.body)
        }
        for method: HTTPMethod in [.get, .post, .put, .patch, .delete] {
            router.on("/**", method: method, use: forward)
        }
    }

    /// - Parameter path: the percent-decoded path, as routing captured it.
    static func sandboxRequest(_ request: HTTPRequest, path: String) -> SandboxRequest {
        var headers = SandboxHeaders()
        for field in request.headers { headers.add(field.name, field.value) }
        return SandboxRequest(
            method: request.method.rawValue, path: path,
            query: request.query.map { ($0.name, $0.value) }, headers: headers, body: request.body)
    }
}
