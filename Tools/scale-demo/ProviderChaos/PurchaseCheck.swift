import Foundation
import Postgres

/// Compares the projection with the purchases the sandbox made: each one
/// must have its `subscriptions` row in the status the sandbox last reported
/// (lost: absent or in another status), and at most one `payments` row per
/// charge (each purchase was charged once; more rows: a payment applied twice).
struct PurchaseCheck: Sendable {
    struct Result: Sendable {
        var checked = 0
        /// Purchases without a row, or whose row is not in the sandbox's status.
        var lost: [String] = []
        /// Purchases with more `payments` rows than the sandbox charged.
        var appliedTwice: [String] = []
        var complete: Bool { lost.isEmpty && appliedTwice.isEmpty }
    }

    let pool: PostgresPool

    /// Checks `purchases` (all, or those made up to some moment).
    func run(_ purchases: [Purchase]) async throws -> Result {
        var result = Result()
        result.checked = purchases.count
        guard !purchases.isEmpty else { return result }
        // The whole tables: a chaos stack holds a few thousand rows, and this needs no array binding.
        var statuses: [String: String] = [:]
        for row in try await pool.query("SELECT provider, subscription_id, status FROM subscriptions") {
            let (provider, id, status) = try row.decode((String, String, String).self)
            statuses["\(provider):\(id)"] = status
        }
        var payments: [String: Int64] = [:]
        for row in try await pool.query(
            "SELECT provider, subscription_id, count(*)::bigint FROM payments WHERE subscription_id IS NOT NULL GROUP BY 1, 2")
        {
            let (provider, id, count) = try row.decode((String, String, Int64).self)
            payments["\(provider):\(id)"] = count
        }
        for purchase in purchases {
            let key = "\(purchase.provider.rawValue):\(purchase.id)"
            if statuses[key] != purchase.status {
                result.lost.append(
                    "\(key) (bought at \(String(format: "%.1f", purchase.createdAt)) s) is \(statuses[key] ?? "absent"), the sandbox says \(purchase.status)"
                )
            }
            if let count = payments[key], count > 1 {
                result.appliedTwice.append("\(key) has \(count) payments rows for one charge")
            }
        }
        return result
    }
}
