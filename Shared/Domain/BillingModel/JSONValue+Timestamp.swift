import Foundation
import JSONCodec

extension JSONValue {
    /// An ISO-8601 timestamp string parsed with ``Timestamp``. It lives beside
    /// `Timestamp` rather than in the JSON reader so the platform's reader
    /// knows nothing of the domain's timestamp rules.
    public var date: Date? {
        if case .string(let text) = self { return Timestamp.parse(text) }
        return nil
    }
}
