import CryptoPrimitives
import Foundation
import Webhooks

/// Redemption tokens: 32 bytes of HMAC-SHA256 of the redemption's random id
/// under a secret derived from `OWNERSHIP_PROOF_KEY` for this purpose, in
/// base64url (43 characters). The database keeps only the token's SHA-256,
/// so its rows alone redeem nothing; deriving the token from the row's id
/// lets the completion page show the same link again on a reload without
/// storing it.
struct RedemptionTokens: Sendable {
    /// Length of a token.
    static let length = 43
    /// Under every key of the ownership proof's ring, the current one first.
    private let secrets: [[UInt8]]

    /// nil when the ownership proof has no key.
    init?(ownership: OwnershipProof) {
        secrets = ownership.derivedSecrets(purpose: "redemption-token")
        guard !secrets.isEmpty else { return nil }
    }

    /// A new redemption's token, under the current key.
    func token(for redemptionID: UUID) -> String {
        Self.token(for: redemptionID, secret: secrets[0])
    }

    /// The token a stored redemption was issued with: the one, under any key
    /// of the ring, whose hash is `hash`; nil when its key was removed.
    func token(for redemptionID: UUID, hash: [UInt8]) -> String? {
        secrets.lazy.map { Self.token(for: redemptionID, secret: $0) }.first { Self.hash($0) == hash }
    }

    private static func token(for redemptionID: UUID, secret: [UInt8]) -> String {
        Base64URL.encode(HMAC.sha256(key: secret, message: Array(redemptionID.uuidString.lowercased().utf8)))
    }

    /// What the database stores and looks tokens up by.
    static func hash(_ token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }

    /// The token in what an app or a person sent: the token itself, or a
    /// whole `https://…/redeem/<token>` link; nil when it cannot be a token.
    static func parse(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= 2048 else { return nil }
        var candidate = Substring(trimmed)
        if let range = trimmed.range(of: "/redeem/") {
            candidate = trimmed[range.upperBound...].prefix { $0 != "?" && $0 != "#" && $0 != "/" }
        }
        guard candidate.utf8.count == length,
            candidate.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F
            })
        else { return nil }
        return String(candidate)
    }
}
