import Foundation
import BillingModel
import Postgres
import ProjectionStore
import Entitlements

/// The statements one batch runs, built without touching the database.
struct ProjectionPlan {
    enum Counted { case event, record }

    /// Pipeline items, in input order (after the lock).
    private(set) var items: [PostgresBatchItem] = []
    /// Items whose affected-row count says new (1) or duplicate (0).
    private(set) var counted: [(Int, Counted)] = []
    /// Deliveries whose dedup key appeared earlier in the same batch.
    private(set) var repeatedInBatch = 0
    /// Subscriptions to re-fold: (provider, subscription id).
    private(set) var subscriptionKeys = Set<Pair>()
    /// Charges without a subscription code (renewals), to link by customer and plan.
    private(set) var renewalLinks = Set<RenewalLink>()
    /// Refunds and disputes naming only a transaction, with the index of
    /// their log insert: a new one whose transaction no logged purchase has
    /// is reported (see ``ProjectionWriteResult/unlinkedMoneyBack``).
    private(set) var moneyEvents: [(item: Int, reference: Pair, dedupKey: String)] = []
    /// Their transactions: (provider, transaction reference).
    var moneyReferences: Set<Pair> { Set(moneyEvents.map(\.reference)) }
    /// Refunded Lemon Squeezy orders (a subscription's first order among them): (provider, order id).
    private(set) var refundedOrders = Set<Pair>()
    /// Subscriptions whose new events link other logged events to them (a
    /// Paystack invoice naming a charge, a subscription object naming its
    /// card): folded from the whole log, never extended.
    private(set) var refoldKeys = Set<Pair>()
    /// Understood events naming a subscription, with the index of their log
    /// insert (whose count says whether the event is new): what an
    /// incremental fold applies.
    private(set) var subscriptionEvents: [(item: Int, key: Pair, logged: SubscriptionFold.LoggedEvent)] = []

    struct Pair: Hashable {
        var first: String
        var second: String
        init(_ first: String, _ second: String) { self.first = first; self.second = second }
    }

    /// A charge that names no subscription, by what links it to one
    /// (``ProviderTraits/chargesLinkToSubscriptionsByCard``): provider, customer, plan code.
    struct RenewalLink: Hashable {
        var provider: String
        var customer: String
        var plan: String
    }

    /// A subscription and a payment of it (its order or transaction: a Lemon
    /// Squeezy first order, the PaymentIntent of a Stripe invoice) named
    /// together by one event. A refund or dispute of that payment logged
    /// before the link existed joins the subscription's log now, so the
    /// subscription is folded again.
    private(set) var paymentLinks = Set<PaymentLink>()

    struct PaymentLink: Hashable {
        var provider: String
        var subscriptionID: String
        var orderID: String?
        var reference: String?
    }

    /// Floor for events without a provider timestamp (they lose every tie on time).
    static let epoch = Date(timeIntervalSince1970: 0)

    init(_ inputs: [ProjectionInput]) throws {
        var seen = Set<String>()
        items.append(try Self.lockItem(inputs))
        for input in inputs {
            switch input {
            case .webhook(let delivery):
                if !seen.insert(delivery.dedupKey).inserted { repeatedInBatch += 1; continue }
                try add(delivery)
            case .checkout(let record):
                add(record)
            case .command(let command):
                try add(command)
            case .userMerge(let merge):
                add(merge)
            case .grant(let grant):
                add(grant)
            }
        }
    }

    /// The batch's first statement: the locks of every record's keys (``lockKeys(_:)``).
    static func lockItem(_ inputs: [ProjectionInput]) throws -> PostgresBatchItem {
        PostgresBatchItem(ProjectionStatements.lock, [try jsonArray(Set(inputs.flatMap(lockKeys)).sorted())])
    }

