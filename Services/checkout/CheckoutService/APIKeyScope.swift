/// What an API key may do. Stored as its raw value; a key holds one or more.
public enum APIKeyScope: String, Sendable, CaseIterable, Codable {
    /// `GET /api/users/{app_user_id}/entitlements` and `…/subscription`.
    case entitlementsRead = "entitlements:read"
}
