/// Checks ids before they go into a request path: 1–128 characters of
/// `[A-Za-z0-9_.:-]` (what both providers use), so nothing a caller passes can
/// add path segments or a query.
package enum ProviderIDs {
    package static func isSafe(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 128, id != ".", id != ".." else { return false }
        return id.utf8.allSatisfy { byte in
            (QueryString.isUnreserved(byte) && byte != UInt8(ascii: "~")) || byte == UInt8(ascii: ":")
        }
    }

    /// Digits only (Lemon Squeezy ids).
    static func isNumeric(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 20 && id.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
