import HTTPServer
import Postgres
import Telemetry
import Testing
@testable import CheckoutService

/// A database failure that may pass is a 503 the app retries; one that will
/// not stays a 500. No server needed: the handlers throw what the pool would.
@Suite struct DatabaseUnavailableTests {
    static func status(when error: any Error) async throws -> (HTTPStatus, String) {
        let router = Router()
        DatabaseUnavailable(base: router).get("/api/thing") { _, _ -> String in throw error }
        let (response, _) = await router.buildResponder().respond(
            to: try HTTPRequest(method: .get, target: "/api/thing"), logger: Logger(service: "db-unavailable-tests", minimumLevel: .critical))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    @Test(arguments: [
        PostgresError(.timeout, sqlState: "57014"), PostgresError(.timeout), PostgresError(.connectionClosed),
        PostgresError(.poolTimeout),
    ])
    func aLimitOrALostConnectionAnswers503(error: PostgresError) async throws {
        let (status, body) = try await Self.status(when: error)
        #expect(status == .serviceUnavailable)
        #expect(body.contains("database_unavailable") && !body.contains("57014"))
    }

    @Test func aRefusedStatementStaysA500() async throws {
        #expect(try await Self.status(when: PostgresError(.server, sqlState: "23505")).0 == .internalServerError)
    }
}
