/// Writes a JSON string literal by hand: for the few places that render fixed,
/// tiny JSON on a hot or error path (log lines, the API's error body) where a
/// JSONEncoder would cost more than the output.
public enum JSONString {
    /// Appends `text` to `line` as a quoted, escaped JSON string.
    public static func appendQuoted(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
