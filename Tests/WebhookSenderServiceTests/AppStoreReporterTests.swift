import AppStoreReports
import Foundation
import Synchronization
import Telemetry
import Testing
@testable import WebhookSenderService

/// The reporter's rounds over an in-memory store and a scripted Apple: what
/// is kept before it is sent, what is sent again and what never is.
@Suite struct AppStoreReporterTests {
    static let start = Date(timeIntervalSince1970: 1_780_000_000)
    static let tokenID = "SANDBOX_tok-1"
    static let token = ReportPlan.Token(externalPurchaseID: tokenID, tokenType: "ACQUISITION", storefront: "NLD", firstSeen: start)
    static let purchase = PurchaseMovement(
        key: "stripe:order:o1", kind: .oneTimeBuy, at: start.addingTimeInterval(60), amount: 499, currency: "EUR", productID: "coins")
    static let refund = PurchaseMovement(
        key: "stripe:order:o1:refund", kind: .refund(of: "stripe:order:o1"), at: start.addingTimeInterval(3600), amount: 499, currency: "EUR",
        productID: "coins")

    final class Clock: Sendable {
        let date = Mutex(AppStoreReporterTests.start.addingTimeInterval(120))
        func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
        var now: Date { date.withLock { $0 } }
    }

    static func reporter(
        _ store: FakeAppStoreReportStore, _ apple: ScriptedApple, clock: Clock = Clock(), registry: MetricsRegistry = MetricsRegistry()
    ) -> AppStoreReporter {
        var configuration = AppStoreReporterConfiguration()
        configuration.retrySchedule = RetrySchedule(delays: [.seconds(60), .seconds(600)], jitter: 0)
        return AppStoreReporter(
            store: store, sender: apple, configuration: configuration, metrics: AppStoreReporterMetrics(registry: registry),
            logger: Logger(service: "app-store-reporter-tests", minimumLevel: .critical), now: { clock.now })
    }

    @Test func aPurchaseIsKeptThenSentOnceAndNeverAgain() async throws {
        let store = FakeAppStoreReportStore([AppStoreTokenState(token: Self.token, movements: [Self.purchase])])
        let apple = ScriptedApple(store: store)
        let reporter = Self.reporter(store, apple)
        #expect(try await reporter.round() == AppStoreReporter.RoundResult(planned: 1, accepted: 1))
        #expect(try await reporter.round() == AppStoreReporter.RoundResult())
        #expect(apple.reports.map { $0.lineItems?.first?.lineItemId } == ["stripe:order:o1"])
        #expect(apple.reports.first?.externalPurchaseId == Self.tokenID && apple.reports.first?.status == .lineItem)
        #expect(apple.keptBeforeSend.withLock { $0 }, "a report must be kept with its request identifier before it is sent")
    }

    @Test func aResendAfterALostAnswerOrARestartIsTheSameRequest() async throws {
        let store = FakeAppStoreReportStore([AppStoreTokenState(token: Self.token, movements: [Self.purchase])])
        let clock = Clock()
        let apple = ScriptedApple([.retry(reason: "Apple could not be reached", after: nil)], store: store)
        #expect(try await Self.reporter(store, apple, clock: clock).round().retried == 1)
        // Not due yet: nothing goes out.
        #expect(try await Self.reporter(store, apple, clock: clock).round() == AppStoreReporter.RoundResult())
        clock.advance(61)
        // A new reporter (a restart) sends the kept report, not a new one.
        #expect(try await Self.reporter(store, apple, clock: clock).round().accepted == 1)
        let ids = apple.reports.map(\.requestIdentifier)
        #expect(ids.count == 2 && Set(ids).count == 1)
        #expect(store.rows.withLock { $0.map(\.line.attempts) } == [2])
    }

