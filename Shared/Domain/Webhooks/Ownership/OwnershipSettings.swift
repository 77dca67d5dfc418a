import Timing
import ServiceSettings

// The key of the ownership proof the checkout signs and the projector checks.

extension Setting {
    public static let ownershipProofKey = Setting(
        "OWNERSHIP_PROOF_KEY", required: true, secret: true,
        "server key (at least 32 bytes) of the HMAC proving Storefront made a checkout; the same in checkout and projector")
    public static let ownershipProofKeyID = Setting(
        "OWNERSHIP_PROOF_KEY_ID",
        "id of OWNERSHIP_PROOF_KEY (1-16 of a-z, 0-9, -), written into its proofs so a rotation checks each proof under its own key; empty: none")
    public static let ownershipProofPreviousKeys = Setting(
        "OWNERSHIP_PROOF_PREVIOUS_KEYS", secret: true,
        "keys rotated out, still accepted: comma-separated `<id>:<key>` (or a bare key that had no id); the same in checkout and projector")
}

extension SettingGroup {
    public static let ownershipProof = SettingGroup(
        "Ownership proof", [.ownershipProofKey, .ownershipProofKeyID, .ownershipProofPreviousKeys])
}
