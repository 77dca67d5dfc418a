import Foundation
#if canImport(StoreKit)
    import StoreKit
#endif

/// What StorefrontKit asks of the App Store before it links to a web
/// checkout: the device's storefront, whether the app may use Apple's
/// External Purchase custom links, Apple's notice and its token. A seam:
/// ``StoreKitAppStore`` where StoreKit exists, ``NoAppStore`` elsewhere, a
/// fake in tests (``StorefrontClient/Options/appStore``).
public protocol AppStoreEnvironment: Sendable {
    /// The App Store storefront of the device.
    func storefront() async -> AppStoreStorefrontAnswer
    /// StoreKit's `ExternalPurchaseCustomLink.isEligible`: the app has the
    /// entitlement for this storefront.
    func isEligibleForExternalPurchaseLinks() async -> Bool
    /// Shows Apple's disclosure notice; true when the buyer chose to continue.
    func showExternalPurchaseNotice() async throws -> Bool
    /// StoreKit's token of `type` (`ACQUISITION`, `SERVICES`, `LINK_OUT`), its value as StoreKit gives it.
    func externalPurchaseToken(type: String) async throws -> String?
}

/// A platform without the App Store: no storefront rules apply.
public struct NoAppStore: AppStoreEnvironment {
    public init() {}
    public func storefront() async -> AppStoreStorefrontAnswer { .notAppStore }
    public func isEligibleForExternalPurchaseLinks() async -> Bool { false }
    public func showExternalPurchaseNotice() async throws -> Bool { false }
    public func externalPurchaseToken(type: String) async throws -> String? { nil }
}

#if canImport(StoreKit)
    /// The App Store through StoreKit: `Storefront.current` and, from iOS 18.1
    /// and macOS 15.1, `ExternalPurchaseCustomLink` (earlier systems are never eligible).
    public struct StoreKitAppStore: AppStoreEnvironment {
        public init() {}

        public func storefront() async -> AppStoreStorefrontAnswer {
            guard let storefront = await Storefront.current else { return .unknown }
            return .code(storefront.countryCode)
        }

        public func isEligibleForExternalPurchaseLinks() async -> Bool {
            if #available(iOS 18.1, macOS 15.1, tvOS 18.1, watchOS 11.1, visionOS 2.1, *) {
                return await ExternalPurchaseCustomLink.isEligible
            }
            return false
        }

        public func showExternalPurchaseNotice() async throws -> Bool {
            if #available(iOS 18.1, macOS 15.1, tvOS 18.1, watchOS 11.1, visionOS 2.1, *) {
                let result = try await ExternalPurchaseCustomLink.showNotice(type: .browser)
                if case .continued = result { return true }
            }
            return false
        }

        public func externalPurchaseToken(type: String) async throws -> String? {
            if #available(iOS 18.1, macOS 15.1, tvOS 18.1, watchOS 11.1, visionOS 2.1, *) {
                return try await ExternalPurchaseCustomLink.token(for: type)?.value
            }
            return nil
        }
    }
#endif

extension StorefrontClient.Options {
    /// StoreKit's App Store where StoreKit exists, else ``NoAppStore``.
    public static var platformAppStore: any AppStoreEnvironment {
        #if canImport(StoreKit)
            StoreKitAppStore()
        #else
            NoAppStore()
        #endif
    }
}
