import Foundation

/// The one JSON configuration for topic records, so every producer writes the
/// same bytes for the same value and every consumer reads them.
/// Dates inside records are written by the types themselves as ``Timestamp``
/// strings; the encoder sorts keys so records are stable and diffable.
public enum RecordCoding {
    /// Encodes a record to JSON bytes.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }

    /// Decodes a record from JSON bytes.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}

/// A record that writes and reads its own bytes instead of going through
/// `Codable` (the webhook envelope, on both hot paths): one coding, both ways.
public protocol TopicRecord {
    /// The record's bytes, as ``RecordCoding`` would write them (sorted keys).
    func encodedRecord() -> [UInt8]
    /// Reads what ``encodedRecord()`` wrote, in any key order.
    static func decodeRecord(_ bytes: [UInt8]) throws -> Self
}

extension RecordCoding {
    /// A hand-coded record's bytes.
    public static func encode<T: TopicRecord>(_ value: T) -> [UInt8] {
        value.encodedRecord()
    }

    /// Reads a hand-coded record.
    public static func decode<T: TopicRecord>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try T.decodeRecord(bytes)
    }
}
