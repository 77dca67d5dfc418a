import Foundation

/// Encodes one log line as compact JSON by hand: it runs on every log call,
/// and a fixed field order keeps lines easy to read and to grep.
enum LogLineEncoder {
    static func encode(time: Date, level: LogLevel, message: String, service: String, metadata: [String: String]) -> String {
        var line = "{\"time\":"
        JSONString.appendQuoted(timestamp(time), to: &line)
        line += ",\"level\":\"\(level.rawValue)\",\"message\":"
        JSONString.appendQuoted(message, to: &line)
        line += ",\"service\":"
        JSONString.appendQuoted(service, to: &line)
        var rest = metadata
        if let requestID = rest.removeValue(forKey: Logger.requestIDKey) {
            line += ",\"request_id\":"
            JSONString.appendQuoted(requestID, to: &line)
        }
        if !rest.isEmpty {
            line += ",\"metadata\":{"
            for (index, key) in rest.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                JSONString.appendQuoted(key, to: &line)
                line += ":"
                JSONString.appendQuoted(rest[key]!, to: &line)
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
}
