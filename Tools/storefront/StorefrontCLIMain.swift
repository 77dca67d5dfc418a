import ServiceSettings
import Foundation
import ServiceRuntime
import StorefrontCLI
import Telemetry

/// `storefront`: the operator's command line. Run `storefront help`.
@main
struct StorefrontCLIMain {
    static let usage = """
        usage: storefront <command> [options]

          migrate                              apply the projection's and the checkout's migrations, which
                                               also create and grant the services' database roles
                                               (DATABASE_URL, as the schema owner) and, when KAFKA_BROKERS
                                               is set, create the topics
          dev-token --sub ID [--email E] [--email-verified] [--iss I] [--aud A] [--ttl SECONDS]
                                               mint an HS256 app-user token with AUTH_JWT_SECRET
                                               (iss/aud default to AUTH_JWT_ISSUER/AUDIENCE, else the local stack's)
          status EMAIL | status --user ID      what the status endpoint shows for that customer (or that app
                                               user), with every subscription and order behind it (DATABASE_URL)
          report [--from DATE] [--to DATE] [--by day|week|month] [--format table|csv|json]
                 [--chart FILE.svg] [--catalog FILE] [--campaigns]
                                               revenue per provider and currency from the event log (DATABASE_URL):
                                               MRR and its movements, subscribers, trials, refunds, disputes,
                                               failed payments; default the current month (UTC), --to exclusive;
                                               --chart also writes an SVG of the movements and subscribers;
                                               --catalog: a saved GET /api/products answer, the prices of
                                               subscriptions whose events state none; --campaigns: per checkout
                                               ref instead, checkouts opened and completed, new subscriptions,
                                               one-time purchases and new MRR (no chart) (docs/revenue.md)
          deadletter list [--topic T]          print every record on storefront.deadletter.v1 (KAFKA_BROKERS)
          deadletter replay [--topic T] [--group G]
                                               publish dead letters not yet replayed back to their source topic
          reconcile [--provider P] [--since DATE]
                                               one reconciliation sweep now: page through the providers' lists,
                                               publish a snapshot of every object changed since DATE (default:
                                               all) and print what changed, with drift against DATABASE_URL if set
          endpoints add --url URL [--types T,...] [--secret-stdin] [--allow-private] | list | enable ID
                    | disable ID | remove ID | rotate-secret ID | replay ID [--event EVENT_ID]
                    | replay --endpoint ID --since T [--until T] [--include-delivered]
                                               the receivers of webhooks out and their queues
                                               (STOREFRONT_ADMIN_DATABASE_URL, a user granted storefront_admin);
                                               https:// only with STOREFRONT_MODE=live, no private targets
                                               without --allow-private, the secret read from standard input
          api-keys create --name NAME --scope entitlements:read|entitlements:write|subscriptions:manage|purchases:refund[,…]
                                               a new API key for the app's own server (printed once, stored
                                               hashed; sfk_live_ with STOREFRONT_MODE=live, else sfk_test_)
          api-keys list                        every key: id, name, scopes, created, last used, revoked
          api-keys revoke KEY_ID               refuse that key from now on (api-keys: STOREFRONT_ADMIN_DATABASE_URL,
                                               a user granted storefront_admin)
          grant USER ENTITLEMENT --for LENGTH | --until TIME [--reason TEXT] [--idempotency-key K]
                                               give USER the entitlement without a purchase (store "promotional")
                                               for LENGTH (30d, 12h, 2w, 3mo, 1y, or ISO 8601 such as P30D) or
                                               until TIME (RFC 3339); prints the grant id
          revoke USER GRANT_ID                 end that grant now (grant and revoke: STOREFRONT_API_URL and
                                               STOREFRONT_API_KEY, a key with entitlements:write; docs/grants.md)
          refund --user ID --provider P --type subscription|order --id ID [--amount MINOR_UNITS]
                 [--idempotency-key KEY]
                                               ask the server API (STOREFRONT_API_URL, with STOREFRONT_API_KEY of
                                               scope purchases:refund) to refund that purchase's payment through
                                               the provider; access follows the provider's refund webhook
                                               (storefront refund --help)
          help                                 show this text
          [COMMAND] --help-settings [--format text|json|markdown]
                                               the environment variables each command (or COMMAND) reads

        Logs go to stderr as JSON (LOG_LEVEL); results go to stdout.
        """

    static func main() async {
        answerSettingsHelpIfAsked()
        let environment = Environment()
        var levelReader = ConfigReader(environment, declared: BinarySettings("storefront", [.runtime]))
        let logger = Logger.bootstrap(service: "storefront-cli", reader: &levelReader)
        do {
            let arguments = try CommandLineArguments(Array(CommandLine.arguments.dropFirst()))
            switch arguments.words.first {
            case "migrate":
                let applied = try await MigrateCommand.run(environment: environment, logger: logger)
                print(applied.isEmpty ? "schema is up to date" : "applied migrations: \(applied.summary)")
            case "dev-token":
                print(try DevTokenCommand.run(arguments, environment: environment))
            case "status":
                try await StatusCommand.run(arguments, environment: environment) { print($0) }
            case "report":
                try await ReportCommand.run(arguments, environment: environment) { print($0) }
            case "deadletter":
                try await DeadLetterCommand.run(arguments, environment: environment, logger: logger) { print($0) }
            case "reconcile":
                // Unbuffered: progress lines must show while the sweep runs.
                try await ReconcileCommand.run(arguments, environment: environment, logger: logger) { line in
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
            case "endpoints":
                try await EndpointsCommand.run(arguments, environment: environment) { print($0) }
            case "grant", "revoke":
                try await GrantsCommand.run(arguments, environment: environment) { print($0) }
            case "api-keys":
                try await APIKeysCommand.run(arguments, environment: environment) { print($0) }
            case "refund":
                try await RefundCommand.run(arguments, environment: environment) { print($0) }
            case "help", nil:
                print(usage)
            case let other?:
                FileHandle.standardError.write(Data("unknown command \(other)\n\n\(usage)\n".utf8))
                exit(64)
            }
        } catch let error as CommandLineArguments.UsageError {
            FileHandle.standardError.write(Data("\(error)\n\n\(usage)\n".utf8))
            exit(64)
        } catch let error as ConfigurationError {
            ServiceConfigurationFailure.exit(error, logger: logger)
        } catch {
            logger.error("storefront failed: \(error)")
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }

    /// `storefront --help-settings` lists every command's settings;
    /// `storefront migrate --help-settings` only that command's.
    static func answerSettingsHelpIfAsked() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let command = arguments.first.map { "storefront " + $0 }
        let chosen = StorefrontCLIBinary.all.filter { $0.binary == command }
        SettingsHelpCommand.answerIfAsked(chosen.isEmpty ? StorefrontCLIBinary.all : chosen, arguments: arguments)
    }
}
