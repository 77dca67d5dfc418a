import Foundation

/// Encodes one log line as compact JSON by hand: it runs on every log call,
/// and a fixed field order keeps lines easy to read and to grep.
enum LogLineEncoder {
    static func encode(time: Date, level: LogLevel, message: String, service: String, metadata: [String: String]) -> String {
        var line = "{\"time\":"
        appendQuoted(timestamp(time), to: &line)
        line += ",\"level\":\"\(level.rawValue)\",\"message\":"
        appendQuoted(message, to: &line)
        line += ",\"service\":"
        appendQuoted(service, to: &line)
        var rest = metadata
        if let requestID = rest.removeValue(forKey: Logger.requestIDKey) {
            line += ",\"request_id\":"
            appendQuoted(requestID, to: &line)
        }
        if !rest.isEmpty {
            line += ",\"metadata\":{"
            for (index, key) in rest.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                appendQuoted(key, to: &line)
                line += ":"
                appendQuoted(rest[key]!, to: &line)
            }
            line += "}"
        }
        line += "}"
        return line
    }

    /// RFC 3339 UTC with milliseconds, built without a shared formatter (not thread-safe on Linux).
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    static func appendQuoted(_ text: String, to line: inout String) {
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
