import Foundation
import Kafka
import BillingModel
import Providers
@testable import ReconcilerService
import Telemetry
import TestSupport
import Testing

/// The reconciler over a fake provider and a fake publisher: no server.
@Suite struct ReconcilerTests {
    let sub = EntityRef(.lemonsqueezy, .subscription, "42")

    @Test func aBurstForOneSubscriptionIsOneFetchAndOneSnapshotCarryingTheBodyByteForByte() async throws {
        let source = FakeSource()
        let body = Fixture.lsSubscriptionBody("42")
        source.answer(sub, .body(body))
        let publisher = FakePublisher()
        let running = RunningReconciler.start(source, publisher)
        let first = Date()
        for index in 0..<5 {
            running.reconciler.submit(
                [Fixture.webhook(sub, key: "lemonsqueezy:w\(index)", receivedAt: first.addingTimeInterval(Double(index) * 0.01))], ticket: 7)
        }
        #expect(await eventually { running.tickets.count(7) == 5 })
        await running.stop()
        #expect(source.calls.count == 1, "coalesced into one fetch")
        let published = try #require(publisher.published.first)
        #expect(publisher.published.count == 1)
        #expect(published.key == "lemonsqueezy:sub_42")
        let snapshot = published.snapshot
        #expect(snapshot.body.bytes == Array(body.utf8), "the provider's bytes, escapes included")
        #expect(snapshot.provider == .lemonsqueezy && snapshot.entity == .subscription && snapshot.entityID == "42")
        #expect(snapshot.outcome == .found && snapshot.trigger == "webhook:lemonsqueezy:w0")
        #expect(snapshot.fetchStartedAt <= snapshot.fetchFinishedAt && snapshot.fetchStartedAt >= first)
        #expect(UUID(uuidString: snapshot.snapshotID) != nil)
        // What goes on the topic decodes back to the same snapshot.
        let decoded = try RecordCoding.decode(ProviderSnapshot.self, from: try RecordCoding.encode(snapshot))
        #expect(decoded.body == snapshot.body && decoded.trigger == snapshot.trigger && decoded.snapshotID == snapshot.snapshotID)
        #expect(abs(decoded.fetchStartedAt.timeIntervalSince(snapshot.fetchStartedAt)) < 0.001, "timestamps keep milliseconds")
        #expect(running.metrics.fetches(.lemonsqueezy, .found).current == 1)
        #expect(running.metrics.published(.lemonsqueezy, .webhook).current == 1)
        #expect(running.metrics.registry.renderPrometheus().contains(#"reconciler_snapshot_lag_seconds_count{provider="lemonsqueezy"} 1"#))
    }

    @Test func anObjectTheProviderLacksBecomesANotFoundSnapshotKeyedByTheRecordsCustomer() async throws {
        let source = FakeSource()
        let transaction = EntityRef(.paystack, .transaction, "ref-404")
        source.answer(transaction, .error(.notFound))
        let publisher = FakePublisher()
        let running = RunningReconciler.start(source, publisher)
        running.reconciler.submit([Fixture.webhook(transaction, customer: "CUS_abc")], ticket: 1)
        #expect(await eventually { running.tickets.count(1) == 1 })
        await running.stop()
        let published = try #require(publisher.published.first)
        #expect(published.snapshot.outcome == .notFound && published.snapshot.body.bytes.isEmpty)
        #expect(published.key == "paystack:CUS_abc")
        #expect(running.metrics.fetches(.paystack, .notFound).current == 1)
    }

    @Test func aPaystackSnapshotIsKeyedByTheFetchedCustomerWhenTheRecordHadNone() async throws {
        let source = FakeSource()
        let code = EntityRef(.paystack, .subscription, "SUB_x")
        source.answer(
            code,
            .body(
                #"{"status":true,"message":"Subscription retrieved successfully","data":{"subscription_code":"SUB_x","customer":{"customer_code":"CUS_fetched"}}}"#
            ))
        let publisher = FakePublisher()
        let running = RunningReconciler.start(source, publisher)
        running.reconciler.submit([Fixture.webhook(code)], ticket: 1)
        #expect(await eventually { running.tickets.count(1) == 1 })
        await running.stop()
        #expect(publisher.published.map(\.key) == ["paystack:CUS_fetched"])
    }

