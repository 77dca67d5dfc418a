internal import CCrypto

/// A SHA-2 hash function, as used by HMAC and signatures.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case sha256
    case sha512

    /// Output length in bytes.
    public var outputSize: Int {
        switch self {
        case .sha256: 32
        case .sha512: 64
        }
    }

    var evp: OpaquePointer {
        switch self {
        case .sha256: EVP_sha256()
        case .sha512: EVP_sha512()
        }
    }
}

/// Runs `body` with a pointer that is never nil, even for an empty collection:
/// some OpenSSL entry points treat a NULL key or message differently from an empty one.
func withStableBytes<R>(_ bytes: some Collection<UInt8>, _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
    let array = Array(bytes)
    if array.isEmpty {
        var zero: UInt8 = 0
        return body(&zero, 0)
    }
    return array.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
}
