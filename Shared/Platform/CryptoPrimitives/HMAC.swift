internal import CCrypto

/// HMAC (RFC 2104) over SHA-256 or SHA-512, computed by OpenSSL.
public enum HMAC {
    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func sha256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        authenticate(.sha256, key: key, message: message)
    }

    /// HMAC-SHA512 of `message` under `key` (64 bytes).
    public static func sha512(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        authenticate(.sha512, key: key, message: message)
    }

    /// HMAC of `message` under `key` with the given hash.
    public static func authenticate(_ algorithm: DigestAlgorithm, key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = withStableBytes(key) { keyPointer, keyCount in
            withStableBytes(message) { messagePointer, messageCount in
                // Qualified: this enum shadows OpenSSL's one-shot `HMAC` function.
                CCrypto.HMAC(algorithm.evp, keyPointer, Int32(keyCount), messagePointer, messageCount, &output, &length)
            }
        }
        // Fails only on allocation failure or a key longer than Int32.max.
        precondition(result != nil && Int(length) == algorithm.outputSize, "OpenSSL HMAC failed")
        return Array(output.prefix(Int(length)))
    }
}
