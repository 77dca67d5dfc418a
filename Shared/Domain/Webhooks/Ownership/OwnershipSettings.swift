import Timing
import ServiceSettings

// The key of the ownership proof the checkout signs and the projector checks.

extension Setting {
    public static let ownershipProofKey = Setting(
        "OWNERSHIP_PROOF_KEY", required: true, secret: true,
        "server key (at least 32 bytes) of the HMAC proving Storefront made a checkout; the same in checkout and projector")
}

extension SettingGroup {
    public static let ownershipProof = SettingGroup(
        "Ownership proof", [.ownershipProofKey])
}
