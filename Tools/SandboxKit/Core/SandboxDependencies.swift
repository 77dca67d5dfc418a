import Foundation

/// Sends one webhook request; the lead plugs in the real HTTP client.
public protocol WebhookTransport: Sendable {
    /// POSTs `body` to `url` and returns the HTTP status; throws on transport failure.
    func post(url: String, headers: [(String, String)], body: [UInt8]) async throws -> Int
}

/// HMAC and signature primitives, injected so this module needs no crypto library.
public struct SandboxSigner: Sendable {
    /// Lowercase hex HMAC-SHA256 of `message` keyed with `key` (Lemon Squeezy `X-Signature`).
    public let hmacSHA256Hex: @Sendable (_ key: [UInt8], _ message: [UInt8]) -> String
    /// Lowercase hex HMAC-SHA512 of `message` keyed with `key` (Paystack `x-paystack-signature`).
    public let hmacSHA512Hex: @Sendable (_ key: [UInt8], _ message: [UInt8]) -> String
    /// Whether `token` is a compact JWT whose header says ES256 and whose
    /// signature the P-256 public key `publicKeyPEM` verifies (the emulated
    /// Apple API's bearer tokens). The claims are the sandbox's to check.
    public let verifiesES256JWT: @Sendable (_ token: String, _ publicKeyPEM: String) -> Bool

    /// - Parameter verifiesES256JWT: default refuses every token, so a
    ///   sandbox built without crypto answers Apple's routes with 401.
    public init(
        hmacSHA256Hex: @escaping @Sendable (_ key: [UInt8], _ message: [UInt8]) -> String,
        hmacSHA512Hex: @escaping @Sendable (_ key: [UInt8], _ message: [UInt8]) -> String,
        verifiesES256JWT: @escaping @Sendable (_ token: String, _ publicKeyPEM: String) -> Bool = { _, _ in false }
    ) {
        self.hmacSHA256Hex = hmacSHA256Hex
        self.hmacSHA512Hex = hmacSHA512Hex
        self.verifiesES256JWT = verifiesES256JWT
    }
}

/// Where the sandbox reads the time and how it waits, so tests can pin both.
public struct SandboxClock: Sendable {
    public let now: @Sendable () -> Date
    public let sleep: @Sendable (Duration) async throws -> Void

    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// Wall-clock time and `Task.sleep`.
    public static let system = SandboxClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}
