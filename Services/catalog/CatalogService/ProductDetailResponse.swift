import BillingModel

/// `GET /api/products/{id}` response: `{"success":true,"product":{…}}`, the
/// product in the same shape as one entry of the list.
public struct ProductDetailResponse: Codable, Sendable, Hashable {
    public var success: Bool
    public var product: ProductResource

    public init(product: ProductResource) {
        success = true
        self.product = product
    }
}
