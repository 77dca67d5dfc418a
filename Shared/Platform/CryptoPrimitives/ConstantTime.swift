internal import CCrypto

/// Compares two byte strings in time that depends only on their lengths, never
/// on where they first differ (OpenSSL `CRYPTO_memcmp`). Use it for MACs,
/// signatures and tokens, where `==` would leak how many leading bytes matched.
///
/// Lengths are not secret here (a MAC's length is public), but a length mismatch
/// still does the same amount of work as a comparison of `lhs` before answering `false`.
public func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    let left = Array(lhs)
    let right = Array(rhs)
    guard !left.isEmpty || !right.isEmpty else { return true }
    let same = left.count == right.count
    let other = same ? right : left
    let difference = withStableBytes(left) { leftPointer, count in
        withStableBytes(other) { otherPointer, _ in
            CRYPTO_memcmp(leftPointer, otherPointer, count)
        }
    }
    return same && difference == 0
}
