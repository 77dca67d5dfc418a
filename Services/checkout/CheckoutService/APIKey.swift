import CryptoPrimitives

/// A server's API key as text: `sfk_<mode>_<key id>_<secret>`, e.g.
/// `sfk_live_3f9a0c1b2d4e_<64 hex digits>`.
///
/// The prefix makes a leaked key recognisable (secret scanners, logs) and
/// tells a test key from a live one at a glance; the key id (12 hex digits,
/// not secret) finds the one stored row, so a lookup never compares a
/// presented key against every stored hash; the secret (32 random bytes) is
/// what proves possession. Only the SHA-256 of the whole text is stored: the
/// secret has full entropy, so a slow password hash would add nothing.
public struct APIKey: Sendable, Equatable {
    /// The text every key starts with.
    public static let prefix = "sfk_"
    static let keyIDLength = 12
    static let secretLength = 64

    /// `test` or `live`: the deployment the key was made for.
    public let mode: DeploymentMode
    /// The public part that names the stored row.
    public let keyID: String
    /// The whole key as the server sends it.
    public let text: String

    /// A new random key for `mode`.
    /// - Throws: ``Crypto/CryptoError`` when the system has no randomness to give.
    public static func generate(mode: DeploymentMode) throws(CryptoError) -> APIKey {
        let keyID = Hex.encode(try SecureRandom.bytes(count: keyIDLength / 2))
        let secret = Hex.encode(try SecureRandom.bytes(count: secretLength / 2))
        return APIKey(mode: mode, keyID: keyID, text: "\(prefix)\(mode.rawValue)_\(keyID)_\(secret)")
    }

    /// Reads a presented key; nil for anything not shaped like one (which is
    /// then refused without a database lookup).
    public init?(parsing text: String) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.dropFirst(Self.prefix.count).split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, let mode = DeploymentMode(rawValue: String(parts[0])),
            parts[1].utf8.count == Self.keyIDLength, parts[2].utf8.count == Self.secretLength,
            Hex.decode(parts[1]) != nil, Hex.decode(parts[2]) != nil
        else { return nil }
        self.init(mode: mode, keyID: String(parts[1]), text: text)
    }

    private init(mode: DeploymentMode, keyID: String, text: String) {
        self.mode = mode
        self.keyID = keyID
        self.text = text
    }

    /// What is stored and compared: SHA-256 of the whole key text.
    public var hash: [UInt8] { SHA256.hash(Array(text.utf8)) }

    /// Whether this key's hash is `stored`, compared in constant time.
    public func matches(storedHash stored: [UInt8]) -> Bool {
        constantTimeEquals(hash, stored)
    }
}
