import Foundation

/// A set of exact IP addresses (IPv4 or IPv6) webhook requests may come from.
///
/// Addresses are compared in binary form, so `::ffff:52.31.139.75` (an IPv4
/// peer seen on a dual-stack socket) matches `52.31.139.75`, and IPv6
/// spellings that differ only in zero compression match.
public struct IPAllowList: Sendable, Hashable {
    /// Why a list could not be built.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// The addresses as given (trimmed).
    public let addresses: [String]
    private let normalized: Set<[UInt8]>

    /// At most this many entries (bounds configuration input).
    public static let maximumEntries = 256

    /// - Throws: ``ParseError`` for an empty list or an entry that is not an IP address.
    public init(_ addresses: [String]) throws(ParseError) {
        let trimmed = addresses.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !trimmed.isEmpty else { throw ParseError(description: "no addresses given") }
        guard trimmed.count <= Self.maximumEntries else { throw ParseError(description: "more than \(Self.maximumEntries) addresses") }
        var set: Set<[UInt8]> = []
        for (index, address) in trimmed.enumerated() {
            guard let bytes = Self.parse(address) else {
                throw ParseError(description: "entry \(index + 1) (\(address.prefix(64))) is not an IPv4 or IPv6 address")
            }
            set.insert(bytes)
        }
        self.addresses = trimmed
        self.normalized = set
    }

    /// Parses `"52.31.139.75, 52.49.173.169"`.
    public init(commaSeparated text: String) throws(ParseError) {
        try self.init(text.split(separator: ",").map(String.init))
    }

    /// Whether `address` (a peer address, optionally bracketed IPv6 or with a
    /// `%zone`) is on the list. Unparsable addresses never are.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.parse(address) else { return false }
        return normalized.contains(bytes)
    }

    /// 4 bytes for IPv4 (including IPv4-mapped IPv6), 16 for other IPv6; nil otherwise.
    static func parse(_ text: String) -> [UInt8]? {
        var address = text.trimmingCharacters(in: .whitespaces)
        guard address.utf8.count <= 64 else { return nil }
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        if let zone = address.firstIndex(of: "%") { address = String(address[..<zone]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12..<16]) }
        return bytes
    }
}
