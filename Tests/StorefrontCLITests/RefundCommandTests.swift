import Foundation
import HTTPClient
import Synchronization
import Testing

@testable import StorefrontCLI

/// `storefront refund` with a fake sender: the request it makes of the
/// server API, and its answers. The live round trip is the end-to-end suite's.
@Suite struct RefundCommandTests {
    final class Sent: Sendable {
        let requests = Mutex<[HTTPClientRequest]>([])
        let lines = Mutex<[String]>([])
    }

    static func run(_ options: [String], status: Int = 200, body: String = #"{"success":true}"#) async throws -> Sent {
        let sent = Sent()
        try await RefundCommand.perform(
            try CommandLineArguments(["refund"] + options), baseURL: "http://gateway:8080/", apiKey: "sfk_test_abc",
            send: { request in
                sent.requests.withLock { $0.append(request) }
                return HTTPClientResponse(status: status, body: Array(body.utf8))
            },
            output: { line in sent.lines.withLock { $0.append(line) } })
        return sent
    }

    @Test func itPostsThePurchaseWithTheKeyAndAnIdempotencyKey() async throws {
        let sent = try await Self.run([
            "--user", "user 42", "--provider", "stripe", "--type", "subscription", "--id", "sub_1", "--amount", "500",
            "--idempotency-key", "ticket-981",
        ])
        let request = try #require(sent.requests.withLock { $0.first })
        #expect(request.method == .post && request.url == "http://gateway:8080/api/users/user%2042/refunds")
        #expect(request.headers["Authorization"] == "Bearer sfk_test_abc" && request.headers["Idempotency-Key"] == "ticket-981")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(body["amount"] as? Int == 500)
        #expect(body["purchase"] as? [String: String] == ["provider": "stripe", "type": "subscription", "id": "sub_1"])
        #expect(sent.lines.withLock { $0 } == ["idempotency key: ticket-981", #"{"success":true}"#])
    }

    @Test func withoutAKeyOneIsMadeAndPrintedFirst() async throws {
        let sent = try await Self.run(["--user", "u", "--provider", "paystack", "--type", "order", "--id", "42"])
        let key = try #require(sent.requests.withLock { $0.first?.headers["Idempotency-Key"] })
        #expect(key.hasPrefix("storefront-cli-") && sent.lines.withLock { $0.first } == "idempotency key: \(key)")
    }

    @Test func refusalsAreErrorsAndBadOptionsAreUsageErrors() async throws {
        await #expect(throws: RefundCommand.Failure.self) {
            _ = try await Self.run(["--user", "u", "--provider", "stripe", "--type", "order", "--id", "pi_1"], status: 422)
        }
        for options in [
            ["--provider", "stripe", "--type", "order", "--id", "pi_1"], ["--user", "u", "--type", "order", "--id", "pi_1"],
            ["--user", "u", "--provider", "stripe", "--type", "order", "--id", "pi_1", "--amount", "-3"],
        ] {
            await #expect(throws: CommandLineArguments.UsageError.self, "\(options)") { _ = try await Self.run(options) }
        }
    }

    @Test func helpNamesTheScopeAndTheSettings() {
        #expect(RefundCommand.help.contains("purchases:refund") && RefundCommand.help.contains("STOREFRONT_API_KEY"))
    }
}
