import Foundation
import BillingModel
import Entitlements

extension RevenueLog {
    /// One row of the log, decoded: what ``RevenueLog`` keeps of it.
    public struct Entry: Sendable {
        /// Nil for a refund or dispute of no subscription (a one-time order's).
        public var subscription: SubscriptionKey?
        public var logged: SubscriptionFold.LoggedEvent

        /// A refund or dispute: counted as money given back, subscription or not.
        var isMoney: Bool { Self.moneyKinds.contains(logged.event.kind) }

        static let moneyKinds: Set<BillingEventKind> = [.orderRefunded, .paymentRefunded, .refundProcessed, .disputeCreated]

        public init(provider: Provider, subscriptionID: String?, dedupKey: String, event: BillingEvent) {
            subscription = subscriptionID.map { SubscriptionKey(provider: provider, subscriptionID: $0) }
            logged = SubscriptionFold.LoggedEvent(dedupKey: dedupKey, event: event)
        }

        /// A row's columns decoded; nil when its provider or event JSON cannot
        /// be read. The price is the columns', not the JSON's: what the
        /// projector recorded for the report.
        init?(provider name: String, subscriptionID: String?, dedupKey: String, json: String, price: RecurringPrice?) {
            guard let provider = Provider(rawValue: name), var event = try? RecordCoding.decode(BillingEvent.self, from: Array(json.utf8)) else {
                return nil
            }
            event.recurringPrice = price
            self.init(provider: provider, subscriptionID: subscriptionID, dedupKey: dedupKey, event: event)
        }
    }
}
