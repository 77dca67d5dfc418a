import Timing
import Foundation
import BillingModel
import HTTPServer
import Postgres
import Telemetry

/// Issues and redeems redemption links (docs/web-first.md): a link is
/// single-use, unguessable (``RedemptionTokens``), bound to one purchase,
/// expiring after ``ttl``, stored hashed. Redeeming publishes a
/// ``SubscriptionCommand/Kind/redeem`` command; the projector records the
/// strongest ownership evidence from it.
struct Redemptions: Sendable {
    let pool: PostgresPool
    let reads: WebFirstReads
    let tokens: RedemptionTokens
    let publisher: any RecordPublisher
    let ttl: Duration
    /// The gateway's public origin for the links; nil: relative links, and no outgoing event.
    let publicURL: String?
    let now: @Sendable () -> Date

    /// A link that is valid now.
    struct Link: Sendable, Hashable {
        var token: String
        var expiresAt: Date
    }

    /// The path of a link (the gateway serves `/redeem/<token>`).
    static func path(_ token: String) -> String { "/redeem/\(token)" }

    func url(_ token: String) -> String { (publicURL ?? "") + Self.path(token) }

    /// The completion page's link for `purchase`: the one it showed before
    /// when that is still valid and unredeemed, otherwise a new one (and its
    /// outgoing event). nil when the purchase was redeemed already.
    func completionPageLink(for purchase: WebFirstReads.Purchase, checkoutID: String, ref: String?, logger: Logger) async throws -> Link? {
        let p = purchase.reference
        let rows = try await pool.query(
            """
            SELECT redemption_id, token_hash, expires_at, redeemed_by IS NOT NULL FROM checkout_redemptions
            WHERE provider = \(p.provider) AND purchase_type = \(p.type.rawValue) AND purchase_id = \(p.id)
                AND (via = 'completion_page' OR redeemed_by IS NOT NULL)
            ORDER BY redeemed_by IS NOT NULL DESC, created_at DESC LIMIT 1
            """)
        if let row = rows.first {
            let (id, hash, expires, redeemed) = try row.decode((UUID, [UInt8], Date, Bool).self)
            if redeemed { return nil }
            // Shown again as issued, even after a key rotation; a link whose key is gone is replaced.
            if expires > now(), let token = tokens.token(for: id, hash: hash) { return Link(token: token, expiresAt: expires) }
        }
        return try await issue(for: purchase, checkoutID: checkoutID, via: "completion_page", ref: ref, logger: logger)
    }

    /// A new link for `purchase`, recorded, then announced as the outgoing
    /// `purchase.redemption_issued` event (``PurchaseEvent``; when a public URL
    /// and the buyer's email are known). A link whose event could not be
    /// published is removed again, so every link that exists was announced.
    func issue(for purchase: WebFirstReads.Purchase, checkoutID: String?, via: String, ref: String?, logger: Logger) async throws -> Link {
        let id = UUID()
        let token = tokens.token(for: id)
        let issued = now()
        let expires = issued.addingTimeInterval(ttl.inSeconds)
        let p = purchase.reference
        try await pool.execute(
            """
            INSERT INTO checkout_redemptions (redemption_id, token_hash, provider, purchase_type, purchase_id, checkout_id, via, created_at, expires_at)
            VALUES (\(id), \(RedemptionTokens.hash(token)), \(p.provider), \(p.type.rawValue), \(p.id), \(checkoutID), \(via), \(issued), \(expires))
            """)
        // Announced when there is someone to send it to and a link that works outside this page.
        if publicURL != nil, let email = purchase.email, let provider = Provider(rawValue: p.provider) {
            let event = PurchaseEvent.redemptionIssued(
                id: id.uuidString.lowercased(), occurredAt: issued, purchase: PurchaseEvent.Purchase(provider: provider, type: p.type, id: p.id),
                email: email, redemptionURL: url(token), expiresAt: expires, ref: ref)
            do {
                try await publisher.publish(event, topic: Topics.purchaseEvents, key: event.key)
            } catch {
                _ = try? await pool.execute("DELETE FROM checkout_redemptions WHERE redemption_id = \(id)")
                logger.error(
                    "redemption link not announced", metadata: ["error": String(describing: error), "redemption.id": id.uuidString.lowercased()])
                throw Self.notRecorded
            }
        }
        // The token is a bearer secret: only the redemption's id is logged.
        logger.info("redemption link issued", metadata: ["redemption.id": id.uuidString.lowercased(), "purchase": p.key, "via": via])
        return Link(token: token, expiresAt: expires)
    }

