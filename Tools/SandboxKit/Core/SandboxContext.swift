import Foundation

/// The read-only collaborators every handler needs.
struct SandboxContext: Sendable {
    let configuration: SandboxConfiguration
    let catalog: SandboxCatalog
    let signer: SandboxSigner
    let clock: SandboxClock

    var publicBase: String { configuration.publicBaseURL }
    /// Base of the emulated Lemon Squeezy API (JSON:API links point here).
    var lsAPIBase: String { publicBase + "/lemonsqueezy/v1" }
    /// Catalog records carry this fixed creation time, so responses are stable.
    static let catalogDate = Date(timeIntervalSince1970: 1_704_067_200) // 2024-01-01T00:00:00Z

    /// A URL signature like the providers' signed links (not a security feature here).
    func urlSignature(_ text: String) -> String {
        signer.hmacSHA256Hex(Array(configuration.lemonSqueezy.webhookSecret.utf8), Array(text.utf8))
    }
}
