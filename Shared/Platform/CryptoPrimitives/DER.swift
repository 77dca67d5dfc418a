/// The few ASN.1 DER shapes the JOSE keys and signatures need: SEQUENCE,
/// INTEGER (non-negative), BIT STRING, NULL and OBJECT IDENTIFIER, written
/// and read strictly (definite, minimal lengths; minimal integers), so one
/// value has exactly one encoding.
enum DER {
    static let sequenceTag: UInt8 = 0x30
    static let integerTag: UInt8 = 0x02
    static let bitStringTag: UInt8 = 0x03
    static let nullTag: UInt8 = 0x05
    static let objectIdentifierTag: UInt8 = 0x06

    // MARK: - Writing

    /// A length in short form (< 128) or long form (`0x8n` and n big-endian bytes).
    static func length(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "DER length must not be negative")
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// One tag-length-value element.
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    /// A SEQUENCE of already encoded elements.
    static func sequence(_ elements: [UInt8]...) -> [UInt8] {
        element(sequenceTag, elements.flatMap { $0 })
    }

    /// A non-negative INTEGER from its big-endian magnitude: leading zero
    /// bytes dropped (one kept for zero), and a zero byte put in front when
    /// the first byte has its top bit set (which would read as negative).
    static func unsignedInteger(_ magnitude: some Collection<UInt8>) -> [UInt8] {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.isEmpty { content = [0] }
        if content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return element(integerTag, content)
    }

    /// A BIT STRING holding whole bytes (no unused bits).
    static func bitString(_ bytes: [UInt8]) -> [UInt8] {
        element(bitStringTag, [0] + bytes)
    }

    // MARK: - Reading

    /// Reads elements one after another out of `bytes`, refusing anything
    /// that is not strict DER or runs past the end.
    struct Reader {
        let bytes: [UInt8]
        private(set) var index: Int

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            self.index = 0
        }

        /// Whether every byte has been read.
        var isAtEnd: Bool { index == bytes.count }

        /// The content of the next element if it has `tag`; nil otherwise.
        mutating func read(_ tag: UInt8) -> [UInt8]? {
            guard index < bytes.count, bytes[index] == tag, index + 1 < bytes.count else { return nil }
            var position = index + 1
            let first = bytes[position]
            position += 1
            let count: Int
            if first < 0x80 {
                count = Int(first)
            } else {
                let lengthBytes = Int(first & 0x7F)
                // Long form only where short form cannot say it, with no leading zero,
                // and small enough that the arithmetic below cannot overflow.
                guard lengthBytes >= 1, lengthBytes <= 4, position + lengthBytes <= bytes.count, bytes[position] != 0 else { return nil }
                var value = 0
                for offset in 0..<lengthBytes { value = value << 8 | Int(bytes[position + offset]) }
                guard value >= 0x80 else { return nil }
                count = value
                position += lengthBytes
            }
            guard count <= bytes.count - position else { return nil }
            index = position + count
            return Array(bytes[position..<position + count])
        }

        /// The magnitude of the next INTEGER, big-endian without leading
        /// zeros (empty for zero); nil for a negative or non-minimal one.
        mutating func readUnsignedInteger() -> [UInt8]? {
            guard let content = read(integerTag), let first = content.first else { return nil }
            guard first & 0x80 == 0 else { return nil }
            if first == 0, content.count > 1, content[1] & 0x80 == 0 { return nil }
            return Array(content.drop { $0 == 0 })
        }
    }
}
