import Foundation
import HTTPServer
import BillingModel
import CryptoPrimitives
import Entitlements
import Telemetry

/// `POST /api/users/{app_user_id}/grants` and
/// `DELETE /api/users/{app_user_id}/grants/{grant_id}`: promotional
/// entitlements from the app's own backend or support (docs/grants.md),
/// for an API key with ``APIKeyScope/entitlementsWrite``.
///
/// The checkout checks and publishes a ``GrantCommand``; the projector
/// records it and announces the change (`cause: grant`/`revoke`). The answer
/// waits briefly until the projection shows it (``visibilityWait``), so a
/// read right after sees it; a projector that is behind gets `202` and
/// `state: pending`, and applies it later in order.
///
/// A repeated request with the same `Idempotency-Key` (per key and user)
/// names the same grant id, which the projector records once.
struct GrantRoutes: Sendable {
    let authenticator: ServerAuthenticator
    let store: any GrantStore
    let publisher: any RecordPublisher
    /// Which entitlements exist (``GrantRequest/isKnown(_:resolver:)``).
    let resolver: EntitlementResolver
    let quota: UserQuotaGate
    let maxBodyBytes: Int
    let now: @Sendable () -> Date
    /// How long an answer waits for the projector to apply the command.
    var visibilityWait: Duration = .seconds(3)

    static let grantsPath = "/api/users/{app_user_id}/grants"
    static let grantPath = "/api/users/{app_user_id}/grants/{grant_id}"
    /// Running grants one user may hold: the read path lists at most this many.
    static let maximumRunningGrants = 100

    func mount(on registrar: some RouteRegistrar) {
        let router = DatabaseUnavailable(base: registrar)
        router.post(Self.grantsPath) { request, context in
            let (caller, user) = try await admit(request, context)
            let body = try JSONBody.decode(GrantRequest.Body.self, from: request, limit: maxBodyBytes)
            return try await give(try GrantRequest.check(body, resolver: resolver, now: now()), to: user, by: caller, request, context.logger)
        }
        router.delete(Self.grantPath) { request, context in
            let (caller, user) = try await admit(request, context)
            let grantID = try context.parameters.require("grant_id")
            guard Self.isGrantID(grantID) else { throw HTTPError(.badRequest, "grant_id is not a grant id", code: "invalid_grant_id") }
            return try await revoke(grantID, of: user, by: caller, context.logger)
        }
    }

    private func admit(_ request: HTTPRequest, _ context: RequestContext) async throws -> (ServerCaller, String) {
        let caller = try await authenticator.authenticate(request, requiring: .entitlementsWrite, logger: context.logger)
        try await quota.admit(.serverWrite, user: "api_key:\(caller.keyID)")
        return (caller, try ServerRoutes.appUserID(context))
    }

    private func give(
        _ grant: GrantRequest, to user: String, by caller: ServerCaller, _ request: HTTPRequest, _ logger: Logger
    ) async throws -> HTTPResponse {
        let idempotencyKey = try CheckoutCreator.idempotencyKey(request)
        let grantID = idempotencyKey.map { Self.grantID(keyID: caller.keyID, user: user, idempotencyKey: $0) } ?? Self.newGrantID()
        if idempotencyKey != nil, let earlier = try await store.find(grantID: grantID) {
            guard earlier.appUserID == user, earlier.entitlement == grant.entitlement else {
                throw HTTPError(
                    .unprocessableContent, "Idempotency-Key was already used with a different request body", code: "idempotency_key_reused")
            }
            var response = try HTTPResponse.json(earlier, status: .created)
            response.headers.add(name: "Idempotent-Replayed", value: "true")
            return response
        }
        guard try await store.runningCount(appUserID: user, at: now()) < Self.maximumRunningGrants else {
            throw HTTPError(
                .unprocessableContent, "The user already holds \(Self.maximumRunningGrants) running grants; revoke some first",
                code: "too_many_grants")
        }
        let command = GrantCommand(
            commandID: UUID().uuidString.lowercased(), grantID: grantID, appUserID: user,
            action: .grant(entitlement: grant.entitlement, startsAt: grant.startsAt, expiresAt: grant.expiresAt),
            requestedBy: "api_key:\(caller.keyID)", requestedAt: now(), reason: grant.reason)
        try await publish(command, logger)
        logger.info("entitlement granted", metadata: ["grant.id": grantID, "entitlement": grant.entitlement, "api_key.id": caller.keyID])
        if let applied = try await waitUntilVisible(grantID, { _ in true }) { return try HTTPResponse.json(applied, status: .created) }
        let pending = EntitlementGrant(
            grantID: grantID, appUserID: user, entitlement: grant.entitlement, startsAt: grant.startsAt, expiresAt: grant.expiresAt,
            grantedBy: command.requestedBy, reason: grant.reason, state: .pending)
        return try HTTPResponse.json(pending, status: .accepted)
    }

    private func revoke(_ grantID: String, of user: String, by caller: ServerCaller, _ logger: Logger) async throws -> HTTPResponse {
        // Another user's grant is answered exactly like a missing one.
        guard let grant = try await store.find(grantID: grantID), grant.appUserID == user else {
            throw HTTPError(.notFound, "No grant \(grantID) for this user", code: "grant_not_found")
        }
        // Revoking twice is answered like the first time, and publishes nothing.
        if grant.revokedAt != nil { return try HTTPResponse.json(grant) }
        let command = GrantCommand(
            commandID: UUID().uuidString.lowercased(), grantID: grantID, appUserID: user, action: .revoke,
            requestedBy: "api_key:\(caller.keyID)", requestedAt: now())
        try await publish(command, logger)
        logger.info("grant revoked", metadata: ["grant.id": grantID, "api_key.id": caller.keyID])
        if let applied = try await waitUntilVisible(grantID, { $0.revokedAt != nil }) { return try HTTPResponse.json(applied) }
        var pending = grant
        pending.revokedAt = command.requestedAt
        pending.revokedBy = command.requestedBy
        pending.state = .pending
        return try HTTPResponse.json(pending, status: .accepted)
    }

    private func publish(_ command: GrantCommand, _ logger: Logger) async throws {
        do {
            try await publisher.publish(command, topic: Topics.commands, key: command.key)
        } catch {
            logger.error("grant command not published", metadata: ["error": String(describing: error), "grant.id": command.grantID])
            throw HTTPError(.serviceUnavailable, "Could not record the request; try again", code: "not_recorded", headers: ["Retry-After": "2"])
        }
    }

    /// The grant once the projection shows it as `done` says; nil after ``visibilityWait``.
    private func waitUntilVisible(_ grantID: String, _ done: (EntitlementGrant) -> Bool) async throws -> EntitlementGrant? {
        let deadline = ContinuousClock.now + visibilityWait
        var pause = Duration.milliseconds(20)
        while true {
            if let grant = try await store.find(grantID: grantID), done(grant) { return grant }
            guard ContinuousClock.now + pause < deadline else { return nil }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(250))
        }
    }

    /// A grant id from an `Idempotency-Key`: the same key, caller and user
    /// always name the same grant, and nobody else's key can name it.
    static func grantID(keyID: String, user: String, idempotencyKey: String) -> String {
        "grant_" + Hex.encode(SHA256.hash(Array("\(keyID)\n\(user)\n\(idempotencyKey)".utf8))).prefix(32)
    }

    static func newGrantID() -> String { "grant_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }

    /// `grant_` and 32 lowercase hex digits, as both forms above make.
    static func isGrantID(_ text: String) -> Bool {
        let digits = text.utf8.dropFirst(6)
        return text.hasPrefix("grant_") && digits.count == 32
            && digits.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }
}
