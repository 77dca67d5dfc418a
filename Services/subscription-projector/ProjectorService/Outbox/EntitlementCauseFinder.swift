import BillingModel

/// Which record of a batch caused a user's entitlement change: the last
/// record of the batch naming one of the purchases the change touched (a
/// claim when the purchase changed owner through a claim command).
///
/// A purchase reached only through the log (a Paystack renewal charge, a
/// refund naming only its transaction) is named by no record directly; then
/// the batch's last record of the purchase's provider stands in, and a batch
/// without one names its last record. Pure, so tests need no database.
enum EntitlementCauseFinder {
    /// Event names of reconciler snapshots (as ``ProjectionPlan/snapshotEventPrefix``).
    static let snapshotPrefix = ProjectionPlan.snapshotEventPrefix

    /// The cause of the change of one user, whose touched purchases are `touches`.
    static func cause(of touches: [EntitlementTouch], in inputs: [ProjectionInput]) -> EntitlementChange.Cause? {
        let named = inputs.last { input in touches.contains { names(input, $0) } }
        let providers = Set(touches.map(\.provider))
        let stand = named ?? inputs.last { provider(of: $0).map { providers.contains($0.rawValue) } ?? false } ?? inputs.last
        return stand.map(cause)
    }

    /// Whether `input` is about the purchase `touch` names.
    static func names(_ input: ProjectionInput, _ touch: EntitlementTouch) -> Bool {
        switch input {
        case .webhook(let delivery):
            let e = delivery.event
            guard e.provider.rawValue == touch.provider else { return false }
            return touch.purchaseType == .subscription ? e.subscriptionID == touch.purchaseID : e.orderID == touch.purchaseID
        case .command(let command):
            return command.provider.rawValue == touch.provider && command.purchaseType == touch.purchaseType
                && command.subscriptionID == touch.purchaseID
        case .checkout:
            return false
        }
    }

    static func provider(of input: ProjectionInput) -> Provider? {
        switch input {
        case .webhook(let delivery): delivery.event.provider
        case .command(let command): command.provider
        case .checkout(let record): record.provider
        }
    }

    static func cause(_ input: ProjectionInput) -> EntitlementChange.Cause {
        switch input {
        case .webhook(let delivery):
            let isSnapshot = delivery.event.providerEventName.hasPrefix(snapshotPrefix)
            return .init(kind: isSnapshot ? .snapshot : .providerEvent, provider: delivery.event.provider, reference: delivery.dedupKey)
        case .command(let command):
            return .init(kind: command.kind == .claimByEmail ? .claim : .command, provider: command.provider, reference: command.commandID)
        case .checkout(let record):
            // A checkout record changes no entitlement on its own; named for completeness.
            return .init(kind: .command, provider: record.provider, reference: record.checkoutID)
        }
    }
}
