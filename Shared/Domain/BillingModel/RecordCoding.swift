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
