import Foundation
import Synchronization

/// Where encoded log lines go. Tests install a capturing sink; services use stderr.
public protocol LogSink: Sendable {
    /// Writes one already-encoded line (without the trailing newline).
    func write(line: String)
}

/// Writes each line to standard error with a single `write(2)`, so lines from
/// concurrent tasks never interleave.
public struct StandardErrorLogSink: LogSink {
    public init() {}

    public func write(line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// Keeps every line in memory; for tests that assert on logging.
public final class CapturingLogSink: LogSink {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func write(line: String) { storage.withLock { $0.append(line) } }

    /// Every line written so far.
    public var lines: [String] { storage.withLock { $0 } }
}
