import Foundation
import TestSupport

/// Requests a client keeps open at the gateway: each connection, from
/// `address`, sends the headers of a POST whose body never comes. nginx counts
/// such a request against the client's connection cap (`limit_conn`) while it
/// waits for the body (for `client_body_timeout`, 60 s), so a few hundred of
/// these fill a client's share without any load. Plain sockets rather than
/// curl: curl would not send a request line before it has the whole body.
final class HeldRequests {
    private var sockets: [Int32]

    /// Opens `count` connections from `address` to `host:port` and sends each
    /// one the head of `POST path` with a `Content-Length` it never honours.
    init(count: Int, from address: String, to host: String, port: Int, path: String) throws {
        var opened: [Int32] = []
        do {
            for _ in 0..<count {
                let socket = try Self.connect(from: address, to: host, port: port)
                opened.append(socket)
                let head = Array("POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n".utf8)
                guard send(socket, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else {
                    throw ScriptRunner.Failure(description: "sending a held request's head failed (errno \(errno))")
                }
            }
        } catch {
            opened.forEach { _ = close($0) }
            throw error
        }
        sockets = opened
    }

    /// Closes every connection (nginx then drops the requests); also on deinit.
    func release() {
        sockets.forEach { _ = close($0) }
        sockets = []
    }

    deinit { release() }

    private static func connect(from address: String, to host: String, port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ScriptRunner.Failure(description: "socket() failed (errno \(errno))") }
        var local = try Self.address(address, port: 0)
        var remote = try Self.address(host, port: port)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, length) } }
        guard bound == 0, connected == 0 else {
            let reason = errno
            _ = close(socket)
            throw ScriptRunner.Failure(description: "binding to \(address) or connecting to \(host):\(port) failed (errno \(reason))")
        }
        return socket
    }

    private static func address(_ text: String, port: Int) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else { throw ScriptRunner.Failure(description: "\(text) is not an IPv4 address") }
        return address
    }
}
