import Foundation

/// `storefront-bench`: the helpers `scripts/bench.sh` (`make bench`) drives.
/// Each subcommand prints one `RESULT key=value ...` line on stdout and its
/// progress on stderr.
///
///     deliveries   --out FILE --count N --secret S --run-id ID [--subscriptions N] [--body-bytes B]
///     load         --url URL --deliveries FILE [--connections C] [--rate R] [--limit N] [--timeout S]
///                  [--accepted-out FILE] [--visibility-db URL --visibility-prefix P] [--poll-ms MS]
///     backlog      --brokers B --count N [--subscriptions N] [--body-bytes B] [--run-id ID]
///     topic-count  --brokers B [--topic T] [--expect N] [--ids FILE] [--idle S]
///     topics       --brokers B
///     catchup-wait --brokers B --group G --expect N --database-url URL [--started-at EPOCH] [--timeout S]
@main
struct StorefrontBench {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else {
            note("usage: storefront-bench deliveries|load|backlog|topic-count|topics|catchup-wait --option value ...")
            exit(2)
        }
        do {
            let options = try Options(Array(arguments.dropFirst()))
            switch command {
            case "deliveries": try DeliveriesCommand.run(options)
            case "load": try await LoadCommand.run(options)
            case "backlog": try await BacklogCommand.run(options)
            case "topic-count": try await TopicCountCommand.run(options)
            case "topics": try await TopicsCommand.run(options)
            case "catchup-wait": try await CatchupWaitCommand.run(options)
            default:
                note("unknown command \(command)")
                exit(2)
            }
        } catch {
            note("storefront-bench \(command): \(error)")
            exit(1)
        }
    }
}
