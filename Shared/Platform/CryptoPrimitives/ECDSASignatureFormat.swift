/// Converts ECDSA signatures between the two encodings in use: JWS (RFC 7518
/// §3.4) puts the fixed-size big-endian `R || S` in a token, OpenSSL's EVP
/// sign and verify read and write the DER `SEQUENCE { INTEGER r, INTEGER s }`.
public enum ECDSASignatureFormat {
    /// The byte length of one scalar on P-256 (so an ES256 signature is 64 bytes).
    public static let p256ScalarSize = 32

    /// The DER form of a raw `R || S` signature.
    /// - Parameters:
    ///   - raw: `R` then `S`, each exactly `scalarSize` bytes.
    ///   - scalarSize: the curve's scalar length (32 for P-256).
    /// - Returns: the DER encoding, or nil when `raw` is not `2 × scalarSize` bytes.
    public static func der(fromRaw raw: [UInt8], scalarSize: Int = p256ScalarSize) -> [UInt8]? {
        guard scalarSize > 0, raw.count == 2 * scalarSize else { return nil }
        return DER.sequence(DER.unsignedInteger(raw.prefix(scalarSize)), DER.unsignedInteger(raw.suffix(scalarSize)))
    }

    /// The raw `R || S` form of a DER signature.
    /// - Parameters:
    ///   - der: a strict DER `SEQUENCE` of two non-negative INTEGERs and nothing after it.
    ///   - scalarSize: the curve's scalar length (32 for P-256).
    /// - Returns: `2 × scalarSize` bytes, or nil when `der` is not such a
    ///   signature or a value does not fit in `scalarSize` bytes.
    public static func raw(fromDER der: [UInt8], scalarSize: Int = p256ScalarSize) -> [UInt8]? {
        var outer = DER.Reader(der)
        guard let body = outer.read(DER.sequenceTag), outer.isAtEnd else { return nil }
        var inner = DER.Reader(body)
        guard let r = inner.readUnsignedInteger(), let s = inner.readUnsignedInteger(), inner.isAtEnd else { return nil }
        guard r.count <= scalarSize, s.count <= scalarSize else { return nil }
        return [UInt8](repeating: 0, count: scalarSize - r.count) + r + [UInt8](repeating: 0, count: scalarSize - s.count) + s
    }
}
