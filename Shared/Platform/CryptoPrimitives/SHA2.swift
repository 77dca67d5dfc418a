internal import CCrypto

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// The 32-byte digest of `data`.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        digest(.sha256, data)
    }
}

/// SHA-512 (FIPS 180-4).
public enum SHA512 {
    /// The 64-byte digest of `data`.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        digest(.sha512, data)
    }
}

func digest(_ algorithm: DigestAlgorithm, _ data: some Collection<UInt8>) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let ok = withStableBytes(data) { pointer, count in
        EVP_Digest(pointer, count, &output, &length, algorithm.evp, nil)
    }
    precondition(ok == 1 && Int(length) == algorithm.outputSize, "OpenSSL EVP_Digest failed")
    return Array(output.prefix(Int(length)))
}