    @Test func anOutageParksTheFetchReleasesTheBatchAndRetriesWithBackoffUntilItWorks() async throws {
        let source = FakeSource()
        source.answer(sub, .error(.unavailable), .error(.unavailable), .body(Fixture.lsSubscriptionBody("42")))
        let publisher = FakePublisher()
        let running = RunningReconciler.start(
            source, publisher,
            configuration: Fixture.configuration(
                coalesce: .zero, retryInitial: .milliseconds(100), retryMax: .milliseconds(400)))
        running.reconciler.submit([Fixture.webhook(sub)], ticket: 3)
        // The batch is released as soon as the first fetch failed and was parked.
        #expect(await eventually { running.tickets.count(3) == 1 })
        #expect(publisher.published.isEmpty)
        #expect(running.health.outage(.lemonsqueezy) != nil, "the outage shows (readiness, provider_up)")
        #expect(await eventually { publisher.published.count == 1 })
        await running.stop()
        #expect(source.calls.count == 3)
        #expect(running.health.outage(.lemonsqueezy) == nil)
        #expect(running.metrics.fetches(.lemonsqueezy, .retry).current == 2)
        #expect(running.tickets.count(3) == 1, "released once, not again on success")
    }

    @Test func aRetryAfterFromTheProviderIsWaitedOut() async throws {
        let source = FakeSource()
        source.answer(sub, .error(.rateLimited, retryAfter: .milliseconds(600)), .body(Fixture.lsSubscriptionBody("42")))
        let publisher = FakePublisher()
        let running = RunningReconciler.start(
            source, publisher,
            configuration: Fixture.configuration(
                coalesce: .zero, retryInitial: .milliseconds(10), retryMax: .milliseconds(20)))
        running.reconciler.submit([Fixture.webhook(sub)], ticket: 1)
        #expect(await eventually { publisher.published.count == 1 })
        await running.stop()
        let calls = source.calls
        #expect(calls.count == 2)
        #expect(calls[1].at - calls[0].at >= .milliseconds(590), "Retry-After beats the shorter backoff")
    }

    @Test func aRequestTheProviderCanNeverAnswerIsGivenUpAndCounted() async throws {
        let source = FakeSource()
        source.answer(sub, .error(.validation))
        let publisher = FakePublisher()
        let running = RunningReconciler.start(source, publisher)
        running.reconciler.submit([Fixture.webhook(sub)], ticket: 1)
        #expect(await eventually { running.tickets.count(1) == 1 })
        await running.stop()
        #expect(publisher.published.isEmpty && source.calls.count == 1)
        #expect(running.metrics.dropped("abandoned").current == 1)
        #expect(running.reconciler.counts == (0, 0, 0))
    }

    @Test func aBrokerThatRefusesTheSnapshotHoldsTheBatchUntilItTakesIt() async throws {
        let source = FakeSource()
        source.answer(sub, .body(Fixture.lsSubscriptionBody("42")))
        let publisher = FakePublisher(failures: 4)
        let running = RunningReconciler.start(source, publisher, configuration: Fixture.configuration(coalesce: .zero))
        running.reconciler.submit([Fixture.webhook(sub)], ticket: 9)
        #expect(await eventually { publisher.calls >= 1 })
        #expect(running.tickets.count(9) == 0, "not released while unpublished")
        #expect(await eventually { running.tickets.count(9) == 1 })
        await running.stop()
        #expect(publisher.calls == 5 && publisher.published.count == 1)
        #expect(source.calls.count == 1, "published again, not fetched again")
    }