    /// What a batch locks for one record: its topic key, and one key per
    /// purchase it names, the same whatever the record kind (a webhook, a
    /// command, a snapshot of one subscription all take
    /// ``purchaseLockKey(_:_:_:)``), so two projectors never fold one
    /// purchase at once. Subscriptions reached only through the log (a
    /// Paystack renewal, a refund) are locked by the writer before it folds.
    static func lockKeys(_ input: ProjectionInput) -> [String] {
        switch input {
        case .webhook(let delivery):
            let e = delivery.event
            return [e.entityKey]
                + [
                    e.subscriptionID.map { purchaseLockKey(e.provider.rawValue, .subscription, $0) },
                    e.orderID.map { purchaseLockKey(e.provider.rawValue, .order, $0) },
                ].compactMap { $0 }
        case .checkout(let record):
            return [record.key]
        case .command(let command):
            return [command.key, purchaseLockKey(command.provider.rawValue, command.purchaseType, command.subscriptionID)]
                + (command.observed?.successor.map { [purchaseLockKey(command.provider.rawValue, .subscription, $0.subscriptionID)] } ?? [])
        case .userMerge(let merge):
            return [merge.key]
        case .grant(let grant):
            return [grant.key]
        }
    }

    /// The advisory-lock key of one purchase.
    static func purchaseLockKey(_ provider: String, _ type: PurchaseType, _ id: String) -> String {
        "purchase:\(provider):\(type.rawValue):\(id)"
    }

    /// - Parameter isCounted: false for a command's observation, which the command's own row counts.
    private mutating func add(_ delivery: WebhookDelivery, isCounted: Bool = true) throws {
        let e = delivery.event
        let provider = e.provider.rawValue, traits = e.provider.traits
        let at = e.orderingTimestamp ?? delivery.receivedAt
        let eventJSON = String(decoding: e.encodedRecord(), as: UTF8.self)
        let eventItem = items.count
        if isCounted { counted.append((eventItem, .event)) }
        items.append(
            PostgresBatchItem(
                ProjectionStatements.eventInsert(dedupKey: delivery.dedupKey, eventName: e.providerEventName),
                [
                    delivery.dedupKey, provider, e.providerEventName, e.kind.rawValue, e.entityKey, e.subscriptionID, e.orderID,
                    e.customerID, e.appUserID, e.orderingTimestamp, delivery.receivedAt, delivery.sourcePartition,
                    delivery.sourceOffset, PostgresJSON(text: eventJSON), delivery.payload,
                    e.productID.flatMap { traits.productIDIsAPlanCode ? $0 : nil },
                    e.checkoutID, e.transactionReference, e.authorizationCode,
                    e.recurringPrice?.amount, e.recurringPrice?.currency, e.recurringPrice?.interval.unit.rawValue,
                    e.recurringPrice.map { Int32($0.interval.count) },
                ]))
        // Unknown kinds are logged (kept for audit and replay) and change nothing else.
        if e.kind.isUnknown { return }

        let linkAt = e.orderingTimestamp ?? Self.epoch
        if let appUserID = e.appUserID {
            items.append(PostgresBatchItem(ProjectionStatements.appUser, [appUserID, e.customerEmail, linkAt]))
        }
        if let customerID = e.customerID {
            items.append(PostgresBatchItem(ProjectionStatements.customer, [provider, customerID, e.appUserID, e.customerEmail, linkAt]))
        }
        addOwnership(delivery)
        if let subscriptionID = e.subscriptionID {
            subscriptionKeys.insert(Pair(provider, subscriptionID))
            if e.orderID != nil || e.transactionReference != nil {
                paymentLinks.insert(
                    PaymentLink(provider: provider, subscriptionID: subscriptionID, orderID: e.orderID, reference: e.transactionReference))
            }
            subscriptionEvents.append((eventItem, Pair(provider, subscriptionID), .init(dedupKey: delivery.dedupKey, event: e)))
            if traits.subscriptionsHaveAFirstOrder, let orderID = e.orderID {
                items.append(PostgresBatchItem(ProjectionStatements.orderOfSubscription, [provider, orderID, subscriptionID]))
            }
            if traits.chargesLinkToSubscriptionsByCard, e.transactionReference != nil || e.authorizationCode != nil {
                refoldKeys.insert(Pair(provider, subscriptionID))
            }
        } else if traits.chargesLinkToSubscriptionsByCard, e.kind == .paymentSucceeded || e.kind == .paymentRecovered,
            let customer = e.customerID, let plan = e.productID
        {
            renewalLinks.insert(RenewalLink(provider: provider, customer: customer, plan: plan))
        }
        if Self.moneyBackKinds.contains(e.kind), let reference = e.transactionReference, e.subscriptionID == nil {
            moneyEvents.append((eventItem, Pair(provider, reference), delivery.dedupKey))
        }
        if e.kind == .orderRefunded, let orderID = e.orderID { refundedOrders.insert(Pair(provider, orderID)) }

        switch e.kind {
        case .orderCreated:
            if let orderID = e.orderID {
                items.append(
                    PostgresBatchItem(
                        ProjectionStatements.orderCreated,
                        [
                            provider, orderID, e.customerID, e.customerEmail, e.productID, e.variantID, e.planName,
                            e.amount, e.currency, e.paidAt ?? e.createdAt ?? at, e.transactionReference, e.testMode, e.checkoutID,
                        ]))
                if let reference = e.transactionReference {
                    items.append(PostgresBatchItem(ProjectionStatements.orderMoneyBack, [provider, reference]))
                }
            }
        case .orderRefunded:
            if let orderID = e.orderID {
                // Lemon Squeezy: `refunded_amount` below `total` is a partial refund.
                let full = e.refundedAmount.map { refunded in e.amount.map { refunded >= $0 } ?? true } ?? true
                items.append(
                    PostgresBatchItem(
                        ProjectionStatements.orderRefunded,
                        [
                            provider, orderID, e.customerID, e.customerEmail, e.productID, e.variantID, e.planName,
                            e.currency, at, e.refundedAmount ?? e.amount, e.transactionReference, full,
                        ]))
            }
        case .refundProcessed, .disputeCreated, .disputeReminder, .disputeResolved:
            if let reference = e.transactionReference {
                items.append(PostgresBatchItem(ProjectionStatements.orderMoneyBack, [provider, reference]))
            }
        case .paymentSucceeded, .paymentFailed, .paymentRecovered, .paymentRefunded, .invoiceCreated, .invoiceUpdated:
            if let paymentID = e.invoiceID ?? e.orderID ?? e.transactionReference {
                items.append(
                    PostgresBatchItem(
                        ProjectionStatements.payment,
                        [
                            provider, paymentID, e.subscriptionID, e.kind.rawValue, e.status, e.amount, e.currency, e.orderingTimestamp,
                        ]))
            }
        default:
            break
        }

        // Checkout completion, mirrored by the checkout insert's sub-select.
        switch e.kind {
        case .orderCreated, .subscriptionCreated, .paymentSucceeded:
            if let checkoutID = e.checkoutID {
                items.append(PostgresBatchItem(ProjectionStatements.completeByID, [provider, checkoutID, at]))
            } else if e.kind != .paymentSucceeded, let appUserID = e.appUserID {
                items.append(PostgresBatchItem(ProjectionStatements.completeByUser, [provider, appUserID, at]))
            }
        default:
            break
        }
    }

