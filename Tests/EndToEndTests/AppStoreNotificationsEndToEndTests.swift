import Foundation
import HTTPClient
import Postgres
import TestSupport
import Testing

/// App Store notifications on the contract suite's stack: the sandbox signs
/// them with its own Apple-shaped chain, whose root the receivers trust
/// (stack.sh), and sends them through the gateway to /api/webhooks/apple;
/// the webhook-sender records and reconciles them.
extension ContractTests {
    /// Has the sandbox send one notification; returns the receiver's status and the notification's UUID.
    static func sendAppleNotification(
        _ stack: LiveStack, token: String, signedBy: String = "sandbox", uuid: String? = nil
    ) async throws -> (status: Int, uuid: String) {
        var body = #"{"externalPurchaseId":"\#(token)","subtype":"UNREPORTED","signed_by":"\#(signedBy)""#
        if let uuid { body += #","notificationUUID":"\#(uuid)""# }
        let sent = try await stack.request(.post, stack.sandbox + "/_sandbox/apple/notifications", json: body + "}")
        #expect(sent.status == 200, "\(sent.bodyString)")
        let answer = (try JSONSerialization.jsonObject(with: Data(sent.body)) as? [String: Any]) ?? [:]
        return (try #require(answer["status"] as? Int), try #require(answer["notificationUUID"] as? String))
    }

    /// The recorded findings of `token`'s notifications.
    static func notificationFindings(_ stack: LiveStack, token: String) async throws -> [String] {
        try await stack.withDatabase { pool in
            try await pool.query("SELECT finding FROM app_store_notifications WHERE external_purchase_id = \(token) ORDER BY received_at")
                .map { try $0.decode(String.self) }
        }
    }

    @Test func anUnreportedTokenNoCheckoutCarriedIsRecordedOnceAndReportedUnrecognized() async throws {
        let stack = try self.stack
        let token = "SANDBOX_e2e-unknown-\(UUID().uuidString.lowercased())"
        let first = try await Self.sendAppleNotification(stack, token: token)
        #expect(first.status == 200)
        let findings = try await stack.eventually(timeout: .seconds(60), "the notification recorded") { () -> [String]? in
            let found = try await Self.notificationFindings(stack, token: token)
            return found.isEmpty ? nil : found
        }
        #expect(findings == ["unknown_token"])
        // Apple gets the token reported as unrecognized, by the reporter, once.
        let report = try await stack.eventually(timeout: .seconds(60), "the token reported unrecognized") { () -> [String: Any]? in
            try await Self.appleReports(stack, token: token).first
        }
        #expect(report["status"] as? String == "UNRECOGNIZED_TOKEN" && report["lineItems"] == nil)

        // Apple's retry of the same notification changes nothing.
        #expect(try await Self.sendAppleNotification(stack, token: token, uuid: first.uuid).status == 200)
        try await Task.sleep(for: .seconds(3))
        #expect(try await Self.notificationFindings(stack, token: token) == ["unknown_token"])
        #expect(try await Self.appleReports(stack, token: token).count == 1)
    }

    @Test func aNotificationSignedUnderAnotherRootIs401AndChangesNothing() async throws {
        let stack = try self.stack
        let token = "SANDBOX_e2e-stranger-\(UUID().uuidString.lowercased())"
        let refused = try await Self.sendAppleNotification(stack, token: token, signedBy: "stranger")
        #expect(refused.status == 401)
        // A genuine one sent after it is recorded; the stranger's never is.
        let accepted = try await Self.sendAppleNotification(stack, token: token)
        #expect(accepted.status == 200)
        _ = try await stack.eventually(timeout: .seconds(60), "the genuine notification recorded") { () -> Bool? in
            try await Self.notificationFindings(stack, token: token).isEmpty ? nil : true
        }
        let uuids = try await stack.withDatabase { pool in
            try await pool.query("SELECT notification_uuid FROM app_store_notifications WHERE external_purchase_id = \(token)")
                .map { try $0.decode(String.self) }
        }
        #expect(uuids == [accepted.uuid])
    }

    @Test func anUnreportedTokenACheckoutCarriedIsLeftToTheReporter() async throws {
        let stack = try self.stack
        let buyer = try await PurchaseFlow.make(stack, provider: "stripe")
        let product = try await buyer.oneTimeProduct()
        let token = "SANDBOX_e2e-known-\(buyer.subject)"
        _ = try await openCheckout(stack, buyer, product, storefront: "NLD", tokenID: token)
        // The projection holds the token once its checkout record is applied.
        _ = try await stack.eventually(timeout: .seconds(60), "the token in the projection") { () -> Bool? in
            try await stack.withDatabase { pool in
                try await pool.query("SELECT 1 FROM app_store_tokens WHERE external_purchase_id = \(token)").isEmpty ? nil : true
            }
        }
        #expect(try await Self.sendAppleNotification(stack, token: token).status == 200)
        let findings = try await stack.eventually(timeout: .seconds(60), "the notification recorded") { () -> [String]? in
            let found = try await Self.notificationFindings(stack, token: token)
            return found.isEmpty ? nil : found
        }
        // Nothing bought yet and younger than APP_STORE_REPORTS_NO_PURCHASE_AFTER: no line, nothing invented.
        #expect(findings == ["not_yet_reported"])
        #expect(try await Self.appleReports(stack, token: token).isEmpty)
    }
}
