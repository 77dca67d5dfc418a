import Foundation

/// A parsed HTTP/1.1 response read off a raw socket.
struct RawResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// Parses a complete response from `buffer`, or returns `nil` if more bytes are needed.
    /// Bodies are delimited by `Content-Length` (libmicrohttpd always sends it for buffers).
    static func parse(_ buffer: [UInt8]) -> (RawResponse, consumed: Int)? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        guard buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: { buffer[$0..<($0 + 4)].elementsEqual(terminator) })
        else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        let bodyStart = end + 4
        guard buffer.count >= bodyStart + length else { return nil }
        return (RawResponse(status: status, headers: headers, body: Array(buffer[bodyStart..<(bodyStart + length)])), bodyStart + length)
    }
}

enum RawClientError: Error {
    case connect(Int32)
    case io(Int32)
    case closedEarly([UInt8])
    case timedOut
}

/// A blocking socket to the server under test. Use it only inside ``offPool(_:)``:
/// the server's handlers run on Swift's cooperative pool, which a blocked test must not hold.
/// `@unchecked Sendable`: a test may hand one connection from one `offPool` call to the
/// next, each awaited before the next starts, so one thread at a time uses it.
final class RawConnection: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout`.
    init(port: UInt16, timeout: Duration = .seconds(30)) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError.io(errno) }
        var seconds = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = RawConnection.loopback(port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: every stored property is set, so deinit runs (and closes) even
        // when init throws; closing twice could close a descriptor another test reused.
        guard result == 0 else { throw RawClientError.connect(errno) }
    }

    deinit { close(fd) }

    static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw RawClientError.io(errno) }
            offset += written
        }
    }

    /// Reads one complete response.
    func readResponse() throws -> RawResponse {
        while true {
            if let (response, consumed) = RawResponse.parse(buffer) {
                buffer.removeFirst(consumed)
                return response
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { throw RawClientError.closedEarly(buffer) }
            if count < 0 { throw errno == EAGAIN || errno == EWOULDBLOCK ? RawClientError.timedOut : RawClientError.io(errno) }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Reads until the server closes (returns everything read) or the read timeout passes (throws).
    func readUntilClosed() throws -> [UInt8] {
        while true {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return buffer }
            if count < 0 {
                if errno == ECONNRESET { return buffer }
                throw errno == EAGAIN || errno == EWOULDBLOCK ? RawClientError.timedOut : RawClientError.io(errno)
            }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

/// Runs blocking client code on its own thread so it never holds a cooperative-pool thread.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// Sends one simple request on a fresh connection and reads the response.
func request(
    _ port: UInt16, _ method: String = "GET", _ target: String, headers: [String: String] = [:], body: String = ""
) async throws -> RawResponse {
    var text = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if !body.isEmpty || method == "POST" || method == "PUT" { text += "Content-Length: \(body.utf8.count)\r\n" }
    text += "\r\n" + body
    let raw = text
    return try await offPool {
        let connection = try RawConnection(port: port)
        try connection.send(raw)
        return try connection.readResponse()
    }
}

/// Sends `count` GET requests for `target` over `count` simultaneous connections from one
/// thread with `poll(2)`, so every request really is in flight at once. Returns the statuses
/// (0 when unanswered by the timeout, -errno when sending or reading failed, -1000 when closed early).
func concurrentGets(_ port: UInt16, target: String, count: Int, timeout: Duration = .seconds(30)) async throws -> [Int] {
    try await offPool {
        let request = Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        var fds: [Int32] = []
        var sent = [Int](repeating: 0, count: count)
        var buffers = [[UInt8]](repeating: [], count: count)
        var statuses = [Int](repeating: 0, count: count)
        var done = [Bool](repeating: false, count: count)
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw RawClientError.io(errno) }
            var address = RawConnection.loopback(port)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if result != 0 && errno != EINPROGRESS { throw RawClientError.connect(errno) }
            fds.append(fd)
        }
        defer { for fd in fds { close(fd) } }
        let deadline = ContinuousClock.now + timeout
        while done.contains(false) {
            guard ContinuousClock.now < deadline else { break }
            var polls = fds.enumerated().map { index, fd in
                pollfd(fd: done[index] ? -1 : fd, events: Int16(sent[index] < request.count ? POLLOUT : POLLIN), revents: 0)
            }
            _ = poll(&polls, nfds_t(polls.count), 100)
            for index in polls.indices where polls[index].revents != 0 && !done[index] {
                let fd = fds[index]
                if sent[index] < request.count {
                    let written = request[sent[index]...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if written > 0 { sent[index] += written } else if errno != EAGAIN { statuses[index] = -Int(errno); done[index] = true }
                    continue
                }
                var chunk = [UInt8](repeating: 0, count: 16384)
                let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if read > 0 {
                    buffers[index].append(contentsOf: chunk[..<read])
                    if let (response, _) = RawResponse.parse(buffers[index]) {
                        statuses[index] = response.status
                        done[index] = true
                    }
                } else if read == 0 || errno != EAGAIN {
                    statuses[index] = read == 0 ? -1000 : -Int(errno)
                    done[index] = true
                }
            }
        }
        return statuses
    }
}
