import Foundation
import BillingModel
import Testing
@testable import WebhookSenderService

/// How the queue loop reads a record of each topic it consumes: by that
/// topic's model, the body kept byte for byte, in order per user or purchase.
@Suite struct OutgoingEventTests {
    static let link = PurchaseEvent.redemptionIssued(
        id: "b0c5e3f4-redemption", occurredAt: Date(timeIntervalSince1970: 1_790_000_000),
        purchase: .init(provider: .paystack, type: .subscription, id: "SUB_1"), email: "buyer@example.com",
        redemptionURL: "https://shop.example.com/redeem/rt_secret", expiresAt: Date(timeIntervalSince1970: 1_790_003_600), ref: "spring")

    @Test func theSenderReadsBothTopics() {
        #expect(DeliveryQueueService.topics == ["storefront.entitlements.v1", "storefront.purchase-events.v1"])
    }

    @Test func aPurchaseEventIsQueuedUnderItsIdTypeAndPurchaseWithItsOwnBytes() throws {
        // Spaces and a key order the encoder would not write: the body is the record's, not a re-encoding.
        let original = String(decoding: try RecordCoding.encode(Self.link), as: UTF8.self).replacingOccurrences(of: ",", with: ", ")
        let event = try #require(DeliveryQueueService.event(topic: Topics.purchaseEvents, value: Array(original.utf8)))
        #expect(
            event
                == OutgoingEvent(
                    id: "b0c5e3f4-redemption", type: "purchase.redemption_issued", orderingKey: "paystack:subscription:SUB_1", body: original))
        #expect(!"\(event)".contains("rt_secret"), "its description leaves the body out")
    }

    @Test func anEntitlementChangeIsQueuedPerUser() throws {
        let change = EntitlementChange(
            id: "evt-1", type: .granted, appUserID: "user-1", occurredAt: Date(timeIntervalSince1970: 1_790_000_000),
            cause: .init(kind: .command, provider: nil, reference: "cmd-1"), before: EntitlementsResponse(entitlements: []),
            after: EntitlementsResponse(entitlements: []))
        let bytes = try RecordCoding.encode(change)
        let event = try #require(DeliveryQueueService.event(topic: Topics.entitlements, value: bytes))
        #expect(event == OutgoingEvent(id: "evt-1", type: "entitlement.granted", orderingKey: "user-1", body: String(decoding: bytes, as: UTF8.self)))
    }

    @Test func aPurchaseEventOfATypeThisBuildDoesNotKnowIsStillQueued() throws {
        let later =
            #"{"id":"e-9","occurred_at":"2026-09-21T14:13:21.500Z","purchase":{"id":"9","provider":"lemonsqueezy","type":"order"},"ref":null,"type":"purchase.redeemed"}"#
        let event = try #require(DeliveryQueueService.event(topic: Topics.purchaseEvents, value: Array(later.utf8)))
        #expect(event.type == "purchase.redeemed" && event.orderingKey == "lemonsqueezy:order:9" && event.body == later)
    }

    @Test func whatDoesNotDecodeWithItsTopicsModelIsUnreadable() throws {
        let link = try RecordCoding.encode(Self.link)
        #expect(DeliveryQueueService.event(topic: Topics.entitlements, value: link) == nil, "a purchase event on the entitlements topic")
        #expect(DeliveryQueueService.event(topic: Topics.commands, value: link) == nil, "a topic the sender does not read")
        #expect(DeliveryQueueService.event(topic: Topics.purchaseEvents, value: nil) == nil, "a tombstone")
        #expect(DeliveryQueueService.event(topic: Topics.purchaseEvents, value: Array("{}".utf8)) == nil)
    }
}
