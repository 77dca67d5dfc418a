import Foundation
import ServiceSettings

// Web-first buyers (docs/web-first.md): checkouts before sign-in, the hosted
// paywall, redemption links, and the association files that open the app.

extension Setting {
    public static let checkoutAnonymous = Setting(
        "CHECKOUT_ANONYMOUS", default: "off", "on: checkouts without a user token and the hosted paywall (/paywall); off: a token is required")
    public static let redemptionTTL = Setting(
        "REDEMPTION_TTL", default: "60m", "how long a redemption link stays valid (1m to 30 days)")
    public static let publicURL = Setting(
        "PUBLIC_URL", default: "the origin of CHECKOUT_REDIRECT_URL",
        "the gateway's public origin (https://shop.example.com); redemption links are PUBLIC_URL/redeem/<token>")
    public static let appleAppIDs = Setting(
        "APPLE_APP_IDS", "comma-separated TEAMID.bundle.id of the apps that open /redeem/* and /checkout/complete* (universal links)")
    public static let appStoreURL = Setting(
        "APP_STORE_URL", "the app's App Store page, offered when a redemption link opens in a browser")
    public static let androidAppLinks = Setting(
        "ANDROID_APP_LINKS", "comma-separated package.name=SHA256_FINGERPRINT for /.well-known/assetlinks.json")
    public static let checkoutTrustForwardedFor = Setting(
        "CHECKOUT_TRUST_FORWARDED_FOR", default: "false",
        "true: the client address (anonymous quotas) is the gateway's X-Forwarded-For; only behind the gateway")
}

extension SettingGroup {
    public static let webFirst = SettingGroup(
        "Web-first buyers (checkout)",
        [.checkoutAnonymous, .redemptionTTL, .publicURL, .appleAppIDs, .appStoreURL, .androidAppLinks, .checkoutTrustForwardedFor])
}

/// What the web-first routes need to know (``Setting/checkoutAnonymous`` and the rest of ``SettingGroup/webFirst``).
public struct WebFirstConfiguration: Sendable {
    /// Checkouts without a user token, and the paywall (`CHECKOUT_ANONYMOUS=on`).
    public var anonymousCheckouts: Bool
    /// How long a redemption link is valid (`REDEMPTION_TTL`, default 60 minutes, as RevenueCat's).
    public var redemptionTTL: Duration
    /// The gateway's public origin, without a trailing slash; nil: links are
    /// relative to the page that shows them (and the outgoing event has none).
    public var publicURL: String?
    /// `TEAMID.bundle.id` of each app that opens the links.
    public var appleAppIDs: [String]
    public var appStoreURL: String?
    /// Android packages and their signing certificates' SHA-256 fingerprints.
    public var androidAppLinks: [(package: String, fingerprint: String)]
    /// Whether the client address is the gateway's `X-Forwarded-For`.
    public var trustForwardedFor: Bool

    public init(
        anonymousCheckouts: Bool = false, redemptionTTL: Duration = .seconds(3600), publicURL: String? = nil, appleAppIDs: [String] = [],
        appStoreURL: String? = nil, androidAppLinks: [(package: String, fingerprint: String)] = [], trustForwardedFor: Bool = false
    ) {
        self.anonymousCheckouts = anonymousCheckouts
        self.redemptionTTL = redemptionTTL
        self.publicURL = publicURL
        self.appleAppIDs = appleAppIDs
        self.appStoreURL = appStoreURL
        self.androidAppLinks = androidAppLinks
        self.trustForwardedFor = trustForwardedFor
    }

    /// Reads the variables above; bad values are reported to `reader`.
    /// - Parameter redirectURL: `CHECKOUT_REDIRECT_URL`, whose origin is the default ``publicURL``.
    public static func fromEnvironment(_ reader: inout ConfigReader, redirectURL: String?) -> WebFirstConfiguration {
        var configuration = WebFirstConfiguration()
        configuration.anonymousCheckouts = reader.bool(.checkoutAnonymous, default: false)
        let ttl = reader.duration(.redemptionTTL, default: configuration.redemptionTTL)
        if ttl < .seconds(60) || ttl > .seconds(30 * 86_400) {
            reader.report(.redemptionTTL, "must be between 1m and 30 days")
        } else {
            configuration.redemptionTTL = ttl
        }
        if let url = reader.string(.publicURL) {
            if let origin = origin(of: url) {
                configuration.publicURL = origin
            } else {
                reader.report(.publicURL, "must be an http(s) origin such as https://shop.example.com")
            }
        } else {
            configuration.publicURL = redirectURL.flatMap(origin(of:))
        }
        for id in list(reader.string(.appleAppIDs)) {
            // TEAMID (10 upper-case letters or digits), a dot, a bundle id.
            let parts = id.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, parts[0].utf8.count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }),
                parts[1].utf8.count <= 155, parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
            else {
                reader.report(.appleAppIDs, "each must be TEAMID.bundle.id (a 10-character team id, a dot, the bundle id)")
                continue
            }
            configuration.appleAppIDs.append(id)
        }
        if let store = reader.string(.appStoreURL) {
            if let url = URL(string: store), url.scheme?.lowercased() == "https", url.host != nil, store.utf8.count <= 2048 {
                configuration.appStoreURL = store
            } else {
                reader.report(.appStoreURL, "must be an https URL")
            }
        }
        for entry in list(reader.string(.androidAppLinks)) {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 255,
                parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_") }),
                parts[1].split(separator: ":").count == 32, parts[1].allSatisfy({ $0.isHexDigit || $0 == ":" })
            else {
                reader.report(.androidAppLinks, "each must be package.name=AA:BB:… (the signing certificate's SHA-256, 32 hex pairs)")
                continue
            }
            configuration.androidAppLinks.append((parts[0], parts[1].uppercased()))
        }
        configuration.trustForwardedFor = reader.bool(.checkoutTrustForwardedFor, default: false)
        return configuration
    }

    /// `scheme://host[:port]` of an http(s) URL, or nil.
    static func origin(of text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host, !host.isEmpty
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    private static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
