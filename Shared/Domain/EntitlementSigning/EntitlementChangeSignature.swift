import Kafka

/// Where an entitlement change's signature travels and what it covers: the
/// header ``headerName`` holds a `CryptoPrimitives.RecordSignature`
/// (`<kid>.<base64url R || S>`) over the record's topic, key and value, in
/// that order. The value is what consumers act on; the topic and key are in
/// it so a signed record cannot be replayed onto another topic or under
/// another user's key. An absent key or value is signed as empty.
public enum EntitlementChangeSignature {
    /// The header name.
    public static let headerName = "storefront-sig"

    /// The signed fields of a record with this topic, key and value.
    static func fields(topic: String, key: [UInt8]?, value: [UInt8]?) -> [[UInt8]] {
        [Array(topic.utf8), key ?? [], value ?? []]
    }
}
