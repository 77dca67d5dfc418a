import Foundation
import ProviderBudget
import ServiceRuntime
import Telemetry

/// Deletes ended per-user quota windows and old provider ledger windows every
/// ten minutes (neither is read after its window ends; this only bounds the tables).
public struct QuotaSweeper: Service {
    public let name = "quota-sweeper"
    let quotas: any UserQuotaStore
    let ledger: PostgresProviderLedgerStore
    let logger: Logger
    let interval: Duration = .seconds(600)

    public func run() async throws {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            do {
                let quotaRows = try await quotas.sweep(endedBefore: Date())
                let ledgerRows = try await ledger.sweep()
                if quotaRows + ledgerRows > 0 {
                    logger.debug("ended quota windows deleted", metadata: ["quota_rows": String(quotaRows), "ledger_rows": String(ledgerRows)])
                }
            } catch {
                logger.warning("quota sweep failed", metadata: ["error": String(describing: error)])
            }
        }
    }
}
