import Foundation
import JSONCodec

/// Encodes one log line as compact JSON bytes by hand: it runs on every log
/// call (twice per request on a busy receiver), and a fixed field order keeps
/// lines easy to read and to grep. Metadata keys are sorted.
enum LogLineEncoder {
    static func encode(time: Date, level: LogLevel, message: String, service: String, metadata: [String: String]) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(160 + message.utf8.count + metadata.count * 48)
        line.append(contentsOf: #"{"time":""#.utf8)
        appendTimestamp(time, to: &line)
        line.append(contentsOf: #"","level":""#.utf8)
        line.append(contentsOf: level.rawValue.utf8)
        line.append(contentsOf: #"","message":"#.utf8)
        JSONText.appendQuoted(message, to: &line)
        line.append(contentsOf: #","service":"#.utf8)
        JSONText.appendQuoted(service, to: &line)
        if let requestID = metadata[Logger.requestIDKey] {
            line.append(contentsOf: #","request_id":"#.utf8)
            JSONText.appendQuoted(requestID, to: &line)
        }
        let keys = metadata.keys.filter { $0 != Logger.requestIDKey }.sorted()
        if !keys.isEmpty {
            line.append(contentsOf: #","metadata":{"#.utf8)
            for (index, key) in keys.enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                JSONText.appendQuoted(key, to: &line)
                line.append(UInt8(ascii: ":"))
                JSONText.appendQuoted(metadata[key]!, to: &line)
            }
            line.append(UInt8(ascii: "}"))
        }
        line.append(UInt8(ascii: "}"))
        return line
    }

    /// RFC 3339 UTC with milliseconds (`2026-12-01T11:50:14.368Z`), digits
    /// written straight into `out`; `gmtime_r` because a shared formatter is
    /// not thread-safe on Linux.
    static func appendTimestamp(_ date: Date, to out: inout [UInt8]) {
        let since1970 = date.timeIntervalSince1970
        var seconds = time_t(since1970.rounded(.down))
        let millis = Int32(min(999, max(0, (since1970 - Double(seconds)) * 1000)))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) {
            var divisor: Int32 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = max(0, value)
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4); out.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2); out.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2); out.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2); out.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2); out.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2); out.append(UInt8(ascii: "."))
        digits(millis, 3); out.append(UInt8(ascii: "Z"))
    }
}
