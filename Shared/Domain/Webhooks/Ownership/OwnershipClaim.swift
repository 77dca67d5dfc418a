import BillingModel

/// What one event's custom data said about who owns its purchase, once checked
/// with ``OwnershipProof/check(_:)``.
public enum OwnershipClaim: Sendable, Equatable {
    /// No app user id and no checkout id in it.
    case none
    /// An app user id and a checkout id with a valid proof for exactly that pair: kept.
    case proven
    /// A checkout id without an app user id, with a valid anonymous
    /// checkout proof (``OwnershipProof/proof(anonymousCheckoutID:)``): the
    /// checkout id is kept, and the purchase has no owner until redeemed.
    case provenAnonymousCheckout
    /// An app user id or a checkout id without a valid proof for the pair
    /// (no proof, a bad one, one made for another user or checkout): both
    /// cleared from the event.
    case unproven
}

extension OwnershipProof {
    /// Keeps `event`'s ``BillingEvent/appUserID`` and ``BillingEvent/checkoutID``
    /// only when its custom data carries a valid ``CustomDataKeys/proof`` for
    /// them, or only ``BillingEvent/checkoutID`` when the custom data names
    /// no user and carries a valid anonymous checkout proof; otherwise sets
    /// both to nil. ``BillingEvent/customData`` is left as
    /// it came (the claim stays visible for audit). Afterwards a non-nil
    /// `appUserID` means proven.
    @discardableResult
    public func check(_ event: inout BillingEvent) -> OwnershipClaim {
        let user = event.appUserID.flatMap { $0.isEmpty ? nil : $0 }
        let checkout = event.checkoutID.flatMap { $0.isEmpty ? nil : $0 }
        guard user != nil || checkout != nil else {
            event.appUserID = nil
            event.checkoutID = nil
            return .none
        }
        if let user, let checkout, let proof = event.customData[CustomDataKeys.proof],
            verify(proof, checkoutID: checkout, appUserID: user)
        {
            return .proven
        }
        if user == nil, let checkout, let proof = event.customData[CustomDataKeys.proof], verify(proof, anonymousCheckoutID: checkout) {
            event.appUserID = nil
            return .provenAnonymousCheckout
        }
        event.appUserID = nil
        event.checkoutID = nil
        return .unproven
    }
}
