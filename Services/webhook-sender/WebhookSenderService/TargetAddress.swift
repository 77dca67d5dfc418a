#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What kind of network an IP address is on: whether a webhook may go
/// there without the operator's `--allow-private`. Addresses that embed an
/// IPv4 address (mapped, compatible, NAT64, 6to4) are judged by it.
public enum TargetAddress {
    public enum Kind: String, Sendable, Hashable {
        case `public`
        case loopback
        case linkLocal = "link-local"
        /// RFC 1918, shared (100.64/10), IPv6 unique-local and site-local.
        case `private`
        case unspecified
        /// Multicast, broadcast and reserved: never a webhook receiver.
        case reserved

        public var isPublic: Bool { self == .public }
    }

    /// The kind of `text` as an IP address literal (`10.0.0.1`, `::1`,
    /// `[fe80::1]`); nil when it is not one (a host name).
    public static func kind(of text: String) -> Kind? {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        // A zone (`fe80::1%eth0`) only exists on link-local addresses.
        if bare.contains("%") { return bare.contains(":") ? .linkLocal : nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            return kind(ipv4: withUnsafeBytes(of: v4.s_addr) { Array($0) })
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            return kind(ipv6: withUnsafeBytes(of: v6) { Array($0) })
        }
        return nil
    }

    /// The kind of a 4-byte address in network order.
    public static func kind(ipv4 b: [UInt8]) -> Kind {
        precondition(b.count == 4)
        switch (b[0], b[1]) {
        case (0, _): return .unspecified // "this network"
        case (127, _): return .loopback
        case (10, _), (172, 16...31), (192, 168): return .private
        case (100, 64...127): return .private // shared address space (carrier NAT)
        case (169, 254): return .linkLocal
        case (224...255, _): return .reserved // multicast, reserved, broadcast
        default: return .public
        }
    }

    /// The kind of a 16-byte address in network order.
    public static func kind(ipv6 b: [UInt8]) -> Kind {
        precondition(b.count == 16)
        let head = b[0..<12]
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): the IPv4 address decides.
        if head.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) || head.allSatisfy({ $0 == 0 }) { return kind(ipv4: Array(b[12..<16])) }
        // 64:ff9b::/96 (NAT64) carries an IPv4 address in its last 32 bits.
        if head.elementsEqual([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]) { return kind(ipv4: Array(b[12..<16])) }
        // 2002::/16 (6to4) carries one in bits 16 to 47.
        if b[0] == 0x20 && b[1] == 0x02 { return kind(ipv4: Array(b[2..<6])) }
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal } // fe80::/10
        if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return .private } // fec0::/10, site-local (deprecated)
        if b[0] & 0xfe == 0xfc { return .private } // fc00::/7, unique local
        if b[0] == 0xff { return .reserved } // multicast
        return .public
    }
}
