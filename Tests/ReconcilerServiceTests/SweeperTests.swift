import Foundation
import HTTPClient
import BillingModel
import JSONCodec
@testable import Kafka
import Providers
@testable import ReconcilerService
import Synchronization
import Testing
import Webhooks

/// The sweep over a fake provider: paging, the `since` filter, the body each
/// list item becomes, keys, drift, and a page that fails for a while.
@Suite struct SweeperTests {
    static let since = Date(timeIntervalSince1970: 1_800_000_000)

    struct FakeStatuses: ProjectionStatusReader {
        let rows: [String: String]
        func statuses(_ provider: Provider, subscriptionIDs: [String]) async throws -> [String: String] {
            rows.filter { subscriptionIDs.contains($0.key) }
        }
    }

    func lsSubscription(_ id: Int, status: String, updated: String) -> ProviderPage.Item {
        Fixture.item(#"{"type":"subscriptions","id":"\#(id)","attributes":{"status":"\#(status)","updated_at":"\#(updated)","url":"https:\/\/x"}}"#)
    }

    @Test func lemonSqueezyPagesArePublishedChangedOnlyShapedAsTheSingleObjectEndpoint() async throws {
        let source = FakeSource(providers: [.lemonsqueezy])
        source.setPages(
            .lemonsqueezy, .subscriptions,
            [
                ProviderPage(
                    number: 1,
                    items: [
                        lsSubscription(3, status: "cancelled", updated: "2027-01-15T10:00:00.000000Z"),
                        lsSubscription(2, status: "active", updated: "2026-01-01T00:00:00.000000Z"),
                    ],
                    hasMore: true, total: 3, pageCount: 2),
                ProviderPage(
                    number: 2, items: [lsSubscription(1, status: "expired", updated: "2027-02-01T00:00:00.000000Z")],
                    hasMore: false, total: 3, pageCount: 2),
            ])
        source.setPages(
            .lemonsqueezy, .orders,
            [
                ProviderPage(
                    number: 1, items: [Fixture.item(#"{"type":"orders","id":"9","attributes":{"updated_at":"2027-03-01T00:00:00.000000Z"}}"#)],
                    hasMore: false, total: 1, pageCount: 1)
            ])
        let publisher = FakePublisher()
        let sweeper = Sweeper(
            source: source, publisher: publisher, statuses: FakeStatuses(rows: ["3": "active", "2": "active"]), logger: Fixture.logger)
        let progress = Mutex<[SweepProgress]>([])
        let reports = await sweeper.sweep(.lemonsqueezy, since: Self.since, trigger: .sweep, sweepID: "s1") { item in
            progress.withLock { $0.append(item) }
        }

        #expect(source.pageCalls == ["lemonsqueezy/subscriptions#1", "lemonsqueezy/subscriptions#2", "lemonsqueezy/orders#1"])
        let subscriptions = try #require(reports.first { $0.list == .subscriptions })
        #expect(subscriptions.pages == 2 && subscriptions.listed == 3 && subscriptions.changed == 2 && subscriptions.published == 2)
        #expect(subscriptions.failure == nil && subscriptions.driftChecked)
        // 3: active in the projection, cancelled at the provider. 1: no row at all. 2: unchanged, in step.
        #expect(
            subscriptions.drift == [
                Drift(provider: .lemonsqueezy, subscriptionID: "3", projected: "active", actual: "cancelled"),
                Drift(provider: .lemonsqueezy, subscriptionID: "1", projected: nil, actual: "expired"),
            ])
        #expect(progress.withLock { $0.map(\.page) } == [1, 2, 1])

        let published = publisher.published
        #expect(published.map(\.key) == ["lemonsqueezy:sub_3", "lemonsqueezy:sub_1", "lemonsqueezy:order_9"])
        let first = try #require(published.first?.snapshot)
        #expect(
            first.body.text
                == #"{"data":{"type":"subscriptions","id":"3","attributes":{"status":"cancelled","updated_at":"2027-01-15T10:00:00.000000Z","url":"https:\/\/x"}}}"#
        )
        #expect(first.entity == .subscription && first.entityID == "3" && first.outcome == .found && first.trigger == "sweep:s1")
        #expect(published.last?.snapshot.entity == .order)
    }

    @Test func paystackTransactionsHaveNoUpdateTimeSoEveryOneIsPublished() async throws {
        let source = FakeSource(providers: [.paystack])
        source.setPages(
            .paystack, .subscriptions,
            [
                ProviderPage(
                    number: 1,
                    items: [
                        Fixture.item(
                            #"{"subscription_code":"SUB_new","status":"active","updatedAt":"2027-06-01T00:00:00.000Z","customer":{"customer_code":"CUS_1"}}"#
                        ),
                        Fixture.item(
                            #"{"subscription_code":"SUB_old","status":"active","updatedAt":"2025-01-01T00:00:00.000Z","customer":{"customer_code":"CUS_2"}}"#
                        ),
                    ], hasMore: false, total: 2, pageCount: 1)
            ])
        source.setPages(
            .paystack, .transactions,
            [
                ProviderPage(
                    number: 1,
                    items: [
                        Fixture.item(
                            #"{"reference":"ref-old","status":"success","paid_at":"2020-01-01T00:00:00.000Z","customer":{"customer_code":"CUS_2"}}"#),
                        Fixture.item(#"{"reference":"ref-anon","status":"abandoned","customer":{"email":"a@example.com"}}"#),
                    ], hasMore: false, total: 2, pageCount: 1)
            ])
        let publisher = FakePublisher()
        let reports = await Sweeper(source: source, publisher: publisher, statuses: nil, logger: Fixture.logger)
            .sweep(.paystack, since: Self.since, trigger: .cli, sweepID: "c1")
        #expect(reports.map(\.published) == [1, 2])
        #expect(reports.first?.driftChecked == false)
        #expect(publisher.published.map(\.key) == ["paystack:CUS_1", "paystack:CUS_2", "paystack:ref_ref-anon"])
        let subscription = try #require(publisher.published.first?.snapshot)
        #expect(
            subscription.body.text.hasPrefix(#"{"status":true,"message":"Subscription retrieved successfully","data":{"subscription_code":"SUB_new""#)
        )
        #expect(subscription.trigger == "cli:c1")
        let transaction = try #require(publisher.published.last?.snapshot)
        #expect(transaction.entity == .transaction && transaction.entityID == "ref-anon")
        #expect(
            transaction.body.text
                == #"{"status":true,"message":"Verification successful","data":{"reference":"ref-anon","status":"abandoned","customer":{"email":"a@example.com"}}}"#
        )
        // The wrapped body is the shape the single-object endpoint answers.
        let parsed = try JSONValue.parse(transaction.body.bytes)
        #expect(parsed["data", "reference"]?.string == "ref-anon" && parsed["status"]?.bool == true)
    }

    @Test func withoutSinceEverythingIsPublished() async throws {
        let source = FakeSource(providers: [.lemonsqueezy])
        source.setPages(
            .lemonsqueezy, .subscriptions,
            [
                ProviderPage(
                    number: 1, items: [lsSubscription(1, status: "active", updated: "2000-01-01T00:00:00Z")],
                    hasMore: false, total: 1, pageCount: 1)
            ])
        let publisher = FakePublisher()
        let reports = await Sweeper(source: source, publisher: publisher, statuses: nil, logger: Fixture.logger)
            .sweep(.lemonsqueezy, since: nil, trigger: .sweep, sweepID: "s")
        #expect(reports.first?.published == 1)
    }

    @Test func aPageThatFailsForAWhileIsAskedAgainAndOneThatKeepsFailingEndsTheListWithAFailure() async throws {
        let source = FakeSource(providers: [.lemonsqueezy])
        source.setPages(
            .lemonsqueezy, .subscriptions,
            [
                ProviderPage(
                    number: 1, items: [lsSubscription(1, status: "active", updated: "2027-01-01T00:00:00Z")],
                    hasMore: false, total: 1, pageCount: 1)
            ])
        source.failPages(.lemonsqueezy, .subscriptions, count: 2)
        source.failPages(.lemonsqueezy, .orders, count: 10)
        let publisher = FakePublisher()
        let sweeper = Sweeper(
            source: source, publisher: publisher, statuses: nil, logger: Fixture.logger, pageAttempts: 3,
            pageRetry: RetryPolicy(baseDelay: .milliseconds(10), maxDelay: .milliseconds(20)))
        let reports = await sweeper.sweep(.lemonsqueezy, since: nil, trigger: .sweep, sweepID: "s")
        #expect(reports[0].failure == nil && reports[0].published == 1)
        #expect(reports[1].failure?.contains("page 1") == true)
        #expect(source.pageCalls.filter { $0.hasPrefix("lemonsqueezy/orders") }.count == 3)
    }

    @Test func aPublisherOutageDuringTheSweepIsRetriedPerPage() async throws {
        let source = FakeSource(providers: [.lemonsqueezy])
        source.setPages(
            .lemonsqueezy, .subscriptions,
            [
                ProviderPage(
                    number: 1, items: [lsSubscription(1, status: "active", updated: "2027-01-01T00:00:00Z")],
                    hasMore: false, total: 1, pageCount: 1)
            ])
        let publisher = FakePublisher(failures: 1)
        let sweeper = Sweeper(
            source: source, publisher: publisher, statuses: nil, logger: Fixture.logger,
            pageRetry: RetryPolicy(baseDelay: .milliseconds(10), maxDelay: .milliseconds(20)))
        let reports = await sweeper.sweep(.lemonsqueezy, since: nil, trigger: .sweep, sweepID: "s")
        #expect(reports[0].published == 1 && publisher.calls == 2)
    }
}

/// Offsets are committed in consumption order only.
@Suite struct BatchTrackerTests {
    @Test func onlyTheCompletePrefixIsCommittable() {
        let tracker = BatchTracker()
        let batch = KafkaTestBatch.empty
        let a = tracker.add(batch, expected: 2)
        let b = tracker.add(batch, expected: 1)
        let c = tracker.add(batch, expected: 0)
        tracker.settle([b])
        #expect(tracker.takeCommittable().isEmpty, "b is done but a is not")
        tracker.settle([a])
        #expect(tracker.takeCommittable().isEmpty)
        tracker.settle([a])
        #expect(tracker.takeCommittable().count == 3, "a, b and the empty c")
        #expect(tracker.count == 0)
        _ = c
    }

    /// A batch may wait here up to `RECONCILER_MAX_COMMIT_DELAY`: it keeps
    /// where to commit, never the envelopes it was read with.
    @Test func aTrackedBatchKeepsItsOffsetsNotItsRecords() {
        let tracker = BatchTracker()
        let records = (0..<50).map { offset in
            KafkaConsumerRecord(
                topic: "storefront.webhooks.v1", partition: Int32(offset % 3), offset: Int64(100 + offset), key: Array("key".utf8),
                value: Array(repeating: 0x41, count: 5000))
        }
        let batch = KafkaConsumerBatch(records: records, consumerID: 0, assignmentEpochs: [:])
        _ = tracker.add(batch, expected: 0)
        let held = tracker.takeCommittable()
        #expect(held.count == 1)
        #expect(held.first?.nextOffsets == batch.nextOffsets)
        #expect(held.first?.records.compactMap(\.value).isEmpty == true)
    }
}
