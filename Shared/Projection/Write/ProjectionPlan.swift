import Foundation
import Models
import Postgres

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
    /// Paystack renewals without a subscription code: (customer code, plan code).
    private(set) var renewalLinks = Set<Pair>()

    struct Pair: Hashable {
        var first: String
        var second: String
        init(_ first: String, _ second: String) { self.first = first; self.second = second }
    }

    /// Floor for events without a provider timestamp (they lose every tie on time).
    static let epoch = Date(timeIntervalSince1970: 0)

    init(_ inputs: [ProjectionInput]) throws {
        var lockKeys = Set<String>()
        var seen = Set<String>()
        items.append(PostgresBatchItem(statement: ProjectionStatements.lock.name, binds: []))
        for input in inputs {
            switch input {
            case .webhook(let delivery):
                lockKeys.insert(delivery.event.entityKey)
                if !seen.insert(delivery.dedupKey).inserted { repeatedInBatch += 1; continue }
                try add(delivery)
            case .checkout(let record):
                lockKeys.insert(record.key)
                add(record)
            case .command(let command):
                counted.append((items.count, .record))
                items.append(PostgresBatchItem(ProjectionStatements.command, [
                    command.commandID, command.kind.rawValue, command.provider.rawValue, command.subscriptionID,
                    command.appUserID, command.requestedAt,
                ]))
            }
        }
        items[0] = PostgresBatchItem(ProjectionStatements.lock, [try Self.jsonArray(lockKeys.sorted())])
    }

    private mutating func add(_ delivery: WebhookDelivery) throws {
        let e = delivery.event
        let provider = e.provider.rawValue
        let at = e.orderingTimestamp ?? delivery.receivedAt
        let eventJSON = String(decoding: try RecordCoding.encode(e), as: UTF8.self)
        counted.append((items.count, .event))
        items.append(PostgresBatchItem(ProjectionStatements.event, [
            delivery.dedupKey, provider, e.providerEventName, e.kind.rawValue, e.entityKey, e.subscriptionID, e.orderID,
            e.customerID, e.appUserID, e.orderingTimestamp, delivery.receivedAt, delivery.sourcePartition,
            delivery.sourceOffset, PostgresJSON(text: eventJSON), delivery.payload, e.productID.flatMap { e.provider == .paystack ? $0 : nil },
            e.checkoutID, e.transactionReference,
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
        if let subscriptionID = e.subscriptionID {
            subscriptionKeys.insert(Pair(provider, subscriptionID))
        } else if e.provider == .paystack, e.kind == .paymentSucceeded || e.kind == .paymentRecovered,
                  let customer = e.customerID, let plan = e.productID {
            renewalLinks.insert(Pair(customer, plan))
        }

        switch e.kind {
        case .orderCreated:
            if let orderID = e.orderID {
                items.append(PostgresBatchItem(ProjectionStatements.orderCreated, [
                    provider, orderID, e.appUserID, e.customerID, e.customerEmail, e.productID, e.variantID, e.planName,
                    e.amount, e.currency, e.paidAt ?? e.createdAt ?? at, e.transactionReference,
                ]))
                if let reference = e.transactionReference {
                    items.append(PostgresBatchItem(ProjectionStatements.orderEarlierRefunds, [provider, orderID, reference]))
                }
            }
        case .orderRefunded:
            if let orderID = e.orderID {
                items.append(PostgresBatchItem(ProjectionStatements.orderRefunded, [
                    provider, orderID, e.appUserID, e.customerID, e.customerEmail, e.productID, e.variantID, e.planName,
                    e.currency, at, e.amount, e.transactionReference,
                ]))
            }
        case .refundProcessed:
            if let reference = e.transactionReference {
                items.append(PostgresBatchItem(ProjectionStatements.orderRefundedByReference, [provider, reference, at, e.amount]))
            }
        case .paymentSucceeded, .paymentFailed, .paymentRecovered, .paymentRefunded, .invoiceCreated, .invoiceUpdated:
            if let paymentID = e.invoiceID ?? e.orderID ?? e.transactionReference {
                items.append(PostgresBatchItem(ProjectionStatements.payment, [
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

    private mutating func add(_ record: CheckoutCreatedRecord) {
        counted.append((items.count, .record))
        items.append(PostgresBatchItem(ProjectionStatements.checkout, [
            record.checkoutID, record.provider.rawValue, record.appUserID, record.email ?? "",
            record.productID?.description, record.variantID.description, record.providerCheckoutID, record.url,
            record.createdAt, record.expiresAt,
        ]))
        items.append(PostgresBatchItem(ProjectionStatements.appUser, [record.appUserID, record.email, record.createdAt]))
    }

    /// A JSON array of strings (or of string pairs), bound as one parameter.
    static func jsonArray<T: Encodable>(_ values: [T]) throws -> String {
        String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
    }
}
