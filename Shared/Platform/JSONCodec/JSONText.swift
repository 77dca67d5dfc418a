/// JSON string literals written byte by byte, the way Foundation's
/// `JSONEncoder` writes them with `.withoutEscapingSlashes` (so hand-written
/// records are byte-identical to ``RecordCoding``'s). The one JSON string
/// writer of the code base: records, log lines and error bodies use it.
public enum JSONText {
    /// Appends `text` as a quoted JSON string: `"` and `\` escaped, control
    /// characters as `\b \f \n \r \t` or `\u00XX`, everything else as UTF-8.
    ///
    /// Runs that need no escape (nearly all of any text) are copied in one
    /// `append(contentsOf:)`: this runs for every field of every log line.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(byte, to: &out)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { digits in
                out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
            }
        }
    }
}
