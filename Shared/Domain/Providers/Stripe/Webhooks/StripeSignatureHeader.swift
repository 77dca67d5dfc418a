import BillingModel
import CryptoPrimitives

/// The parts of a `Stripe-Signature` header the verifier uses: the one
/// timestamp and the decoded `v1` digests.
struct StripeSignatureHeader: Equatable {
    let timestamp: Int64
    let signatures: [[UInt8]]

    /// Reads `t=…,v1=…,v1=…,v0=…`: comma-separated `key=value` pairs, spaces
    /// around them ignored, unknown keys skipped. Exactly one `t`, at least one
    /// `v1`; a `v1` that is not 64 hex digits cannot match and is dropped.
    static func parse(_ header: String) throws(StripeSignatureError) -> StripeSignatureHeader {
        guard header.utf8.count <= StripeSignatureVerifier.maximumHeaderLength else { throw .malformedHeader }
        var timestamp: Int64?
        var timestampCount = 0
        var signatures: [[UInt8]] = []
        for element in header.split(separator: ",") {
            let pair = element.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingSpaces()
            let value = pair[1].trimmingSpaces()
            switch key {
            case "t":
                timestampCount += 1
                timestamp = Int64(value)
            case "v1":
                guard signatures.count < StripeSignatureVerifier.maximumSignatures, value.utf8.count == 64, let digest = Hex.decode(value) else {
                    continue
                }
                signatures.append(digest)
            default:
                continue
            }
        }
        guard timestampCount == 1, let timestamp, timestamp > 0 else { throw .malformedHeader }
        guard !signatures.isEmpty else { throw .noV1Signature }
        return StripeSignatureHeader(timestamp: timestamp, signatures: signatures)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
