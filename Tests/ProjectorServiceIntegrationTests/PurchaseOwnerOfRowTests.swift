import Foundation
import Postgres
import ProjectionStore
@testable import ProjectorService
import Testing

/// The subscription upsert names the owner with `purchase_owner()`'s query
/// inlined (``ProjectionStatements/purchaseOwnerOfRow``): for every shape of
/// evidence it must name whom the function names.
@Suite struct PurchaseOwnerOfRowTests {
    @Test func namesWhomPurchaseOwnerNamesForEveryShapeOfEvidence() async throws {
        try await Support.withDatabase { pool in
            // (purchase, user, source): none, one, two of one rank, a stronger kind over a weaker,
            // two users at the strongest rank beside a weaker one, another purchase type, another provider.
            let evidence: [(String, String, String)] = [
                ("one", "u1", "custom_data"), ("tie", "u1", "email"), ("tie", "u2", "email"),
                ("ranked", "u1", "email"), ("ranked", "u2", "checkout"), ("ranked", "u3", "charge"),
                ("top-tie", "u1", "custom_data"), ("top-tie", "u2", "custom_data"), ("top-tie", "u3", "charge"),
                ("same-user", "u1", "email"), ("same-user", "u1", "custom_data"),
            ]
            for (purchase, user, source) in evidence {
                _ = try await pool.execute(
                    """
                    INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
                    VALUES ('lemonsqueezy', 'subscription', \(purchase), \(user), \(source), 'test')
                    """)
            }
            _ = try await pool.execute(
                """
                INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
                VALUES ('lemonsqueezy', 'order', 'order-only', 'u9', 'custom_data', 'test'), ('stripe', 'subscription', 'one', 'u8', 'custom_data', 'test')
                """)
            let keys = ["one", "tie", "ranked", "top-tie", "same-user", "order-only", "none"]
            let rows = try await pool.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT c2, purchase_owner(c1, 'subscription', c2), \(ProjectionStatements.purchaseOwnerOfRow)
                        FROM unnest($1::text[], $2::text[]) AS r(c1, c2)
                        """,
                    binds: try PostgresBind.columns(keys.map { [("lemonsqueezy" as String).postgresBind, $0.postgresBind] }, types: [.text, .text])))
            var owners: [String: String?] = [:]
            for row in rows {
                let (key, function, inlined) = try row.decode((String, String?, String?).self)
                #expect(function == inlined, "\(key)")
                owners[key] = inlined
            }
            #expect(owners.count == keys.count)
            // The shapes do differ, so the comparison above compared something.
            #expect(owners["one"] == "u1" && owners["ranked"] == "u3" && owners["same-user"] == "u1")
            #expect(owners["tie"] == .some(nil) && owners["top-tie"] == .some(nil) && owners["none"] == .some(nil))
        }
    }
}
