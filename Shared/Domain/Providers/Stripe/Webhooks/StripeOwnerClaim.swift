import BillingModel

/// Who a purchase claims to belong to, as Storefront's checkout wrote it:
/// the Checkout Session's `client_reference_id` (the app user) and the
/// metadata keys the other providers use (``CustomDataKeys``), copied by the
/// checkout onto the session, the subscription (`subscription_data[metadata]`)
/// and the payment (`payment_intent_data[metadata]`).
///
/// A claim, not evidence: the ids count only with a valid proof, which the
/// `Webhooks` module's `OwnershipProof` checks (not this module, which has no
/// server key).
public struct StripeOwnerClaim: Sendable, Hashable {
    public let appUserID: String?
    public let checkoutID: String?
    public let proof: String?
    /// The object's whole `metadata` (string values within Stripe's limits): the
    /// event's custom data, where the ownership check finds the proof.
    public let metadata: [String: String]

    /// `metadata` first; `client_reference_id` names the app user when the metadata does not.
    init(metadata: [String: String], clientReferenceID: String? = nil) {
        self.metadata = metadata
        appUserID = metadata[CustomDataKeys.appUserID] ?? clientReferenceID
        checkoutID = metadata[CustomDataKeys.checkoutID]
        proof = metadata[CustomDataKeys.proof]
    }

    /// Whether the object carried no claim at all.
    public var isEmpty: Bool { appUserID == nil && checkoutID == nil && proof == nil }
}
