import Foundation

/// One fault of the provider phase of `make chaos` (``ProviderChaosRun``):
/// faults that lose what a memory broker held or cut the services off from
/// PostgreSQL, so only the providers' own retries and the reconciler's sweep
/// can bring purchases back.
struct ProviderFault: Sendable, Equatable {
    enum Kind: String, Sendable, CaseIterable {
        /// SIGKILL the broker and start it again at once on the same port: everything it held is gone.
        case brokerkill
        /// SIGKILL the broker and keep it down for `--outage-seconds` (longer than
        /// Lemon Squeezy's retry window), then start it again.
        case outage
        /// The PostgreSQL proxy stops forwarding for `--blackhole-seconds` without
        /// closing a socket, then forwards again (scripts/pg-blackhole-proxy.py).
        case blackhole
        /// Cancel and resume recent subscriptions at the provider in quick
        /// succession, all at once, while a projector is SIGKILLed and
        /// replaced: their webhooks race each other and the rebalance that
        /// moves their partitions from one projector to another.
        case race
        /// A purchase whose reconciler snapshot lands before its webhooks
        /// (held back by the sandbox, delivered late), while another user's
        /// checkout competes for the same email (``SnapshotFirstFault``).
        case snapshotfirst
        /// Subscriptions bought, cancelled and resumed through Storefront's
        /// own API, all at once, while a projector is SIGKILLed and replaced:
        /// the checkout's commands race the webhooks (``CommandRaceFault``).
        case commandrace
    }

    let kind: Kind

    /// A broker kill, a PostgreSQL black hole, the two races, a snapshot before its webhooks, then the long outage.
    static let defaults = [
        ProviderFault(kind: .brokerkill), ProviderFault(kind: .blackhole), ProviderFault(kind: .race), ProviderFault(kind: .commandrace),
        ProviderFault(kind: .snapshotfirst), ProviderFault(kind: .outage),
    ]

    struct Invalid: Error, CustomStringConvertible { let description: String }

    /// Parses `kind,kind,...` in the order they happen; `none` is no fault (the phase is skipped).
    /// - Throws: ``Invalid`` naming the bad entry.
    static func parse(_ text: String) throws(Invalid) -> [ProviderFault] {
        if text.trimmingCharacters(in: .whitespaces) == "none" { return [] }
        var faults: [ProviderFault] = []
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            guard let kind = Kind(rawValue: entry) else {
                throw Invalid(description: "\(entry): expected one of \(Kind.allCases.map(\.rawValue).joined(separator: ", ")) or none")
            }
            faults.append(ProviderFault(kind: kind))
        }
        guard !faults.isEmpty else { throw Invalid(description: "no faults in \"\(text)\" (none skips the phase)") }
        return faults
    }

    static func describe(_ faults: [ProviderFault]) -> String {
        faults.isEmpty ? "none" : faults.map(\.kind.rawValue).joined(separator: ",")
    }
}
