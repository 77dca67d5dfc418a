import JSONCodec

extension JSONValue {
    /// A webhook body read with the platform's JSON reader, its failure told
    /// in the webhook's terms (the receiver answers them as a bad delivery).
    static func webhookBody(_ bytes: [UInt8]) throws(WebhookPayloadError) -> JSONValue {
        do {
            return try JSONValue.parse(bytes)
        } catch {
            switch error {
            case .tooLarge(let count): throw .tooLarge(bytes: count)
            case .malformed(let detail): throw .malformedJSON(detail)
            }
        }
    }
}
