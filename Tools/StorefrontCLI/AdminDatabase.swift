import Foundation
import ServiceSettings

// Where `storefront api-keys` and `storefront endpoints` connect.

extension Setting {
    public static let adminDatabaseURL = Setting(
        "STOREFRONT_ADMIN_DATABASE_URL", default: "DATABASE_URL, with a warning",
        "postgres:// URL of the operators' admin user (role storefront_admin: API keys and webhook endpoints only)")
    public static let adminFallbackDatabaseURL = Setting(
        "DATABASE_URL", "used only when STOREFRONT_ADMIN_DATABASE_URL is unset, with a warning (typically the schema owner)")
}

extension SettingGroup {
    public static let adminDatabase = SettingGroup(
        "storefront api-keys and endpoints: database", [.adminDatabaseURL, .adminFallbackDatabaseURL])
}

/// The database user of the commands that manage what the services only
/// read: the app servers' API keys and the receivers of webhooks out.
///
/// They connect as a member of ``role``, which the migrations create and
/// grant exactly those tables (checkout migration 7, webhook-sender
/// migration 3), not as the schema owner, who may also rewrite the billing
/// log or drop the projection: a mistyped command, or a leaked operator
/// password, then reaches no further than keys and endpoints.
public enum AdminDatabase {
    /// The NOLOGIN group role the deployment grants to the operators' admin
    /// login user (compose and `make run`: `admin`).
    public static let role = "storefront_admin"

    /// `STOREFRONT_ADMIN_DATABASE_URL`; when unset, `DATABASE_URL`, after
    /// `warn` says so (a deployment from before the role still works, and
    /// learns that it connects with more rights than it needs). Neither set:
    /// a problem naming both.
    public static func url(_ reader: inout ConfigReader, warn: (String) -> Void = standardError) -> String {
        if let url = reader.string(.adminDatabaseURL) { return url }
        if let url = reader.string(.adminFallbackDatabaseURL) {
            warn(
                "warning: STOREFRONT_ADMIN_DATABASE_URL is unset, so this command connects with DATABASE_URL, "
                    + "typically the schema owner; set STOREFRONT_ADMIN_DATABASE_URL to a user granted \(role) "
                    + "(docs/operations.md, \"Database roles\")")
            return url
        }
        reader.report(
            .adminDatabaseURL,
            "required but not set: the URL of a database user granted \(role) (or DATABASE_URL, which is then used with a warning)")
        return ""
    }

    /// Writes `message` and a newline to stderr (stdout carries the command's results).
    public static func standardError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