    @Test func fetchesForDifferentObjectsRunConcurrentlyUpToTheLimit() async throws {
        let source = FakeSource(latency: .milliseconds(200))
        let targets = (1...8).map { EntityRef(.lemonsqueezy, .order, String($0)) }
        for target in targets { source.answer(target, .body(#"{"data":{"type":"orders","id":"\#(target.id)"}}"#)) }
        let publisher = FakePublisher()
        let running = RunningReconciler.start(source, publisher, configuration: Fixture.configuration(coalesce: .zero, concurrency: 4))
        running.reconciler.submit(targets.map { Fixture.webhook($0) }, ticket: 1)
        #expect(await eventually { running.tickets.count(1) == 8 })
        await running.stop()
        #expect(source.maxConcurrentFetches == 4, "8 fetches of 200 ms, 4 at a time")
        #expect(Set(publisher.published.map(\.key)) == Set(targets.map { "lemonsqueezy:order_\($0.id)" }))
    }

    @Test func theOldestUnreconciledWebhookIsMeasuredWhileAFetchIsParked() async throws {
        let source = FakeSource()
        source.answer(sub, .error(.unavailable))
        let publisher = FakePublisher()
        let running = RunningReconciler.start(
            source, publisher,
            configuration: Fixture.configuration(
                coalesce: .zero, retryInitial: .seconds(30), retryMax: .seconds(30)))
        running.reconciler.submit([Fixture.webhook(sub, receivedAt: Date().addingTimeInterval(-120))], ticket: 1)
        #expect(await eventually { running.tickets.count(1) == 1 })
        let text = running.metrics.registry.renderPrometheus()
        await running.stop()
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("reconciler_oldest_unreconciled_webhook_seconds ") })
        let age = try #require(Double(line.split(separator: " ").last ?? ""))
        #expect(age >= 119 && age < 200)
        #expect(text.contains(#"reconciler_pending_objects{state="parked"} 1"#))
        #expect(text.contains(#"reconciler_provider_up{provider="lemonsqueezy"} 0"#))
    }

    /// A read found subscription 42 past its period end: the checkout's
    /// `refresh_requested` command, as consumed, makes the reconciler fetch it
    /// and publish its snapshot, without the delay a cancel or resume waits.
    @Test func aRefreshCommandLeadsToAFetchAndASnapshot() async throws {
        let source = FakeSource()
        let body = Fixture.lsSubscriptionBody("42", status: "expired")
        source.answer(sub, .body(body))
        let publisher = FakePublisher()
        let running = RunningReconciler.start(source, publisher)
        let requestedAt = Date()
        let command = SubscriptionCommand(
            commandID: "refresh-1", kind: .refreshRequested, provider: .lemonsqueezy, subscriptionID: "42", appUserID: "u-1",
            requestedAt: requestedAt)
        let record = KafkaConsumerRecord(
            topic: Topics.commands, partition: 3, offset: 17, key: Array(command.key.utf8), value: try RecordCoding.encode(command))
        // The command delay is long: a refresh must not wait for it.
        guard case .requests(let requests) = ReconcileRecordDecoder.decode(record, commandDelay: .seconds(60)) else {
            Issue.record("a refresh command is a fetch request")
            await running.stop()
            return
        }
        running.reconciler.submit(requests, ticket: 5)
        #expect(await eventually(timeout: .seconds(30)) { running.tickets.count(5) == 1 })
        await running.stop()
        #expect(source.calls.map(\.target) == [sub], "one fetch of the subscription")
        let published = try #require(publisher.published.first)
        #expect(publisher.published.count == 1 && published.key == "lemonsqueezy:sub_42")
        let snapshot = published.snapshot
        #expect(snapshot.outcome == .found && snapshot.body.bytes == Array(body.utf8))
        #expect(snapshot.entity == .subscription && snapshot.entityID == "42" && snapshot.trigger == "command:refresh-1")
        #expect(snapshot.fetchStartedAt >= requestedAt && snapshot.fetchStartedAt.timeIntervalSince(requestedAt) < 30)
        #expect(running.metrics.published(.lemonsqueezy, .command).current == 1)
    }
}