    /// Records the evidence of who owns what the delivery is about (ranked
    /// in `purchase_owners`, see ``ProjectionSchema``): the purchase's own
    /// custom data or metadata, when its proof checked out (Lemon Squeezy:
    /// every event of the purchase; Paystack: the charge); for a Paystack
    /// subscription, which has no metadata of its own, the charge that
    /// created it through their shared authorization; for a Lemon Squeezy
    /// purchase seen only through a provider fetch, the checkouts that could
    /// have opened it. Customers and typed emails never decide.
    private mutating func addOwnership(_ delivery: WebhookDelivery) {
        let e = delivery.event
        let provider = e.provider.rawValue, traits = e.provider.traits
        let at = e.orderingTimestamp ?? delivery.receivedAt
        if let appUserID = e.appUserID {
            if traits.subscriptionEventsNameTheOwner, let subscriptionID = e.subscriptionID {
                items.append(
                    PostgresBatchItem(
                        ProjectionStatements.owner,
                        [
                            provider, PurchaseType.subscription.rawValue, subscriptionID, appUserID, "custom_data", delivery.dedupKey,
                        ]))
            }
            if e.kind == .orderCreated || e.kind == .orderRefunded, let orderID = e.orderID {
                items.append(
                    PostgresBatchItem(
                        ProjectionStatements.owner,
                        [
                            provider, PurchaseType.order.rawValue, orderID, appUserID, "custom_data", delivery.dedupKey,
                        ]))
            }
            if traits.chargesLinkToSubscriptionsByCard, e.kind == .paymentSucceeded, let code = e.authorizationCode, let customer = e.customerID {
                items.append(
                    PostgresBatchItem(ProjectionStatements.ownerOfChargedSubscriptions, [provider, appUserID, delivery.dedupKey, code, customer, at]))
                items.append(PostgresBatchItem(ProjectionStatements.syncChargedSubscriptionOwners, [provider, code, customer]))
            }
        }
        if traits.fetchedPurchasesMatchCheckouts, e.appUserID == nil, e.isFromSnapshot,
            let variant = e.variantID.flatMap({ CatalogID(provider: e.provider, rawID: $0) }), let email = e.customerEmail,
            let created = e.createdAt
        {
            let purchase: (PurchaseType, String)? =
                e.kind == .subscriptionObserved
                ? e.subscriptionID.map { (.subscription, $0) }
                : e.kind == .orderCreated ? e.orderID.map { (.order, $0) } : nil
            if let (type, id) = purchase {
                items.append(
                    PostgresBatchItem(ProjectionStatements.ownerFromCheckout, [provider, type.rawValue, id, variant.description, email, created]))
            }
        }
        if traits.chargesLinkToSubscriptionsByCard, SubscriptionFold.subscriptionObjectKinds.contains(e.kind),
            let subscriptionID = e.subscriptionID, let code = e.authorizationCode, let customer = e.customerID
        {
            items.append(PostgresBatchItem(ProjectionStatements.ownerFromCharge, [provider, subscriptionID, code, customer, at]))
        }
    }

