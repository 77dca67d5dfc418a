/// Finds byte ranges inside a JSON document without re-encoding anything, so
/// a list item can be passed on exactly as the provider wrote it.
///
/// Only structure is scanned (strings with their escapes, nesting); the
/// document must already be known to be valid JSON (it was parsed first).
package enum JSONSlices {
    /// The elements of the array under the top-level key `key`, each as the
    /// bytes between (and excluding) the surrounding commas and whitespace.
    /// Nil when the top level is not an object or `key` does not hold an array.
    package static func arrayElements(ofTopLevelKey key: String, in bytes: [UInt8]) -> [[UInt8]]? {
        var index = 0
        skipWhitespace(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        let wanted = Array(key.utf8)
        while true {
            skipWhitespace(bytes, &index)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "}") { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "\"") else { return nil }
            let keyStart = index + 1
            guard skipString(bytes, &index) else { return nil }
            let name = Array(bytes[keyStart..<(index - 1)])
            skipWhitespace(bytes, &index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace(bytes, &index)
            if name == wanted {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
                return elements(bytes, from: index)
            }
            guard skipValue(bytes, &index) else { return nil }
        }
    }

    /// The elements of the array that starts at `start` (its `[`).
    private static func elements(_ bytes: [UInt8], from start: Int) -> [[UInt8]]? {
        var index = start + 1
        var result: [[UInt8]] = []
        while true {
            skipWhitespace(bytes, &index)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "]") { return result }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            let elementStart = index
            guard skipValue(bytes, &index) else { return nil }
            result.append(Array(bytes[elementStart..<index]))
        }
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// From an opening quote to just past the closing one.
    private static func skipString(_ bytes: [UInt8], _ index: inout Int) -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): index += 1; return true
            default: index += 1
            }
        }
        return false
    }

    /// Past one value: a string, an object or array (balanced), or a literal/number.
    private static func skipValue(_ bytes: [UInt8], _ index: inout Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return skipString(bytes, &index)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard skipString(bytes, &index) else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { index += 1; return true }
                default:
                    break
                }
                index += 1
            }
            return false
        default:
            while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                index += 1
            }
            return true
        }
    }
}
