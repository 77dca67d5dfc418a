import Foundation

/// The files that let iOS and Android open the app for the gateway's links
/// (docs/web-first.md): Apple's `apple-app-site-association` (served as
/// JSON, without a redirect, for the `applinks:<host>` associated domain)
/// and Android's Digital Asset Links statement list.
enum AppAssociation {
    /// The paths that open the app: redemption links and the completion page.
    static let paths = ["/redeem/*", "/checkout/complete*"]

    /// nil without app ids.
    static func apple(appIDs: [String]) -> [UInt8]? {
        guard !appIDs.isEmpty else { return nil }
        let body: [String: Any] = [
            "applinks": ["details": [["appIDs": appIDs, "components": paths.map { ["/": $0, "comment": "Storefront"] }]]]
        ]
        return try? Array(JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// nil without packages.
    static func android(_ links: [(package: String, fingerprint: String)]) -> [UInt8]? {
        guard !links.isEmpty else { return nil }
        let body: [[String: Any]] = links.map {
            [
                "relation": ["delegate_permission/common.handle_all_urls"],
                "target": ["namespace": "android_app", "package_name": $0.package, "sha256_cert_fingerprints": [$0.fingerprint]],
            ]
        }
        return try? Array(JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
