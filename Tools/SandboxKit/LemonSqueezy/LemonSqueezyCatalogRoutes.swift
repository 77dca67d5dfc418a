/// `GET /v1/products`, `/v1/products/{id}`, `/v1/variants`, `/v1/variants/{id}`.
extension LemonSqueezyAPI {
    func listProducts(_ request: SandboxRequest) -> SandboxResponse {
        var products = resources.catalog.products.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        if let store = request.queryValue("filter[store_id]") {
            products = products.filter { _ in String(resources.catalog.store.id) == store }
        }
        let window = window(request, total: products.count)
        let page = window.slice(products)
        let withVariants = includes(request).contains("variants")
        let included =
            withVariants
            ? page.flatMap { p in p.variants.sorted { $0.sort < $1.sort }.map { resources.variant($0, productID: p.id) } } : nil
        return ok(
            listDocument(
                request, path: "/products", sort: "name", items: page.map { resources.product($0, linkVariants: withVariants) }, included: included,
                window: window))
    }

    func getProduct(_ idText: String, _ request: SandboxRequest) throws(SandboxError) -> SandboxResponse {
        guard let product = resources.catalog.product(id: try intID(idText, "product")) else { throw .notFound("No product \(idText).") }
        let withVariants = includes(request).contains("variants")
        let included = withVariants ? product.variants.sorted { $0.sort < $1.sort }.map { resources.variant($0, productID: product.id) } : nil
        return ok(resources.document(resources.product(product, linkVariants: withVariants), selfPath: "/products/\(product.id)", included: included))
    }

    func listVariants(_ request: SandboxRequest) -> SandboxResponse {
        var variants = resources.catalog.products.flatMap { p in p.variants.map { (p.id, $0) } }
            .sorted { ($0.1.sort, $0.1.id) < ($1.1.sort, $1.1.id) }
        if let product = request.queryValue("filter[product_id]") { variants = variants.filter { String($0.0) == product } }
        if let status = request.queryValue("filter[status]") { variants = variants.filter { $0.1.status == status } }
        let window = window(request, total: variants.count)
        return ok(
            listDocument(
                request, path: "/variants", sort: "sort", items: window.slice(variants).map { resources.variant($0.1, productID: $0.0) },
                window: window))
    }

    func getVariant(_ idText: String) throws(SandboxError) -> SandboxResponse {
        guard let (product, variant) = resources.catalog.variant(id: try intID(idText, "variant")) else { throw .notFound("No variant \(idText).") }
        return ok(resources.document(resources.variant(variant, productID: product.id), selfPath: "/variants/\(variant.id)"))
    }
}
