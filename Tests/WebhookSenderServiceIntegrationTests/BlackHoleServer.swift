#if canImport(Glibc)
    import Glibc
#endif

/// A TCP port on loopback that takes connections and never answers: the
/// kernel completes each handshake into a deep backlog, and nothing ever
/// reads or writes, as an endpoint whose server hangs.
final class BlackHoleServer: Sendable {
    let port: UInt16
    private let socket: Int32

    init() throws {
        struct Failure: Error { let step: String }
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(step: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 4096) == 0 else {
            close(fd)
            throw Failure(step: "bind/listen")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        socket = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    var url: String { "http://127.0.0.1:\(port)/hooks/never" }

    func stop() { close(socket) }
}
