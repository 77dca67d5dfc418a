import BillingModel

/// Which record of a batch caused a user's entitlement change: the last
/// record of the batch naming one of the purchases the change touched (a
/// claim when the purchase changed owner through a claim command).
///
/// A purchase reached only through the log (a Paystack renewal charge, a
/// refund naming only its transaction) is named by no record directly; then
/// the batch's last record of the purchase's provider stands in, and a batch
/// without one names its last record. Pure, so tests need no database.
struct EntitlementCauseFinder: Sendable {
    /// A purchase as records and touches name it.
    struct Purchase: Hashable {
        var provider: String
        var type: EntitlementTouch.Kind
        var id: String
    }

    let inputs: [ProjectionInput]
    /// The position of the last record naming each purchase, and of the last record of each provider.
    let lastNaming: [Purchase: Int]
    let lastOfProvider: [String: Int]

    /// Indexes the batch once, so finding the cause of each of its users
    /// costs a few lookups rather than a pass over the batch.
    init(_ inputs: [ProjectionInput]) {
        self.inputs = inputs
        var naming: [Purchase: Int] = [:], providers: [String: Int] = [:]
        for (position, input) in inputs.enumerated() {
            for purchase in Self.purchases(named: input) { naming[purchase] = position }
            if let provider = Self.provider(of: input) { providers[provider.rawValue] = position }
        }
        lastNaming = naming
        lastOfProvider = providers
    }

    /// The cause of the change of one user, whose touched purchases are `touches`.
    func cause(of touches: [EntitlementTouch]) -> EntitlementChange.Cause? {
        let named = touches.compactMap { lastNaming[Purchase(provider: $0.provider, type: $0.purchaseType, id: $0.purchaseID)] }.max()
        let stand = named ?? touches.compactMap { lastOfProvider[$0.provider] }.max() ?? inputs.indices.last
        return stand.map { Self.cause(inputs[$0]) }
    }

    /// The cause of the change from `before` to `after`: a plan change when an
    /// entitlement stayed active through it but now comes from another plan of
    /// the same provider, whichever record (the command, the provider's
    /// webhook or a snapshot) brought the new plan first.
    func cause(of touches: [EntitlementTouch], before: [EntitlementInfo], after: [EntitlementInfo]) -> EntitlementChange.Cause? {
        guard var found = cause(of: touches) else { return nil }
        if found.kind != .claim, Self.isPlanChange(before: before, after: after) { found.kind = .planChange }
        return found
    }

    /// Whether an entitlement active before and after moved to another product of the same provider.
    static func isPlanChange(before: [EntitlementInfo], after: [EntitlementInfo]) -> Bool {
        let old = Dictionary(before.filter(\.isActive).map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        return after.contains { new in
            guard new.isActive, new.source == .subscription, let was = old[new.identifier] else { return false }
            return was.source == new.source && was.provider == new.provider && new.provider != nil && was.productID != new.productID
        }
    }

    /// The cause of the change of one user in the batch `inputs` (one lookup: tests and single users).
    static func cause(of touches: [EntitlementTouch], in inputs: [ProjectionInput]) -> EntitlementChange.Cause? {
        EntitlementCauseFinder(inputs).cause(of: touches)
    }

    /// The purchases `input` is about.
    static func purchases(named input: ProjectionInput) -> [Purchase] {
        switch input {
        case .webhook(let delivery):
            let e = delivery.event, provider = e.provider.rawValue
            let subscription = e.subscriptionID.map { Purchase(provider: provider, type: .subscription, id: $0) }
            return [subscription, e.orderID.map { Purchase(provider: provider, type: .order, id: $0) }].compactMap { $0 }
        case .command(let command):
            return [Purchase(provider: command.provider.rawValue, type: .init(command.purchaseType), id: command.subscriptionID)]
        case .grant(let grant):
            return [Purchase(provider: EntitlementTouch.grantProvider, type: .grant, id: grant.grantID)]
        case .checkout, .userMerge:
            return []
        }
    }

    static func provider(of input: ProjectionInput) -> Provider? {
        switch input {
        case .webhook(let delivery): delivery.event.provider
        case .command(let command): command.provider
        case .checkout(let record): record.provider
        case .userMerge, .grant: nil
        }
    }

    static func cause(_ input: ProjectionInput) -> EntitlementChange.Cause {
        switch input {
        case .webhook(let delivery):
            let isSnapshot = delivery.event.isFromSnapshot
            return .init(kind: isSnapshot ? .snapshot : .providerEvent, provider: delivery.event.provider, reference: delivery.dedupKey)
        case .command(let command):
            let isClaim = command.kind == .claimByEmail || command.kind == .redeem
            let kind: EntitlementChange.Cause.Kind = isClaim ? .claim : command.kind == .planChangeRequested ? .planChange : .command
            return .init(kind: kind, provider: command.provider, reference: command.commandID)
        case .userMerge(let merge):
            // The merged user's purchases moved: a claim with no single provider.
            return .init(kind: .claim, provider: nil, reference: merge.commandID)
        case .grant(let grant):
            switch grant.action {
            case .grant: return .init(kind: .grant, provider: nil, reference: grant.grantID)
            case .revoke: return .init(kind: .revoke, provider: nil, reference: grant.grantID)
            }
        case .checkout(let record):
            // A checkout record changes no entitlement on its own; named for completeness.
            return .init(kind: .command, provider: record.provider, reference: record.checkoutID)
        }
    }
}