    /// A command is audited; a provider-confirmed cancel, resume or plan change also
    /// enters the log as what the provider answered (a
    /// ``BillingEventKind/subscriptionObserved`` event, so the fold orders it
    /// with the webhooks), and a claim records the owner it names.
    private mutating func add(_ command: SubscriptionCommand) throws {
        counted.append((items.count, .record))
        items.append(
            PostgresBatchItem(
                ProjectionStatements.command,
                [
                    command.commandID, command.kind.rawValue, command.provider.rawValue, command.subscriptionID,
                    command.appUserID, command.requestedAt, command.refund?.requestedBy, command.refund?.paymentID,
                    command.refund?.amount, command.refund?.outcome.rawValue,
                ]))
        let provider = command.provider.rawValue
        if command.kind == .claimByEmail || command.kind == .redeem {
            items.append(
                PostgresBatchItem(
                    ProjectionStatements.firstClaim,
                    [
                        provider, command.purchaseType.rawValue, command.subscriptionID, command.appUserID, "command:\(command.commandID)",
                        command.kind == .redeem ? "redemption" : "email",
                    ]))
            let sync = command.purchaseType == .order ? ProjectionStatements.syncOrderOwner : ProjectionStatements.syncSubscriptionOwner
            items.append(PostgresBatchItem(sync, [provider, command.subscriptionID]))
            return
        }
        guard let observed = command.observed else { return }
        var event = Self.observedEvent(command, subscriptionID: command.subscriptionID, at: observed.observedAt)
        event.status = observed.status
        event.renewsAt = observed.renewsAt
        event.endsAt = observed.endsAt
        event.cancelled = observed.cancelled
        event.emailToken = observed.emailToken
        // After a plan change, the plan the provider answered with: the entitlement follows it at once.
        event.productID = observed.productID
        event.variantID = observed.variantID
        event.planName = observed.planName
        event.pendingVariantID = observed.pendingVariantID
        event.pendingChangeAt = observed.pendingChangeAt
        try addObserved(event, dedupKey: "command:\(command.commandID)", of: command, at: observed.observedAt)
        if let successor = observed.successor { try add(successor, of: command, observed: observed) }
    }

    /// The subscription a plan change created to take over at the period end
    /// (Paystack): it belongs to the user who asked, the owner of the one it
    /// replaces (`plan_change` evidence; it carries no metadata, nor will
    /// its charges), and enters the log as the provider answered, with the
    /// date it starts, before which it grants nothing.
    private mutating func add(_ successor: ObservedSubscription.Successor, of command: SubscriptionCommand, observed: ObservedSubscription) throws {
        let provider = command.provider.rawValue
        items.append(
            PostgresBatchItem(
                ProjectionStatements.firstClaim,
                [
                    provider, PurchaseType.subscription.rawValue, successor.subscriptionID, command.appUserID, "command:\(command.commandID)",
                    "plan_change",
                ]))
        items.append(PostgresBatchItem(ProjectionStatements.syncSubscriptionOwner, [provider, successor.subscriptionID]))
        var event = Self.observedEvent(command, subscriptionID: successor.subscriptionID, at: observed.observedAt)
        event.status = successor.status
        event.renewsAt = successor.startsAt
        event.startsAt = successor.startsAt
        event.replacesSubscriptionID = command.subscriptionID
        event.productID = observed.pendingVariantID
        event.variantID = observed.pendingVariantID
        try addObserved(event, dedupKey: "command:\(command.commandID):successor", of: command, at: observed.observedAt)
    }

