/// What the emulated External Purchase Server API accepts: the App Store
/// Connect API key whose JWTs it takes (issuer, key id, public half) and the
/// app (bundle id) they must name.
public struct AppleSettings: Sendable {
    /// The issuer id (`iss`) every token must carry.
    public var issuerID: String
    /// The key id (`kid` header) every token must name.
    public var keyID: String
    /// The app's bundle id (`bid`).
    public var bundleID: String
    /// The P-256 public key (PEM) the tokens must verify with; nil refuses
    /// every token (401), as Apple does for a key it does not know.
    public var publicKeyPEM: String?

    public init(
        issuerID: String = "sandbox-issuer", keyID: String = "SANDBOXKEY", bundleID: String = "com.example.storefront", publicKeyPEM: String? = nil
    ) {
        self.issuerID = issuerID
        self.keyID = keyID
        self.bundleID = bundleID
        self.publicKeyPEM = publicKeyPEM
    }
}
