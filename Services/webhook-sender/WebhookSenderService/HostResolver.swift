import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves a host name to its addresses: the seam that lets the URL policy
/// be tested without DNS.
public protocol HostResolver: Sendable {
    /// The addresses `host` resolves to now, as text (`93.184.216.34`, `2606:2800::1`).
    /// - Throws: ``HostResolutionError`` when it does not resolve.
    func addresses(of host: String) async throws -> [String]
}

public struct HostResolutionError: Error, CustomStringConvertible {
    public var host: String
    public var reason: String
    public var description: String { "\(host) does not resolve: \(reason)" }
}

/// The system's resolver (`getaddrinfo`), on a Dispatch thread: it blocks,
/// and a blocked thread of the cooperative pool would hold up every task.
public struct SystemHostResolver: HostResolver {
    public init() {}

    public func addresses(of host: String) async throws -> [String] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try Self.resolve(host) }) }
        }
    }

    static func resolve(_ host: String) throws -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw HostResolutionError(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var result: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            if let address = entry.pointee.ai_addr {
                switch entry.pointee.ai_family {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var raw = v4.pointee.sin_addr
                        _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var raw = v6.pointee.sin6_addr
                        _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                    }
                default: break
                }
            }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.isEmpty && !result.contains(text) { result.append(text) }
            node = entry.pointee.ai_next
        }
        return result
    }
}
