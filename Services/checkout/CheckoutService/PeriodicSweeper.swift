import Foundation
import ProviderBudget
import ServiceRuntime
import Telemetry

/// Deletes what the checkout's tables no longer need, every ``interval``:
/// the reads never look at those rows again, so sweeping only bounds the
/// tables' size, and a failed sweep is logged and tried at the next interval.
public struct PeriodicSweeper: Service {
    public let name: String
    let interval: Duration
    let logger: Logger
    /// Deletes, and returns how many rows it deleted under each label (for the log).
    let sweep: @Sendable () async throws -> [String: Int]

    public func run() async throws {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            do {
                let deleted = try await sweep().filter { $0.value > 0 }
                if !deleted.isEmpty { logger.info("\(name): rows deleted", metadata: deleted.mapValues(String.init)) }
            } catch {
                logger.warning("\(name) failed", metadata: ["error": String(describing: error)])
            }
        }
    }
}

extension PeriodicSweeper {
    /// Expired idempotency records, once an hour (expired ones are also replaced on use).
    /// Also redemption links expired a day ago and never redeemed.
    static func idempotency(_ store: IdempotencyStore, redemptions: Redemptions? = nil, logger: Logger) -> PeriodicSweeper {
        PeriodicSweeper(name: "idempotency-sweeper", interval: .seconds(3600), logger: logger) {
            ["idempotency_records": try await store.sweep(), "redemption_links": try await redemptions?.sweep() ?? 0]
        }
    }

    /// Ended per-user quota windows and old provider ledger windows, every ten minutes.
    static func quotas(_ quotas: any UserQuotaStore, ledger: PostgresProviderLedgerStore, logger: Logger) -> PeriodicSweeper {
        PeriodicSweeper(name: "quota-sweeper", interval: .seconds(600), logger: logger) {
            ["quota_rows": try await quotas.sweep(endedBefore: Date()), "ledger_rows": try await ledger.sweep()]
        }
    }
}
