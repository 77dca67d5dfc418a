import Foundation
import JSONCodec

// The entitlement outbox writes, for every user a projector batch touched,
// the user's list of entitlements (compared with the one last announced) and,
// when it changed, the change record. With `JSONEncoder` that was a fifth of
// the projector's CPU while catching up; these write the same bytes by hand:
// the keys sorted, slashes unescaped, timestamps as ``Timestamp/format(_:)``,
// absent values as `null`, exactly as ``RecordCoding/encode(_:)`` writes
// the `Codable` forms (EntitlementRecordTests compares the two).

extension EntitlementInfo {
    /// `RecordCoding.encode(list)`'s bytes.
    public static func encodedList(_ list: [EntitlementInfo]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(2 + list.count * 560)
        appendList(list, to: &out)
        return out
    }

    static func appendList(_ list: [EntitlementInfo], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, entitlement) in list.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            entitlement.append(to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// The object, keys in sorted order.
    func append(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"billing_issue_detected_at":"#.utf8)
        RecordText.appendTimestamp(billingIssueDetectedAt, to: &out)
        out.append(contentsOf: #","dispute_detected_at":"#.utf8)
        RecordText.appendTimestamp(disputeDetectedAt, to: &out)
        out.append(contentsOf: #","expires_at":"#.utf8)
        RecordText.appendTimestamp(expiresAt, to: &out)
        out.append(contentsOf: #","grant_id":"#.utf8)
        if let grantID { JSONText.appendQuoted(grantID, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","identifier":"#.utf8)
        JSONText.appendQuoted(identifier, to: &out)
        out.append(contentsOf: #","is_active":"#.utf8)
        RecordText.appendBool(isActive, to: &out)
        out.append(contentsOf: #","latest_purchase_at":"#.utf8)
        RecordText.appendTimestamp(latestPurchaseAt, to: &out)
        out.append(contentsOf: #","original_purchase_at":"#.utf8)
        RecordText.appendTimestamp(originalPurchaseAt, to: &out)
        out.append(contentsOf: #","period_type":"#.utf8)
        JSONText.appendQuoted(periodType.rawValue, to: &out)
        out.append(contentsOf: #","product_id":"#.utf8)
        JSONText.appendQuoted(productID, to: &out)
        out.append(contentsOf: #","provider":"#.utf8)
        JSONText.appendQuoted(store, to: &out)
        out.append(contentsOf: #","refunded_at":"#.utf8)
        RecordText.appendTimestamp(refundedAt, to: &out)
        out.append(contentsOf: #","sandbox":"#.utf8)
        RecordText.appendBool(sandbox, to: &out)
        out.append(contentsOf: #","source":"#.utf8)
        JSONText.appendQuoted(source.rawValue, to: &out)
        out.append(contentsOf: #","store":"#.utf8)
        JSONText.appendQuoted(store, to: &out)
        out.append(contentsOf: #","unsubscribe_detected_at":"#.utf8)
        RecordText.appendTimestamp(unsubscribeDetectedAt, to: &out)
        out.append(contentsOf: #","will_renew":"#.utf8)
        RecordText.appendBool(willRenew, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension EntitlementsResponse {
    func append(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"entitlements":"#.utf8)
        EntitlementInfo.appendList(entitlements, to: &out)
        out.append(contentsOf: #","success":"#.utf8)
        RecordText.appendBool(success, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension EntitlementChange {
    /// `RecordCoding.encode(self)`'s bytes.
    public func encodedChange() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(300 + (before.entitlements.count + after.entitlements.count) * 560)
        out.append(contentsOf: #"{"after":"#.utf8)
        after.append(to: &out)
        out.append(contentsOf: #","app_user_id":"#.utf8)
        JSONText.appendQuoted(appUserID, to: &out)
        out.append(contentsOf: #","before":"#.utf8)
        before.append(to: &out)
        out.append(contentsOf: #","cause":{"kind":"#.utf8)
        JSONText.appendQuoted(cause.kind.rawValue, to: &out)
        out.append(contentsOf: #","provider":"#.utf8)
        if let provider = cause.provider { JSONText.appendQuoted(provider.rawValue, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","reference":"#.utf8)
        JSONText.appendQuoted(cause.reference, to: &out)
        out.append(contentsOf: #"},"id":"#.utf8)
        JSONText.appendQuoted(id, to: &out)
        out.append(contentsOf: #","occurred_at":"#.utf8)
        RecordText.appendTimestamp(occurredAt, to: &out)
        out.append(contentsOf: #","type":"#.utf8)
        JSONText.appendQuoted(type.rawValue, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// The scalar forms the `Codable` records use.
enum RecordText {
    static func appendTimestamp(_ date: Date?, to out: inout [UInt8]) {
        if let date { JSONText.appendQuoted(Timestamp.format(date), to: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    static func appendBool(_ value: Bool, to out: inout [UInt8]) {
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }
}

extension EntitlementInfo {
    /// Why a timestamp has no record form that reads back.
    public struct UnrecordableTimestamp: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The entitlement as its record reads back (`RecordCoding.decode` of
    /// ``encodedList(_:)``), without writing and parsing the JSON: each
    /// timestamp at the record's precision (``Timestamp/format(_:)``, then
    /// ``Timestamp/parse(_:)``), everything else as it is.
    /// - Throws: ``UnrecordableTimestamp`` where decoding the record would fail.
    public func asRecorded() throws -> EntitlementInfo {
        func recorded(_ date: Date?) throws -> Date? {
            guard let date else { return nil }
            let text = Timestamp.format(date)
            guard let read = Timestamp.parse(text) else { throw UnrecordableTimestamp(description: "not an ISO-8601 timestamp: \(text.prefix(40))") }
            return read
        }
        var copy = self
        copy.expiresAt = try recorded(expiresAt)
        copy.latestPurchaseAt = try recorded(latestPurchaseAt)
        copy.originalPurchaseAt = try recorded(originalPurchaseAt)
        copy.unsubscribeDetectedAt = try recorded(unsubscribeDetectedAt)
        copy.billingIssueDetectedAt = try recorded(billingIssueDetectedAt)
        copy.disputeDetectedAt = try recorded(disputeDetectedAt)
        copy.refundedAt = try recorded(refundedAt)
        return copy
    }
}
