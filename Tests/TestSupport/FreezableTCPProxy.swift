import Foundation
import Synchronization

/// A TCP forwarder on 127.0.0.1 that can stop forwarding without closing
/// anything: a hung middlebox or a silent network partition, as the client
/// sees it. While frozen the proxy's kernel still accepts and acknowledges
/// what the client sends, and nothing comes back, so TCP keepalives and the
/// user timeout see a live peer; only a client-side deadline notices.
///
/// Each direction of each connection is one blocking thread (a test proxy
/// carries a handful of connections). ``freeze()`` makes every pump hold
/// what it read; ``thaw()`` lets it through; ``close()`` closes every socket.
public final class FreezableTCPProxy: Sendable {
    /// The port clients connect to.
    public let port: Int
    private let listener: Int32
    private let target: sockaddr_in
    private let state = Mutex<(frozen: Bool, closed: Bool, sockets: [Int32])>((false, false, []))

    public struct ProxyError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Listens on an ephemeral loopback port and forwards to `targetPort` on 127.0.0.1.
    public init(targetPort: Int) throws {
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(targetPort).bigEndian)
        target.sin_addr.s_addr = inet_addr("127.0.0.1")
        self.target = target

        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ProxyError(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            Foundation.close(listener)
            throw ProxyError(description: "bind/listen: \(errno)")
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops forwarding in both directions; every socket stays open.
    public func freeze() { state.withLock { $0.frozen = true } }

    /// Forwards again, starting with what was held.
    public func thaw() { state.withLock { $0.frozen = false } }

    /// Closes the listener and every forwarded connection.
    public func close() {
        let sockets = state.withLock { state in
            state.closed = true
            return state.sockets
        }
        shutdown(listener, Int32(SHUT_RDWR))
        Foundation.close(listener)
        // Shut down, not closed: a pump thread may still be inside read() on it.
        for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private var isClosed: Bool { state.withLock { $0.closed } }

    private func acceptLoop() {
        while !isClosed {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = target
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard upstream >= 0, connected else {
                Foundation.close(client)
                if upstream >= 0 { Foundation.close(upstream) }
                continue
            }
            state.withLock { $0.sockets += [client, upstream] }
            Thread { [self] in pump(from: client, to: upstream) }.start()
            Thread { [self] in pump(from: upstream, to: client) }.start()
        }
    }

    /// Copies bytes one way until either side closes; while frozen, holds
    /// what it read and reads nothing more.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        defer {
            shutdown(destination, Int32(SHUT_WR))
            shutdown(source, Int32(SHUT_RD))
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            while state.withLock({ $0.frozen && !$0.closed }) { usleep(10_000) }
            if isClosed { return }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + offset, count - offset) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