    /// What the provider answered a command, as an event of the subscription's log, ordered by when it answered.
    static func observedEvent(_ command: SubscriptionCommand, subscriptionID: String, at: Date) -> BillingEvent {
        var event = BillingEvent(
            kind: .subscriptionObserved, provider: command.provider, providerEventName: BillingEvent.observationNamePrefix + command.kind.rawValue,
            entityKey: command.key)
        event.subscriptionID = subscriptionID
        event.orderingTimestamp = at
        return event
    }

    /// Logs a command's observation. Not from the webhook topic: partition
    /// and offset -1; the command's own record is the payload (and the
    /// `commands` row counts it).
    private mutating func addObserved(_ event: BillingEvent, dedupKey: String, of command: SubscriptionCommand, at: Date) throws {
        try add(
            WebhookDelivery(
                dedupKey: dedupKey, event: event, receivedAt: at, payload: try RecordCoding.encode(command), sourcePartition: -1, sourceOffset: -1),
            isCounted: false)
    }

    /// A merge is recorded once per anonymous id (the first stands); the
    /// purchases whose evidence names the anonymous id then name whoever
    /// `purchase_owner` says, which reads the merge.
    private mutating func add(_ merge: UserMergeCommand) {
        counted.append((items.count, .record))
        items.append(
            PostgresBatchItem(
                ProjectionStatements.userMerge, [merge.anonymousUserID, merge.appUserID, merge.commandID, merge.requestedAt]))
        items.append(PostgresBatchItem(ProjectionStatements.syncMergedSubscriptions, [merge.anonymousUserID]))
        items.append(PostgresBatchItem(ProjectionStatements.syncMergedOrders, [merge.anonymousUserID]))
    }

    /// A grant is recorded once; a revocation ends it once. Both touch the
    /// user (in the statement), so the outbox announces what changed.
    private mutating func add(_ grant: GrantCommand) {
        counted.append((items.count, .record))
        switch grant.action {
        case .grant(let entitlement, let startsAt, let expiresAt):
            items.append(
                PostgresBatchItem(
                    ProjectionStatements.grantGiven,
                    [
                        grant.grantID, grant.appUserID, entitlement, startsAt, expiresAt, grant.requestedBy, grant.commandID, grant.reason,
                        grant.requestedAt,
                    ]))
        case .revoke:
            items.append(
                PostgresBatchItem(
                    ProjectionStatements.grantRevoked,
                    [grant.grantID, grant.appUserID, grant.requestedAt, grant.requestedBy, grant.commandID, grant.reason]))
        }
    }

    private mutating func add(_ record: CheckoutCreatedRecord) {
        counted.append((items.count, .record))
        items.append(
            PostgresBatchItem(
                ProjectionStatements.checkout,
                [
                    record.checkoutID, record.provider.rawValue, record.appUserID, record.email ?? "",
                    record.productID?.description, record.variantID.description, record.providerCheckoutID, record.url,
                    record.createdAt, record.expiresAt, record.emailVerified, record.isSubscription, record.ref,
                    record.appStore?.storefront.code, record.appStore?.externalPurchaseID, record.appStore?.tokenType?.rawValue,
                ]))
        // An anonymous checkout has no user to record.
        if let appUserID = record.appUserID {
            items.append(PostgresBatchItem(ProjectionStatements.appUser, [appUserID, record.email, record.createdAt]))
        }
    }

    /// Refunds and disputes: linked to the purchase they paid for through the log.
    static let moneyBackKinds: Set<BillingEventKind> = [.refundProcessed, .disputeCreated, .disputeReminder, .disputeResolved]

    /// A JSON array of strings (or of string pairs), bound as one parameter.
    static func jsonArray<T: Encodable>(_ values: [T]) throws -> String {
        String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
    }
}
