import Foundation

/// One answer of `GET /api/entitlements/stream`:
/// `{"success":true,"events":[…],"cursor":"…"|null,"reset":false}`.
///
/// The events are the server's change records (id, type, user, before and
/// after); the client only needs to know that something changed, and reads
/// the entitlements again, so it keeps their types for its log and nothing else.
struct LiveChangesAnswer: Sendable, Equatable {
    /// The `type` of each event (`entitlement.granted`, …), oldest first.
    var eventTypes: [String]
    /// What to send as `after` next; nil to wait for the next change from now.
    var cursor: String?
    /// The server no longer holds the cursor: what changed meanwhile is unknown.
    var reset: Bool

    /// Whether the entitlements must be read again.
    var reportsChange: Bool { !eventTypes.isEmpty || reset }

    /// - Throws: ``StorefrontError/invalidResponse(message:)`` when the body is not that shape.
    init(data: Data) throws(StorefrontError) {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let events = object["events"] as? [Any] else {
            throw .invalidResponse(message: "The entitlement stream's answer is not readable")
        }
        eventTypes = events.map { (($0 as? [String: Any])?["type"] as? String) ?? "unknown" }
        cursor = object["cursor"] as? String
        reset = object["reset"] as? Bool ?? false
    }

    /// The path of the next poll: after `cursor`, asking the server to wait
    /// at most `wait` (whole seconds, 1 to 25), so the answer comes before
    /// the request's own timeout.
    static func path(after cursor: String?, wait: Duration) -> String {
        let seconds = max(1, min(25, Int(wait.components.seconds)))
        var items = [URLQueryItem(name: "wait", value: String(seconds))]
        if let cursor { items.append(URLQueryItem(name: "after", value: cursor)) }
        var components = URLComponents()
        components.queryItems = items
        // URLComponents leaves `+` alone, which servers read as a space.
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        return "api/entitlements/stream?" + query
    }
}