    @Test func aRefundWaitsUntilItsChargeIsAccepted() async throws {
        let store = FakeAppStoreReportStore([AppStoreTokenState(token: Self.token, movements: [Self.purchase, Self.refund])])
        let apple = ScriptedApple(store: store)
        let reporter = Self.reporter(store, apple)
        #expect(try await reporter.round().accepted == 1)
        #expect(try await reporter.round().accepted == 1)
        #expect(apple.reports.compactMap { $0.lineItems?.first?.eventType } == ["BUY", "REFUND"])
        #expect(apple.reports.last?.lineItems?.first?.referenceLineItemId == "stripe:order:o1")
    }

    @Test func aRefusedLineIsDeadWithApplesReasonAndNeverMadeAgain() async throws {
        let store = FakeAppStoreReportStore([AppStoreTokenState(token: Self.token, movements: [Self.purchase, Self.refund])])
        let apple = ScriptedApple([.refused(reason: "Apple answered 400: InvalidLineItemError")], store: store)
        let registry = MetricsRegistry()
        let clock = Clock()
        let reporter = Self.reporter(store, apple, clock: clock, registry: registry)
        #expect(try await reporter.round().refused == 1)
        clock.advance(86_400)
        #expect(try await reporter.round() == AppStoreReporter.RoundResult())
        #expect(apple.reports.count == 1)
        #expect(store.rows.withLock { $0.map(\.state) } == ["dead"])
        #expect(store.rows.withLock { $0.first?.lastError }?.contains("InvalidLineItemError") == true)
        #expect(registry.renderPrometheus().contains(#"app_store_reports_sends_total{result="refused"} 1"#))
    }

    @Test func retriesWaitForApplesRetryAfterElseTheScheduleWhoseLastWaitRepeats() async throws {
        let store = FakeAppStoreReportStore([AppStoreTokenState(token: Self.token, movements: [Self.purchase])])
        let clock = Clock()
        let apple = ScriptedApple(
            [
                .retry(reason: "429", after: .seconds(5)), .retry(reason: "401", after: nil), .retry(reason: "500", after: nil),
                .retry(reason: "500", after: nil),
            ], store: store)
        let reporter = Self.reporter(store, apple, clock: clock)
        var waits: [TimeInterval] = []
        for _ in 0..<4 {
            let before = clock.now
            #expect(try await reporter.round().retried == 1)
            let next = try #require(store.rows.withLock { $0.first?.nextAttemptAt })
            waits.append(next.timeIntervalSince(before))
            clock.advance(next.timeIntervalSince(before))
        }
        // 401 after the 429: its second failure; the schedule's last wait then repeats, never dead.
        #expect(waits == [5, 600, 600, 600])
        #expect(store.rows.withLock { $0.first?.state } == "pending")
    }

    @Test func theLagIsTheOldestWaitingLinesAge() async throws {
        let store = FakeAppStoreReportStore([AppStoreTokenState(token: Self.token, movements: [Self.purchase])])
        let apple = ScriptedApple([.retry(reason: "500", after: nil)], store: store)
        let registry = MetricsRegistry()
        let reporter = AppStoreReporter(
            store: store, sender: apple, configuration: AppStoreReporterConfiguration(), metrics: AppStoreReporterMetrics(registry: registry),
            logger: Logger(service: "t", minimumLevel: .critical), now: { Date().addingTimeInterval(3600) })
        try await reporter.round()
        let line = try #require(registry.renderPrometheus().split(separator: "\n").first { $0.hasPrefix("app_store_reports_lag_seconds ") })
        let lag = try #require(Double(line.split(separator: " ")[1]))
        #expect(lag >= 3590 && lag <= 3700)
    }

    @Test func aTokenThatBoughtNothingIsReportedSoOnceItsTimeIsUp() async throws {
        let store = FakeAppStoreReportStore([AppStoreTokenState(token: Self.token, movements: [])])
        let apple = ScriptedApple(store: store)
        let clock = Clock()
        let reporter = Self.reporter(store, apple, clock: clock)
        #expect(try await reporter.round().planned == 0)
        clock.advance(7 * 86_400)
        #expect(try await reporter.round().accepted == 1)
        #expect(apple.reports.map(\.status) == [.noLineItem] && apple.reports.first?.lineItems == nil)
    }
}
