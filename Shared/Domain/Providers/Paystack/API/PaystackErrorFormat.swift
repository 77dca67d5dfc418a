import JSONCodec

/// Paystack's error bodies, and its 2xx answers that report a failure.
struct PaystackErrorFormat: ProviderErrorFormat {
    /// Paystack: `{"status": false, "message": …, "code": …, "type": …}`.
    func detail(_ body: JSONValue?) -> ProviderErrorDetail {
        let message = body?["message"]?.string
        let invalidKey = message?.lowercased() == "invalid key"
        return ProviderErrorDetail(message: message, code: body?["code"]?.string, kind: invalidKey ? .unauthorized : nil)
    }

    /// `{"status": false, …}` with a 2xx status.
    func failureInSuccess(_ body: JSONValue) -> ProviderErrorDetail? {
        guard body["status"]?.bool == false else { return nil }
        var found = detail(body)
        if found.message == nil { found.message = "request failed (status false)" }
        return found
    }
}
