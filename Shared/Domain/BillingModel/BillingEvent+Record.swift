import Foundation
import JSONCodec

extension BillingEvent {
    /// The event as JSON, exactly the bytes ``RecordCoding/encode(_:)`` writes
    /// for it (sorted keys, slashes unescaped, absent optionals left out),
    /// written by hand: the projector logs every event it applies, and
    /// `JSONEncoder` was a sixth of its CPU while catching up.
    ///
    /// Keys are written in JSONEncoder's sorted order. A test compares the
    /// bytes with `RecordCoding.encode` for an event with every field set,
    /// so a field added to the `Codable` conformance and not here fails it.
    public func encodedRecord() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(768)
        var writer = RecordObjectWriter(out: out)
        writer.int("amount", amount)
        writer.string("appUserId", appUserID)
        writer.string("authorizationCode", authorizationCode)
        writer.bool("cancelled", cancelled)
        writer.string("cardBrand", cardBrand)
        writer.string("cardLastFour", cardLastFour)
        writer.string("checkoutId", checkoutID)
        writer.date("createdAt", createdAt)
        writer.string("currency", currency)
        writer.map("customData", customData)
        writer.string("customerEmail", customerEmail)
        writer.string("customerId", customerID)
        writer.string("customerPortalUrl", customerPortalURL)
        writer.string("disputeResolution", disputeResolution)
        writer.string("emailToken", emailToken)
        writer.date("endsAt", endsAt)
        writer.string("entityKey", entityKey)
        writer.string("invoiceId", invoiceID)
        writer.string("kind", kind.rawValue)
        writer.date("nextPaymentDate", nextPaymentDate)
        writer.string("orderId", orderID)
        writer.date("orderingTimestamp", orderingTimestamp)
        writer.date("paidAt", paidAt)
        writer.string("pauseMode", pauseMode)
        writer.date("pauseResumesAt", pauseResumesAt)
        writer.date("pendingChangeAt", pendingChangeAt)
        writer.string("pendingVariantId", pendingVariantID)
        writer.string("planName", planName)
        writer.string("productId", productID)
        writer.string("provider", provider.rawValue)
        writer.string("providerEventName", providerEventName)
        writer.recurringPrice("recurringPrice", recurringPrice)
        writer.int("refundedAmount", refundedAmount)
        writer.date("renewsAt", renewsAt)
        writer.string("replacesSubscriptionId", replacesSubscriptionID)
        writer.date("startsAt", startsAt)
        writer.string("status", status)
        writer.string("subscriptionId", subscriptionID)
        writer.bool("testMode", testMode)
        writer.string("transactionReference", transactionReference)
        writer.date("trialEndsAt", trialEndsAt)
        writer.string("updatePaymentMethodUrl", updatePaymentMethodURL)
        writer.date("updatedAt", updatedAt)
        writer.string("variantId", variantID)
        return writer.finish()
    }
}

/// Writes one JSON object member by member, in the order given; nil values
/// are left out, as `encodeIfPresent` does.
struct RecordObjectWriter {
    private var out: [UInt8]
    private var first = true

    init(out: [UInt8]) {
        self.out = out
        self.out.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ name: StaticString) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        JSONText.appendQuoted(value, to: &out)
    }

    mutating func bool(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func int(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        key(name)
        out.append(contentsOf: String(value).utf8)
    }

    mutating func date(_ name: StaticString, _ value: Date?) {
        string(name, value.map(Timestamp.format))
    }

    /// A ``RecurringPrice`` as JSONEncoder writes it: its keys and its interval's sorted.
    mutating func recurringPrice(_ name: StaticString, _ value: RecurringPrice?) {
        guard let value else { return }
        var interval = RecordObjectWriter(out: [])
        interval.int("count", Int64(value.interval.count))
        interval.string("unit", value.interval.unit.rawValue)
        var price = RecordObjectWriter(out: [])
        price.int("amount", value.amount)
        price.string("currency", value.currency)
        price.raw("interval", interval.finish())
        raw(name, price.finish())
    }

    /// A member whose value is JSON written already.
    mutating func raw(_ name: StaticString, _ json: [UInt8]) {
        key(name)
        out.append(contentsOf: json)
    }

    /// A string map with its keys sorted by their UTF-8 bytes, as JSONEncoder's `.sortedKeys` does.
    mutating func map(_ name: StaticString, _ value: [String: String]) {
        key(name)
        out.append(UInt8(ascii: "{"))
        for (index, member) in value.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendQuoted(member.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    consuming func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out
    }
}
