import BillingModel
import HTTPServer

/// `GET /api/app-config`: what an app needs to know before it shows a
/// purchase button, today the link-out policy per App Store storefront
/// (docs/app-store.md). Public (an app asks before anyone signs in) and
/// the same for every caller, so it is cached and revalidated by `ETag`.
struct AppConfigRoute: Sendable {
    let policy: LinkOutPolicySource

    /// Apps revalidate at most this often; a changed file reaches them within it.
    static let cacheControl = "public, max-age=300"

    func mount(on registrar: some RouteRegistrar) {
        registrar.get("/api/app-config") { request, _ in
            let answer = policy.answer
            var headers: HTTPHeaders = ["ETag": answer.etag, "Cache-Control": Self.cacheControl]
            let conditions = request.headers.values(for: "If-None-Match")
            if !conditions.isEmpty, EntityTag.ifNoneMatch(conditions, matches: answer.etag) {
                return HTTPResponse(status: 304, headers: headers)
            }
            headers.add(name: "Content-Type", value: "application/json")
            return HTTPResponse(status: .ok, headers: headers, body: answer.body)
        }
    }
}

/// The body of `GET /api/app-config`.
struct AppConfigResponse: Encodable {
    var success = true
    var linkOut: LinkOutPolicy

    init(policy: LinkOutPolicy) { linkOut = policy }

    enum CodingKeys: String, CodingKey {
        case success, linkOut = "link_out"
    }
}
