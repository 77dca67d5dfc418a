/// Why a byte buffer is not a JSON document the reader accepts.
public enum JSONReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The buffer is larger than ``JSONValue/maximumBodySize``.
    case tooLarge(bytes: Int)
    /// The bytes are not JSON, or nest too deep; the detail names the byte offset.
    case malformed(String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes): "JSON document too large (\(bytes) bytes)"
        case .malformed(let detail): "not valid JSON: \(detail)"
        }
    }
}
