/// How a ``DeadLetterRecord`` travels on `storefront.deadletter.v1`.
///
/// The record's value is the source record's value, byte for byte, and the
/// rest of the letter (source topic, partition, offset, key, reason, consumer,
/// time) is a JSON header, ``metadataHeader``. Base64 in a JSON value would
/// make a letter a third larger than its source, so a source record near the
/// broker's message limit could never be dead-lettered and its batch would
/// be retried for ever. Letters written before this form (the whole letter as
/// JSON in the value, no header) are still read.
extension DeadLetterRecord {
    /// The header that holds the letter without its source value.
    public static let metadataHeader = "storefront-dead-letter"

    /// The header's bytes: the letter's JSON with an empty `sourceValue`.
    public func wireMetadata() throws -> [UInt8] {
        var metadata = self
        metadata.sourceValue = RawBytes([])
        return try RecordCoding.encode(metadata)
    }

    /// The letter from a record of the dead-letter topic: `metadata` is the
    /// ``metadataHeader`` header's value when the record has one. Nil when
    /// the record is not a letter.
    public static func fromWire(metadata: [UInt8]?, value: [UInt8]?) -> DeadLetterRecord? {
        guard let metadata else {
            return value.flatMap { try? RecordCoding.decode(DeadLetterRecord.self, from: $0) }
        }
        guard var letter = try? RecordCoding.decode(DeadLetterRecord.self, from: metadata) else { return nil }
        letter.sourceValue = RawBytes(value ?? [])
        return letter
    }
}
