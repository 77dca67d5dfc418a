import Foundation
import HTTPServer
import BillingModel
import Entitlements

/// The body of `POST /api/users/{app_user_id}/grants`, checked: which
/// entitlement, until when, and why. Pure, so every refusal is tested
/// without a server (GrantRequestTests).
struct GrantRequest: Sendable, Equatable {
    var entitlement: String
    var startsAt: Date
    var expiresAt: Date
    var reason: String?

    /// Longest grant accepted: a "grant" longer than this is a typo or a
    /// lifetime purchase in disguise, and either should go through a person.
    static let maximumLength: TimeInterval = 10 * 366 * 86_400
    /// Shortest grant accepted: anything shorter ends before it is seen.
    static let minimumLength: TimeInterval = 60
    /// Longest entitlement identifier (the entitlements file's own names are shorter).
    static let maximumEntitlementLength = 128

    /// The JSON as sent: `expires_at` (RFC 3339) or `duration` (ISO 8601), not both.
    struct Body: Decodable {
        var entitlement: String
        var expiresAt: String?
        var duration: String?
        var reason: String?

        enum CodingKeys: String, CodingKey {
            case entitlement, duration, reason
            case expiresAt = "expires_at"
        }
    }

    /// Checks `body` at `now` against the deployment's entitlements.
    /// - Parameter resolver: its configuration names the entitlements that
    ///   exist; without one, each product is its own entitlement and the
    ///   identifier must be a catalog id (`ls_2`, `ps_PLN_x`).
    /// - Throws: ``HTTPError`` 400 for a malformed body, 422 with a code for
    ///   a well-formed request that cannot be granted.
    static func check(_ body: Body, resolver: EntitlementResolver, now: Date) throws(HTTPError) -> GrantRequest {
        let entitlement = body.entitlement
        guard !entitlement.isEmpty, entitlement.utf8.count <= maximumEntitlementLength,
            entitlement.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E })
        else {
            throw HTTPError(
                .badRequest, "entitlement must be 1 to \(maximumEntitlementLength) printable ASCII characters", code: "invalid_entitlement")
        }
        guard isKnown(entitlement, resolver: resolver) else {
            throw HTTPError(.unprocessableContent, "No entitlement is named \(entitlement)", code: "unknown_entitlement")
        }
        if let reason = body.reason, reason.utf8.count > GrantCommand.maximumReasonLength {
            throw HTTPError(.badRequest, "reason must be at most \(GrantCommand.maximumReasonLength) bytes", code: "invalid_reason")
        }
        let expiresAt: Date
        switch (body.expiresAt, body.duration) {
        case (let text?, nil):
            guard let date = Timestamp.parse(text) else {
                throw HTTPError(.badRequest, "expires_at must be an RFC 3339 time such as 2027-01-31T00:00:00Z", code: "invalid_expires_at")
            }
            expiresAt = date
        case (nil, let text?):
            guard let duration = ISO8601Duration(text), let end = duration.added(to: now) else {
                throw HTTPError(.badRequest, "duration must be an ISO 8601 duration such as P30D, P1M or PT12H", code: "invalid_duration")
            }
            expiresAt = end
        case (nil, nil):
            throw HTTPError(.badRequest, "Give expires_at or duration", code: "grant_end_missing")
        case (.some, .some):
            throw HTTPError(.badRequest, "Give expires_at or duration, not both", code: "grant_end_ambiguous")
        }
        guard expiresAt.timeIntervalSince(now) >= minimumLength else {
            throw HTTPError(.unprocessableContent, "The grant would end in the past or within a minute", code: "grant_end_in_past")
        }
        guard expiresAt.timeIntervalSince(now) <= maximumLength else {
            throw HTTPError(.unprocessableContent, "A grant may last at most ten years", code: "grant_too_long")
        }
        return GrantRequest(entitlement: entitlement, startsAt: now, expiresAt: expiresAt, reason: body.reason)
    }

    /// Whether `identifier` names an entitlement this deployment answers with.
    static func isKnown(_ identifier: String, resolver: EntitlementResolver) -> Bool {
        if let configuration = resolver.configuration {
            return configuration.entitlements.contains { $0.identifier == identifier }
        }
        return CatalogID(identifier) != nil
    }
}
