import Foundation
import BillingModel
import HTTPServer
import Postgres
import Telemetry

/// Merges an anonymous user into a signed-in one, once
/// (`POST /api/users/alias`): the checkout records the merge in its own
/// table first, so two merges of one anonymous id racing each other get one
/// `merged` and one `already_merged_elsewhere`, then publishes the
/// ``UserMergeCommand`` the projector applies. A merge whose command could
/// not be published is undone, so the caller may retry.
struct UserMerges: Sendable {
    let pool: PostgresPool
    let publisher: any RecordPublisher
    let now: @Sendable () -> Date

    enum Outcome: String, Sendable {
        case merged, alreadyMerged = "already_merged", mergedElsewhere = "already_merged_elsewhere"
    }

    func merge(_ anonymousID: String, into appUserID: String, logger: Logger) async throws -> Outcome {
        let inserted = try await pool.query(
            """
            INSERT INTO checkout_user_merges (anonymous_id, app_user_id) VALUES (\(anonymousID), \(appUserID))
            ON CONFLICT (anonymous_id) DO NOTHING RETURNING anonymous_id
            """)
        if inserted.isEmpty {
            let existing = try await pool.query("SELECT app_user_id FROM checkout_user_merges WHERE anonymous_id = \(anonymousID)")
            guard let owner = try existing.first?.decode(String.self) else {
                // Another request's merge was undone between the two statements.
                throw HTTPError(.serviceUnavailable, "Try again", code: "retry", headers: ["Retry-After": "1"])
            }
            // The same pair again: published again too, in case the first command was lost with a broker.
            guard owner == appUserID else { return .mergedElsewhere }
            do {
                try await publish(anonymousID, into: appUserID)
            } catch {
                throw Redemptions.notRecorded
            }
            return .alreadyMerged
        }
        do {
            try await publish(anonymousID, into: appUserID)
        } catch {
            _ = try? await pool.execute(
                "DELETE FROM checkout_user_merges WHERE anonymous_id = \(anonymousID) AND app_user_id = \(appUserID)")
            logger.error("merge command not published", metadata: ["error": String(describing: error)])
            throw Redemptions.notRecorded
        }
        logger.info("anonymous user merged", metadata: ["anonymous.id": anonymousID, "user.id": appUserID])
        return .merged
    }

    private func publish(_ anonymousID: String, into appUserID: String) async throws {
        let command = UserMergeCommand(
            commandID: UUID().uuidString.lowercased(), anonymousUserID: anonymousID, appUserID: appUserID, requestedAt: now())
        try await publisher.publish(command, topic: Topics.commands, key: command.key)
    }
}
