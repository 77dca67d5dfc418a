#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import Synchronization

/// Monotonic nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Sleeps until the monotonic clock reads `deadline` (nanoseconds).
func sleepUntil(_ deadline: UInt64) {
    var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
}

/// Where requests go: an IPv4 loopback-style `http://host:port/path` URL.
struct HTTPTarget: Sendable {
    let host: String
    let port: UInt16
    let path: String

    init(url: String) throws {
        guard url.hasPrefix("http://") else { throw Options.Invalid(description: "only http:// URLs: \(url)") }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        guard let colon = authority.lastIndex(of: ":"), let port = UInt16(authority[authority.index(after: colon)...]) else {
            throw Options.Invalid(description: "URL needs an explicit port: \(url)")
        }
        host = String(authority[..<colon])
        self.port = port
    }
}

/// What went wrong with one request (no HTTP status).
enum LoadFailure: Error {
    case connect, write, read, timeout, malformed
}

/// One keep-alive HTTP/1.1 connection with blocking I/O, owned by one thread.
final class BlockingHTTPConnection {
    private let target: HTTPTarget
    private let timeoutSeconds: Int
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    /// Bytes of `buffer` received but not consumed yet: `start..<end`.
    private var start = 0, end = 0

    init(target: HTTPTarget, timeoutSeconds: Int) {
        self.target = target
        self.timeoutSeconds = timeoutSeconds
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        start = 0; end = 0
    }

    private func connect() throws(LoadFailure) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw .connect }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = target.port.bigEndian
        guard inet_pton(AF_INET, target.host == "localhost" ? "127.0.0.1" : target.host, &address.sin_addr) == 1 else {
            Glibc.close(socket)
            throw .connect
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw .connect
        }
        fd = socket
        start = 0; end = 0
    }

    /// Sends `request` (a complete HTTP/1.1 request) and reads the whole response.
    /// Reconnects once when a kept-alive connection turns out closed before any byte came back.
    /// - Returns: the response status.
    func exchange(_ request: [UInt8]) throws(LoadFailure) -> Int {
        var retried = false
        while true {
            let reused = fd >= 0
            if !reused { try connect() }
            do {
                try send(request)
                return try readResponse()
            } catch .read where reused && !retried {
                // The server closed an idle keep-alive connection: one fresh attempt.
                close()
                retried = true
            } catch {
                close()
                throw error
            }
        }
    }

    private func send(_ request: [UInt8]) throws(LoadFailure) {
        var offset = 0
        while offset < request.count {
            let sent = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 { offset += sent; continue }
            if sent < 0, errno == EINTR { continue }
            throw errno == EAGAIN || errno == EWOULDBLOCK ? .timeout : .write
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws(LoadFailure) -> Bool {
        if start > 0, start == end { start = 0; end = 0 }
        if end == buffer.count {
            if start > 0 {
                buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
                end -= start; start = 0
            } else {
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
        }
        while true {
            let received = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress! + end, $0.count - end, 0) }
            if received > 0 { end += received; return true }
            if received == 0 { return false }
            if errno == EINTR { continue }
            throw errno == EAGAIN || errno == EWOULDBLOCK ? .timeout : .read
        }
    }

    /// Index just past `\r\n` of the line starting at `from`, if buffered.
    private func lineEnd(from: Int) -> Int? {
        var index = from
        while index + 1 < end {
            if buffer[index] == 13, buffer[index + 1] == 10 { return index + 2 }
            index += 1
        }
        return nil
    }

    private func readResponse() throws(LoadFailure) -> Int {
        // Status line and headers.
        var headerEnd: Int?
        // Bytes after `start` already searched (relative: `fill` may move the buffered bytes).
        var scanned = 0
        while headerEnd == nil {
            var index = start + max(0, scanned - 3)
            while index + 3 < end {
                if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                    headerEnd = index + 4
                    break
                }
                index += 1
            }
            if headerEnd != nil { break }
            scanned = end - start
            guard try fill() else { throw .read }
        }
        let head = String(decoding: buffer[start..<headerEnd!], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: true)[...]
        guard let statusLine = lines.popFirst() else { throw .malformed }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else { throw .malformed }
        var contentLength: Int?
        var chunked = false
        var closeAfter = parts[0] == "HTTP/1.0"
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "content-length": contentLength = Int(value)
            case "transfer-encoding": chunked = value.contains("chunked")
            case "connection": closeAfter = value.contains("close") ? true : (value.contains("keep-alive") ? false : closeAfter)
            default: break
            }
        }
        start = headerEnd!
        if chunked {
            while true {
                var sizeEnd = lineEnd(from: start)
                while sizeEnd == nil { guard try fill() else { throw .read }; sizeEnd = lineEnd(from: start) }
                let sizeText = String(decoding: buffer[start..<(sizeEnd! - 2)], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { throw .malformed }
                start = sizeEnd!
                if size == 0 {
                    // Trailers, up to the empty line.
                    while true {
                        var trailerEnd = lineEnd(from: start)
                        while trailerEnd == nil { guard try fill() else { throw .read }; trailerEnd = lineEnd(from: start) }
                        let empty = trailerEnd! - start == 2
                        start = trailerEnd!
                        if empty { break }
                    }
                    break
                }
                try skip(size + 2)
            }
        } else if let contentLength {
            try skip(contentLength)
        } else if status != 204, status != 304, status >= 200 {
            // No length: the body runs to the end of the connection.
            while try fill() { start = end }
            closeAfter = true
        }
        if closeAfter { close() }
        return status
    }

    /// Consumes `count` body bytes.
    private func skip(_ count: Int) throws(LoadFailure) {
        var remaining = count
        while remaining > 0 {
            if start == end { guard try fill() else { throw .read } }
            let take = min(remaining, end - start)
            start += take
            remaining -= take
        }
    }
}

