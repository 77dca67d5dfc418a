import Foundation
import Synchronization

/// Where encoded log lines go. Tests install a capturing sink; services use stderr.
public protocol LogSink: Sendable {
    /// Writes one already-encoded line: UTF-8 JSON, without the trailing newline.
    func write(line: [UInt8])
}

/// Writes each line and its newline to standard error with a single
/// `writev(2)`, so lines from concurrent tasks never interleave and the line
/// is not copied to append the newline.
public struct StandardErrorLogSink: LogSink {
    public init() {}

    public func write(line: [UInt8]) {
        var newline = UInt8(ascii: "\n")
        line.withUnsafeBytes { text in
            withUnsafeMutablePointer(to: &newline) { newline in
                var parts = [
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: text.baseAddress), iov_len: text.count),
                    iovec(iov_base: UnsafeMutableRawPointer(newline), iov_len: 1),
                ]
                var remaining = text.count + 1
                while remaining > 0 {
                    let written = parts.withUnsafeMutableBufferPointer { writev(2, $0.baseAddress, Int32($0.count)) }
                    if written <= 0 { return }
                    remaining -= written
                    guard remaining > 0 else { return }
                    // A short write (rare on a pipe): send what is left.
                    Self.advance(&parts, by: written)
                }
            }
        }
    }

    private static func advance(_ parts: inout [iovec], by count: Int) {
        var count = count
        while count > 0, let first = parts.first {
            if count >= first.iov_len {
                count -= first.iov_len
                parts.removeFirst()
            } else {
                parts[0] = iovec(iov_base: first.iov_base.map { $0 + count }, iov_len: first.iov_len - count)
                count = 0
            }
        }
    }
}

/// Keeps every line in memory; for tests that assert on logging.
public final class CapturingLogSink: LogSink {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func write(line: [UInt8]) {
        let text = String(decoding: line, as: UTF8.self)
        storage.withLock { $0.append(text) }
    }

    /// Every line written so far.
    public var lines: [String] { storage.withLock { $0 } }
}
