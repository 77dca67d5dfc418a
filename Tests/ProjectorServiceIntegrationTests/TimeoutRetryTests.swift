import Postgres
import Testing
@testable import ProjectorService

/// A limit that fired says nothing about the records: the batch is retried
/// whole (as on a lost connection), never halved and dead-lettered.
@Suite struct TimeoutRetryTests {
    @Test(arguments: [
        PostgresError(.timeout, sqlState: "57014"), PostgresError(.timeout, sqlState: "55P03"), PostgresError(.timeout, sqlState: "25P03"),
        PostgresError(.timeout), PostgresError(.connectionClosed),
    ])
    func aTimeoutIsRetriedNotDeadLettered(error: PostgresError) {
        #expect(!Projector.rejectsRecord(error))
        #expect(error.isTransient)
    }

    @Test func aRefusedRecordIsStillDeadLettered() {
        #expect(Projector.rejectsRecord(PostgresError(.server, sqlState: "23505")))
        #expect(!PostgresError(.server, sqlState: "23505").isTransient)
    }
}
