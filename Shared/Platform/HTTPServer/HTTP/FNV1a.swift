/// 64-bit FNV-1a: a tiny, stable, non-cryptographic hash used for entity tags.
///
/// Stable across processes and machines (unlike `Hasher`, which is seeded per
/// process), so every replica of the service derives the same `ETag` from the
/// same body and caches behind a load balancer keep working.
enum FNV1a {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The hash of `bytes`.
    static func hash64(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = offsetBasis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= prime
        }
        return hash
    }

    /// The hash of `bytes` as 16 lowercase hex digits.
    static func hex64(_ bytes: some Sequence<UInt8>) -> String {
        let digits = String(hash64(bytes), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
