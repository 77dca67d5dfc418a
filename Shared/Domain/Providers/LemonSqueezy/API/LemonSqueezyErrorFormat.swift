import JSONCodec

/// Lemon Squeezy's error bodies.
struct LemonSqueezyErrorFormat: ProviderErrorFormat {
    /// Lemon Squeezy: a JSON:API `errors` array (`detail`, `title`, `source.pointer`);
    /// tolerates the `{error}` / `{message}` shapes the official SDK also reads.
    func detail(_ body: JSONValue?) -> ProviderErrorDetail {
        if let first = body?["errors"]?.array?.first {
            let message = first["detail"]?.string ?? first["title"]?.string
            return ProviderErrorDetail(message: message, code: first["source", "pointer"]?.string ?? first["code"]?.string)
        }
        if let error = body?["error"] {
            return ProviderErrorDetail(message: error.string ?? error["message"]?.string)
        }
        return ProviderErrorDetail(message: body?["message"]?.string)
    }
}