/// How requests are paced.
enum LoadMode: Sendable {
    /// Each request as soon as a connection is free (wrk's way); latency from the send.
    case closedLoop
    /// Request `i` is due at `i / rate` seconds after the start, whether or not
    /// earlier ones were answered (a provider does not wait); latency counts
    /// from the due time, so queueing behind a slow server is included.
    case openLoop(rate: Double)
}

/// What one load run saw.
struct LoadReport: Sendable {
    var statuses: [Int: Int] = [:]
    var failures: [String: Int] = [:]
    /// Per request, in microseconds (completed ones, any status).
    var latencies: [UInt32] = []
    /// Indexes of the requests answered 2xx.
    var accepted: [Int] = []
    var firstSend: UInt64 = .max
    var lastDone: UInt64 = 0

    var completed: Int { statuses.values.reduce(0, +) }
    var successes: Int { statuses.filter { (200..<300).contains($0.key) }.values.reduce(0, +) }

    mutating func merge(_ other: LoadReport) {
        statuses.merge(other.statuses, uniquingKeysWith: +)
        failures.merge(other.failures, uniquingKeysWith: +)
        latencies += other.latencies
        accepted += other.accepted
        firstSend = min(firstSend, other.firstSend)
        lastDone = max(lastDone, other.lastDone)
    }
}

/// Sends `deliveries` as signed Lemon Squeezy webhooks over `connections`
/// keep-alive connections, one thread each (blocking I/O: simple, and on
/// loopback as cheap per request as an event loop), each delivery once.
struct WebhookLoad: Sendable {
    let target: HTTPTarget
    let deliveries: [Delivery]
    let connections: Int
    let mode: LoadMode
    let timeoutSeconds: Int

    /// Runs to completion on its own threads; blocks the caller.
    func run() -> LoadReport {
        let reports = Mutex<[LoadReport]>([])
        let done = DispatchSemaphore(value: 0)
        let begin = monotonicNanoseconds() + 20_000_000 // every thread ready before the first due time
        let interval: Double = if case .openLoop(let rate) = mode { 1e9 / rate } else { 0 }
        let count = connections
        let shared = SharedCounter()
        for _ in 0..<count {
            let thread = Thread { [self] in
                var report = LoadReport()
                let connection = BlockingHTTPConnection(target: target, timeoutSeconds: timeoutSeconds)
                var request: [UInt8] = []
                request.reserveCapacity(8192)
                sleepUntil(begin)
                while true {
                    let index = shared.take()
                    guard index < deliveries.count else { break }
                    var due = monotonicNanoseconds()
                    if interval > 0 {
                        due = begin + UInt64(Double(index) * interval)
                        if monotonicNanoseconds() < due { sleepUntil(due) }
                    }
                    let delivery = deliveries[index]
                    request.removeAll(keepingCapacity: true)
                    request.append(
                        contentsOf:
                            "POST \(target.path) HTTP/1.1\r\nHost: \(target.host):\(target.port)\r\nContent-Type: application/json\r\nX-Event-Name: \(delivery.eventName)\r\nX-Signature: \(delivery.signature)\r\nContent-Length: \(delivery.body.count)\r\n\r\n"
                            .utf8)
                    request.append(contentsOf: delivery.body)
                    let sent = monotonicNanoseconds()
                    report.firstSend = min(report.firstSend, interval > 0 ? due : sent)
                    do {
                        let status = try connection.exchange(request)
                        let finished = monotonicNanoseconds()
                        report.lastDone = max(report.lastDone, finished)
                        report.statuses[status, default: 0] += 1
                        report.latencies.append(UInt32(clamping: (finished - due) / 1000))
                        if (200..<300).contains(status) { report.accepted.append(index) }
                    } catch {
                        report.lastDone = max(report.lastDone, monotonicNanoseconds())
                        report.failures["\(error)", default: 0] += 1
                    }
                }
                reports.withLock { $0.append(report) }
                done.signal()
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        for _ in 0..<count { done.wait() }
        return reports.withLock { all in all.reduce(into: LoadReport()) { $0.merge($1) } }
    }
}

/// The next request index, shared by the sending threads.
final class SharedCounter: Sendable {
    private let value = Atomic<Int>(0)
    func take() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}

/// Percentile of sorted values (nearest rank).
func percentile(_ sorted: [UInt32], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return Double(sorted[min(max(rank, 0), sorted.count - 1)])
}
