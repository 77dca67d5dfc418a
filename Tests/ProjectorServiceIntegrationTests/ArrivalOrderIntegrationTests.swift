import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import ProjectorService
import SandboxLives
import TestSupport
import Testing
import Webhooks

/// Issue 36, "arrival order never matters", through the real projector and
/// PostgreSQL: every provider's lives (``SandboxLives``, owned through a
/// proven checkout), applied one record a batch in true order, and in seeded
/// random orders with redeliveries and random batches, each on a fresh
/// database, end in the same rows (every projection table: subscription,
/// orders, payments, ownership, money back, the log) and the same status
/// answer. The pure twin, with every order of short lives:
/// EntitlementsTests' `ArrivalOrderTests`.
@Suite struct ArrivalOrderIntegrationTests {
    static let seed: UInt64 = 36_003
    /// Random arrivals per life; the in-order run is one more database each.
    static let arrivalsPerLife = 3
    static let owner = (user: "user-arrival", checkout: "3b9f2c1e-7a44-4d5e-9b0a-1c2d3e4f5a6b")

    /// The records the receiver would publish for `life`, each received a second after it was sent.
    static func records(_ life: Life) throws -> [KafkaConsumerRecord] {
        let provider = try #require(Provider(rawValue: life.provider))
        return life.records.enumerated().map { offset, record in
            let read = ProviderWebhooks.read(provider, body: record.body, receivedAt: record.sentAt.addingTimeInterval(1))
            return Support.record(Topics.webhooks, key: read.topicKey, value: RecordCoding.encode(read.envelope), offset: Int64(offset))
        }
    }

    /// The rows and the owner's status answer after `batches` of `records`, on a fresh database.
    static func project(
        _ records: [KafkaConsumerRecord], _ batches: [[Int]], at now: Date
    ) async throws -> ([String: [String]], SubscriptionStatusResponse) {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            for batch in batches { _ = try await projector.apply(batch.map { records[$0] }) }
            let reader = SubscriptionStatusReader(pool: pool, resolver: MoneyBackTests.resolver)
            let answer = try await reader.snapshot(for: ProjectionUser(appUserID: owner.user, verifiedEmail: nil), at: now).response
            return (try await Support.dump(pool), answer)
        }
    }

    @Test func everyLifeEndsInTheSameRowsAndAnswerWhateverTheArrival() async throws {
        let custom = TestOwnership.customData(appUserID: Self.owner.user, checkoutID: Self.owner.checkout)
        var arrivals = 0
        for life in await SandboxLives.all(custom: custom) {
            let records = try Self.records(life)
            let now = (life.records.last?.sentAt ?? SandboxLives.start).addingTimeInterval(3600)
            let (expectedRows, expectedAnswer) = try await Self.project(records, records.indices.map { [$0] }, at: now)
            #expect(expectedAnswer.subscriptionCode != nil, "\(life.provider) \"\(life.name)\": the owner sees the subscription")
            for arrival in Arrivals.sample(count: records.count, seed: Self.seed, samples: Self.arrivalsPerLife) {
                arrivals += 1
                let (rows, answer) = try await Self.project(records, arrival.batches, at: now)
                let label = "\(life.provider) \"\(life.name)\" seed \(Self.seed) arrival [\(arrival)]"
                for table in expectedRows.keys.sorted() where rows[table] != expectedRows[table] {
                    let differing = Set(rows[table] ?? []).symmetricDifference(expectedRows[table] ?? []).sorted()
                    Issue.record("\(label): table \(table) differs: \(differing)")
                }
                #expect(answer == expectedAnswer, "\(label): the status answer differs")
            }
        }
        print("arrival order, projector: \(arrivals) arrivals")
        #expect(arrivals == 18 * Self.arrivalsPerLife)
    }
}
