/// Why a webhook body could not be normalised. The projector dead-letters
/// records that fail this way (the signature had verified, so the body is
/// kept, never dropped). Messages never include the body itself.
public enum WebhookPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is larger than ``JSONValue/maximumBodySize``.
    case tooLarge(bytes: Int)
    /// The body is not JSON (or nests too deep).
    case malformedJSON(String)
    /// The JSON is valid but not a provider webhook (e.g. top level is not an object).
    case unexpectedShape(String)
    /// A field every delivery must have is missing or has the wrong type.
    case missingField(String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes): "webhook body too large (\(bytes) bytes)"
        case .malformedJSON(let detail): "webhook body is not valid JSON: \(detail)"
        case .unexpectedShape(let detail): "webhook body has an unexpected shape: \(detail)"
        case .missingField(let path): "webhook body lacks required field \(path)"
        }
    }
}
