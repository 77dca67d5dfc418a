import Testing
@testable import SandboxKit

/// Paystack chargebacks through `POST /_sandbox/paystack/transactions/{reference}/dispute`:
/// the `charge.dispute.*` webhooks in the docs' shape and the dispute's state machine.
@Suite struct DisputeTests {
    func dispute(_ h: Harness, _ reference: String, _ body: JSONValue) async -> SandboxResponse {
        await h.control("POST", "/paystack/transactions/\(reference)/dispute", body: body)
    }

    func verifyStatus(_ h: Harness, _ reference: String) async -> String? {
        await h.ps("GET", "/transaction/verify/\(reference)").json?["data"]?["status"]?.stringValue
    }

    @Test func createRemindDeclineSendTheDocumentedShape() async throws {
        let h = Harness()
        let (reference, _) = try #require(await h.psSubscribe(metadata: ["user_id": "42"]))
        let early = await dispute(h, reference, ["action": "resolve", "resolution": "declined"])
        #expect(early.status == 422)
        #expect(early.json?["error"]?.stringValue?.contains("create one first") == true)
        #expect(await dispute(h, reference, ["action": "remind"]).status == 422)
        #expect(await dispute(h, reference, ["action": "escalate"]).status == 422)
        #expect(await dispute(h, reference, [:]).status == 422)
        #expect(await dispute(h, "no-such-reference", ["action": "create"]).status == 404)
        var mark = await h.mark()
        #expect(mark == 2) // nothing was sent for the refusals

        let created = await dispute(h, reference, ["action": "create", "amount": 100_000])
        #expect(created.status == 200)
        #expect(created.json?["events"] == ["charge.dispute.create"])
        let disputeID = try #require(created.json?["dispute"]?["id"]?.intValue)
        let sent = try #require(await h.delivered(after: mark).first)
        #expect(sent.psEvent == "charge.dispute.create")
        #expect(sent.header("x-paystack-signature") == FakeHMAC.hex("fake512-", Array(Harness.psKey.utf8), sent.body))
        let data = try #require(sent.json["data"])
        let keys = Set(data.objectValue?.map(\.key) ?? [])
        #expect(
            keys.isSuperset(of: [
                "id", "refund_amount", "currency", "status", "resolution", "domain", "transaction", "category", "customer", "bin", "last4", "dueAt",
                "resolvedAt", "history", "messages", "created_at", "updated_at",
            ]))
        #expect(data["id"]?.intValue == disputeID)
        #expect(data["refund_amount"] == .int(100_000))
        #expect(data["currency"]?.stringValue == "NGN")
        #expect(data["status"]?.stringValue == "awaiting-merchant-feedback")
        #expect(data["resolution"] == .null)
        #expect(data["domain"]?.stringValue == "test")
        #expect(data["category"]?.stringValue == "chargeback")
        #expect(data["bin"]?.stringValue == "408408")
        #expect(data["last4"]?.stringValue == "4081")
        #expect(data["created_at"]?.stringValue == "2025-06-15T15:06:40.000Z")
        #expect(data["dueAt"]?.stringValue == "2025-06-16T15:06:40.000Z")
        #expect(data["resolvedAt"] == .null)
        #expect(data["history"]?[0]?["status"]?.stringValue == "pending")
        #expect(data["messages"]?.arrayValue?.count == 1)
        #expect(data["customer"]?["email"]?.stringValue == "payer@example.com")
        #expect(data["customer"]?["customer_code"]?.stringValue?.hasPrefix("CUS_") == true)
        #expect(data["customer"]?["id"]?.intValue != nil)
        let transaction = try #require(data["transaction"])
        #expect(transaction["reference"]?.stringValue == reference)
        #expect(transaction["id"]?.intValue != nil)
        #expect(transaction["amount"] == .int(250_000))
        #expect(transaction["currency"]?.stringValue == "NGN")
        #expect(transaction["status"]?.stringValue == "success")
        #expect(transaction["paid_at"]?.stringValue == "2025-06-15T15:06:40.000Z")
        #expect(transaction["metadata"] == ["user_id": "42"]) // the transaction's own metadata
        #expect(transaction["plan"]?["plan_code"]?.stringValue == "PLN_sbxpremmonth01")
        #expect(transaction["authorization"] == [:])
        #expect(transaction["customer"] != nil)

        // One open dispute per transaction.
        #expect(await dispute(h, reference, ["action": "create"]).status == 422)