    /// What a redemption came to (the API's `outcome`).
    enum Outcome: String, Sendable {
        case redeemed, alreadyYours = "already_yours", belongsToAnotherUser = "belongs_to_another_user", expired, unknown
        /// Redeeming by checkout id before its purchase is projected (202, `Retry-After`).
        case pending
    }

    /// Redeems `token` for `user`. Idempotent for the same user; a link
    /// another user redeemed, or a purchase someone else owns, is refused;
    /// nothing changes unless the answer is `redeemed`.
    func redeem(_ token: String, user: AppUser, logger: Logger) async throws -> (Outcome, PurchaseReference?) {
        let hash = RedemptionTokens.hash(token)
        return try await pool.withTransaction { connection in
            let rows = try await connection.query(
                """
                SELECT redemption_id, provider, purchase_type, purchase_id, expires_at, redeemed_by FROM checkout_redemptions
                WHERE token_hash = \(hash) FOR UPDATE
                """)
            guard let row = rows.first else { return (.unknown, nil) }
            let (id, provider, type, purchaseID, expires, redeemedBy) = try row.decode((UUID, String, String, String, Date, String?).self)
            let reference = PurchaseReference(provider: provider, type: PurchaseType(rawValue: type) ?? .order, id: purchaseID)
            if let redeemedBy { return (redeemedBy == user.id ? .alreadyYours : .belongsToAnotherUser, reference) }
            if expires <= now() { return (.expired, reference) }
            // Every link of the purchase, locked: two links redeemed at once by two users end with one owner.
            let others = try await connection.query(
                """
                SELECT redeemed_by FROM checkout_redemptions
                WHERE provider = \(provider) AND purchase_type = \(type) AND purchase_id = \(purchaseID) FOR UPDATE
                """)
            // Spelled out: a closure returning `String?` into compactMap would keep the NULLs as `.some(nil)`.
            var redeemers: [String] = []
            for other in others {
                let redeemer: String? = try other.decode(String?.self)
                if let redeemer { redeemers.append(redeemer) }
            }
            if let first = redeemers.first { return (first == user.id ? .alreadyYours : .belongsToAnotherUser, reference) }
            if let owner = try await reads.purchase(reference)?.owner {
                guard owner == user.id else { return (.belongsToAnotherUser, reference) }
                try await connection.execute(
                    "UPDATE checkout_redemptions SET redeemed_by = \(user.id), redeemed_at = \(now()) WHERE redemption_id = \(id)")
                return (.alreadyYours, reference)
            }
            // A provider no longer enabled in this build cannot take a command.
            guard let knownProvider = Provider(rawValue: provider) else { return (.unknown, nil) }
            var command = SubscriptionCommand(
                commandID: UUID().uuidString.lowercased(), kind: .redeem, provider: knownProvider, subscriptionID: purchaseID,
                appUserID: user.id, requestedAt: now())
            command.purchaseType = reference.type
            try await connection.execute(
                "UPDATE checkout_redemptions SET redeemed_by = \(user.id), redeemed_at = \(now()) WHERE redemption_id = \(id)")
            // Published inside the transaction: if the broker refuses, the row stays unredeemed.
            do {
                try await publisher.publish(command, topic: Topics.commands, key: command.key)
            } catch {
                logger.error(
                    "redeem command not published", metadata: ["error": String(describing: error), "redemption.id": id.uuidString.lowercased()])
                throw Self.notRecorded
            }
            logger.info(
                "purchase redeemed",
                metadata: ["redemption.id": id.uuidString.lowercased(), "purchase": reference.key, "command.id": command.commandID])
            return (.redeemed, reference)
        }
    }

    /// The answer when the broker did not take what would record the change: nothing changed, try again.
    static let notRecorded = HTTPError(.serviceUnavailable, "Could not record that; try again", code: "not_recorded", headers: ["Retry-After": "2"])
}
