import JSONCodec

/// Lemon Squeezy's error bodies.
struct LemonSqueezyErrorFormat: ProviderErrorFormat {
    /// Where a checkout's refused discount code is pointed at.
    static let discountCodePointer = "/checkout_data/discount_code"

    /// Lemon Squeezy: a JSON:API `errors` array (`detail`, `title`, `source.pointer`);
    /// tolerates the `{error}` / `{message}` shapes the official SDK also reads.
    /// An error that points at `checkout_data.discount_code` is the code's
    /// refusal (unknown, expired, not for this variant): ``ProviderError/Kind/offerRefused``.
    func detail(_ body: JSONValue?) -> ProviderErrorDetail {
        if let first = body?["errors"]?.array?.first {
            let message = first["detail"]?.string ?? first["title"]?.string
            let pointer = first["source", "pointer"]?.string
            return ProviderErrorDetail(
                message: message, code: pointer ?? first["code"]?.string,
                kind: pointer?.hasSuffix(Self.discountCodePointer) == true ? .offerRefused : nil)
        }
        if let error = body?["error"] {
            return ProviderErrorDetail(message: error.string ?? error["message"]?.string)
        }
        return ProviderErrorDetail(message: body?["message"]?.string)
    }
}
