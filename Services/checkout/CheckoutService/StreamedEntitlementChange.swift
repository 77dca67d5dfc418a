import Webhooks
import JSONCodec

/// One record of `storefront.entitlements.v1` as the live stream handles it:
/// the two fields it routes by, and the value's bytes, forwarded to the app
/// unchanged.
///
/// Deliberately not a decoding of the whole event: the projector's outbox
/// owns that model, and the stream must neither reshape the event nor drop
/// one over a field it has no use for.
struct StreamedEntitlementChange: Sendable, Equatable {
    /// The event's stable id (the stream's cursor).
    let id: String
    let appUserID: String
    /// The record value: one JSON object, as published.
    let value: [UInt8]

    /// Reads `id` and `app_user_id` from a record value; nil when the value is
    /// not a JSON object (of at most ``Webhooks/JSONValue/maximumBodySize``) with both
    /// as non-empty strings.
    init?(value: [UInt8]) {
        // Strings only: JSONValue.string would also turn a number into an id.
        guard let object = try? JSONValue.parse(value), case .object = object,
            case .string(let id)? = object["id"], !id.isEmpty,
            case .string(let user)? = object["app_user_id"], !user.isEmpty
        else { return nil }
        self.init(id: id, appUserID: user, value: value)
    }

    init(id: String, appUserID: String, value: [UInt8]) {
        self.id = id
        self.appUserID = appUserID
        self.value = value
    }
}