        h.clock.advance(days: 1)
        mark = await h.mark()
        let reminded = await dispute(h, reference, ["action": "remind"])
        #expect(reminded.json?["events"] == ["charge.dispute.remind"])
        let reminder = try #require(await h.delivered(after: mark).first?.json["data"])
        #expect(reminder["id"]?.intValue == disputeID)
        #expect(reminder["status"]?.stringValue == "awaiting-merchant-feedback")
        #expect(reminder["resolution"] == .null)
        #expect(reminder["updated_at"]?.stringValue == "2025-06-16T15:06:40.000Z")
        #expect(await dispute(h, reference, ["action": "remind", "amount": 5]).status == 422)

        #expect(await dispute(h, reference, ["action": "resolve"]).status == 422) // a resolution is required
        #expect(await dispute(h, reference, ["action": "resolve", "resolution": "won"]).status == 422)
        #expect(await dispute(h, reference, ["action": "resolve", "resolution": "declined", "amount": 5]).status == 422)
        mark = await h.mark()
        let declined = await dispute(h, reference, ["action": "resolve", "resolution": "declined"])
        #expect(declined.json?["events"] == ["charge.dispute.resolve"])
        let resolved = try #require(await h.delivered(after: mark).first?.json["data"])
        #expect(resolved["id"]?.intValue == disputeID)
        #expect(resolved["status"]?.stringValue == "resolved")
        #expect(resolved["resolution"]?.stringValue == "declined")
        #expect(resolved["resolvedAt"]?.stringValue == "2025-06-16T15:06:40.000Z")
        #expect(resolved["refund_amount"] == .int(100_000))
        #expect(resolved["history"]?.arrayValue?.last?["status"]?.stringValue == "resolved")
        // Declined: the merchant keeps the money.
        #expect(await verifyStatus(h, reference) == "success")

        mark = await h.mark()
        let again = await dispute(h, reference, ["action": "resolve", "resolution": "merchant-accepted"])
        #expect(again.status == 422)
        #expect(again.json?["error"]?.stringValue?.contains("already resolved") == true)
        #expect(await dispute(h, reference, ["action": "remind"]).status == 422)
        #expect(await h.delivered(after: mark).isEmpty)
        // Only an open dispute blocks a new one.
        #expect(await dispute(h, reference, ["action": "create"]).json?["dispute"]?["id"]?.intValue == disputeID + 1)
    }

    @Test func merchantAcceptedGivesTheMoneyBack() async throws {
        let h = Harness()
        let (reference, _) = try #require(await h.psSubscribe())
        #expect(await dispute(h, reference, ["action": "create"]).json?["dispute"]?["refund_amount"] == .int(250_000))
        let mark = await h.mark()
        let accepted = await dispute(h, reference, ["action": "resolve", "resolution": "merchant-accepted"])
        #expect(accepted.json?["events"] == ["charge.dispute.resolve"])
        let data = try #require(await h.delivered(after: mark).first?.json["data"])
        #expect(data["resolution"]?.stringValue == "merchant-accepted")
        #expect(data["status"]?.stringValue == "resolved")
        #expect(data["refund_amount"] == .int(250_000))
        #expect(data["transaction"]?["status"]?.stringValue == "reversed")
        #expect(await verifyStatus(h, reference) == "reversed")
        #expect(await h.control("POST", "/paystack/transactions/\(reference)/refund").status == 422) // nothing left
        #expect(await dispute(h, reference, ["action": "create"]).status == 422) // no longer a successful charge
    }

    @Test func disputesAndRefundsShareWhatIsLeftOnTheTransaction() async throws {
        let h = Harness()
        let (reference, _) = try #require(await h.psSubscribe())
        _ = await h.control("POST", "/paystack/transactions/\(reference)/refund", body: ["amount": 50_000])
        #expect(await dispute(h, reference, ["action": "create", "amount": 200_001]).status == 422) // 200000 left
        #expect(await dispute(h, reference, ["action": "create"]).json?["dispute"]?["refund_amount"] == .int(200_000))
        let more = await dispute(h, reference, ["action": "resolve", "resolution": "merchant-accepted", "amount": 200_001])
        #expect(more.status == 422) // more than disputed
        let partly = await dispute(h, reference, ["action": "resolve", "resolution": "merchant-accepted", "amount": 150_000])
        #expect(partly.json?["dispute"]?["refund_amount"] == .int(150_000))
        #expect(partly.json?["dispute"]?["transaction"]?["status"]?.stringValue == "success")
        #expect(await verifyStatus(h, reference) == "success")
        let mark = await h.mark()
        #expect(await h.control("POST", "/paystack/transactions/\(reference)/refund", body: ["amount": 50_001]).status == 422)
        _ = await h.control("POST", "/paystack/transactions/\(reference)/refund")
        #expect(await h.delivered(after: mark).last?.json["data"]?["amount"] == .string("50000"))
        #expect(await verifyStatus(h, reference) == "reversed")
    }
}
