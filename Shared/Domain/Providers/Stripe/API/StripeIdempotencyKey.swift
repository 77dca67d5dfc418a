import BillingModel
import Webhooks
import CryptoPrimitives

/// The `Idempotency-Key` of Stripe POSTs. Stripe keeps a key's answer for at
/// least 24 hours and replays it to a repeat with the same parameters (and
/// refuses the key with other parameters), so a key must name exactly one
/// intended call.
enum StripeIdempotencyKey {
    /// Stripe's limit on a key's length.
    static let maximumLength = 255

    /// A checkout's key comes from Storefront's checkout id: the caller's own
    /// retry of the same checkout (not only the transport's) gets the session
    /// already created rather than a second one. An id unfit for a key
    /// (empty, unusual characters, too long) gets none: the caller makes a random one.
    static func checkout(_ checkoutID: String) -> String? {
        guard ProviderIDs.isSafe(checkoutID) else { return nil }
        return "storefront-checkout-" + checkoutID
    }

    /// A key for one call: 24 random hex digits after the operation's name.
    /// Each cancel, resume or portal request is its own intent (a cancel,
    /// resume, cancel again within a day must not replay the first cancel).
    /// Nil only when the system's random source fails.
    static func random(_ operation: String) -> String? {
        guard let bytes = try? SecureRandom.bytes(count: 12) else { return nil }
        return "storefront-\(operation)-" + Hex.encode(bytes)
    }

    /// A refund's key comes from the command id Storefront gave the refund
    /// request (itself kept per the caller's `Idempotency-Key`): every attempt
    /// at one intended refund sends the same key, so Stripe refunds once.
    static func refund(_ commandID: String) -> String? {
        guard ProviderIDs.isSafe(commandID) else { return nil }
        return "storefront-refund-" + commandID
    }
}
