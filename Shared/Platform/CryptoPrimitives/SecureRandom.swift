internal import CCrypto

/// Cryptographically secure random bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` random bytes (at most 1 MiB per call).
    /// - Throws: ``CryptoError/randomFailed`` if the generator is not seeded or fails.
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        precondition(count >= 0 && count <= 1 << 20, "SecureRandom.bytes: count out of range")
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let ok = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard ok == 1 else {
            ERR_clear_error()
            throw .randomFailed
        }
        return output
    }
}
