import ServiceSettings
import Foundation
import HTTPClient

/// `storefront refund --user ID --provider P --type subscription|order --id ID
/// [--amount MINOR_UNITS] [--idempotency-key KEY]`: asks the server API for a
/// refund of one of the user's purchases (`POST /api/users/{id}/refunds`), as
/// a support tool would, with the API key in `STOREFRONT_API_KEY` (scope
/// `purchases:refund`) against `STOREFRONT_API_URL`.
///
/// It goes through the server, not the database, so the same checks, the
/// same idempotency and the same audit record apply as for any caller. The
/// idempotency key is printed first: run the command again with it after an
/// error or a lost answer and the refund is made at most once.
public enum RefundCommand {
    /// The CLI help's lines.
    public static let usage = """
        refund --user ID --provider lemonsqueezy|paystack|stripe --type subscription|order --id ID
               [--amount MINOR_UNITS] [--idempotency-key KEY]
        """

    /// `storefront refund --help`.
    public static let help = """
        usage: storefront \(usage)

        Asks the server API (STOREFRONT_API_URL) to refund one payment of an app user's purchase
        through the provider's own refund API, with the API key in STOREFRONT_API_KEY (scope
        purchases:refund). A subscription is named by its provider and subscription_code (the
        status answer's); its latest paid payment is refunded. An order is named by the provider's
        order id. --amount is in minor units (cents, kobo); without it all that is left is refunded.
        Access changes only when the provider's refund webhook arrives.

        The idempotency key (random unless --idempotency-key) is printed first; run the command
        again with it after an error or a lost answer: the refund is made at most once.

        Example:
          STOREFRONT_API_KEY=sfk_test_… storefront refund --user user-42 --provider stripe \\
            --type subscription --id sub_1Abc --amount 500
        """

    /// What the command sends; tests give a fake.
    public typealias Send = @Sendable (HTTPClientRequest) async throws -> HTTPClientResponse

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(_ arguments: CommandLineArguments, environment: Environment, output: @Sendable (String) -> Void) async throws {
        if arguments.options["help"] != nil {
            output(help)
            return
        }
        var reader = ConfigReader(environment, declared: StorefrontCLIBinary.refund)
        let base = reader.string(.serverAPIURL, default: "http://127.0.0.1:8080")
        let key = reader.required.secret(.refundAPIKey)
        try reader.finish()
        let client = HTTPClient()
        try await perform(arguments, baseURL: base, apiKey: key.reveal(), send: { try await client.execute($0) }, output: output)
    }

    /// The command itself, against any sender.
    public static func perform(
        _ arguments: CommandLineArguments, baseURL: String, apiKey: String, send: Send, output: @Sendable (String) -> Void
    ) async throws {
        let user = try arguments.require("user")
        var purchase: [String: String] = [:]
        for name in ["provider", "type", "id"] { purchase[name] = try arguments.require(name) }
        var body: [String: Any] = ["purchase": purchase]
        if let text = arguments.options["amount"] {
            guard let amount = Int64(text), amount > 0 else {
                throw CommandLineArguments.UsageError(description: "--amount must be a positive whole number of minor units (cents)")
            }
            body["amount"] = amount
        }
        let idempotencyKey = arguments.options["idempotency-key"] ?? "storefront-cli-\(UUID().uuidString.lowercased())"
        output("idempotency key: \(idempotencyKey)")
        let request = HTTPClientRequest(
            method: .post, url: ServerAPIURL.user(user, "refunds", base: baseURL),
            headers: [
                "Authorization": "Bearer \(apiKey)", "Content-Type": "application/json", "Accept": "application/json",
                "Idempotency-Key": idempotencyKey,
            ],
            body: Array(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])),
            // The key makes a repeat harmless: the server answers it from its record.
            idempotent: true)
        let response = try await send(request)
        output(response.bodyString)
        guard response.isSuccess else { throw Failure(description: "the server answered HTTP \(response.status)") }
    }
}
