import HTTPServer
import BillingModel

/// The app-facing endpoints: `GET /api/products` and `GET /api/products/{id}`,
/// answered from the store's in-memory snapshot (never from a provider).
public enum CatalogRoutes {
    /// `Cache-Control` of product responses: shared caches (the gateway, CDNs)
    /// may keep them a minute; the catalog itself changes at most once per refresh.
    public static let cacheControl = "public, max-age=60"
    /// Header carrying the age of the served data in whole seconds.
    public static let ageHeader = "X-Catalog-Age"

    /// Registers both routes on `registrar`.
    public static func mount(on registrar: some RouteRegistrar, store: CatalogStore) {
        // Both answer from the snapshot in memory: immediate routes, run on the server's thread.
        registrar.immediate(.get, "/api/products") { (request, _) throws(HTTPError) in
            let snapshot = try loadedSnapshot(store)
            return respond(to: request, with: snapshot.list, age: snapshot.age(now: store.now()))
        }
        registrar.immediate(.get, "/api/products/{id}") { (request, context) throws(HTTPError) in
            let snapshot = try loadedSnapshot(store)
            let age = snapshot.age(now: store.now())
            // Bounded lookup: ids longer than any CatalogID cannot match.
            let id = try context.parameters.require("id")
            guard id.utf8.count <= CatalogID.maximumRawLength + 3, let body = snapshot.productsByID[id] else {
                throw HTTPError(.notFound, "Product not found", code: "product_not_found", headers: [ageHeader: String(age)])
            }
            return respond(to: request, with: body, age: age)
        }
    }

    /// The snapshot, or 503 when nothing was ever loaded.
    static func loadedSnapshot(_ store: CatalogStore) throws(HTTPError) -> CatalogSnapshot {
        guard let snapshot = store.snapshot else {
            throw HTTPError(
                .serviceUnavailable, "Catalog not loaded yet", code: "catalog_not_loaded", headers: ["Retry-After": "5", "Cache-Control": "no-store"])
        }
        return snapshot
    }

    /// 200 with the precomputed body, or 304 when `If-None-Match` matches its tag.
    static func respond(to request: HTTPRequest, with body: RenderedBody, age: Int) -> HTTPResponse {
        var headers: HTTPHeaders = [
            "ETag": body.etag,
            "Cache-Control": cacheControl,
            ageHeader: String(age),
        ]
        let conditions = request.headers.values(for: "If-None-Match")
        if !conditions.isEmpty, EntityTag.ifNoneMatch(conditions, matches: body.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.add(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: .ok, headers: headers, body: body.bytes)
    }
}
