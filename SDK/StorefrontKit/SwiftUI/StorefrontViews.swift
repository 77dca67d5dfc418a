#if canImport(SwiftUI)
    import Foundation
    import SwiftUI

    /// A paywall-style list of the products for sale, each with a
    /// ``StorefrontBuyButton`` (the seed tutorial's `ProductListView`, on StorefrontKit).
    ///
    /// ```swift
    /// StorefrontProductList(client: storefront, email: user.email) { outcome in
    ///     if case .purchased = outcome { showThanks = true }
    /// }
    /// ```
    @MainActor
    public struct StorefrontProductList: View {
        private let client: StorefrontClient
        private let email: String?
        private let onOutcome: @MainActor (CheckoutOutcome) -> Void
        @State private var products: [Product] = []
        @State private var failure: String?
        @State private var isLoading = true

        /// - Parameters:
        ///   - client: the app's ``StorefrontClient``.
        ///   - email: pre-fills the checkout form (the signed-in user's).
        ///   - onOutcome: called with what ``StorefrontClient/awaitCheckout(_:timeout:)`` found.
        public init(client: StorefrontClient, email: String? = nil, onOutcome: @escaping @MainActor (CheckoutOutcome) -> Void = { _ in }) {
            self.client = client
            self.email = email
            self.onOutcome = onOutcome
        }

        /// The older form, with a ``PurchaseOutcome`` (a closed checkout is ``PurchaseOutcome/expired``).
        @_disfavoredOverload
        @available(*, deprecated, message: "Use init(client:email:onOutcome:), whose CheckoutOutcome tells a closed checkout (.cancelled)")
        public init(client: StorefrontClient, email: String? = nil, onPurchase: @escaping @MainActor (PurchaseOutcome) -> Void = { _ in }) {
            self.init(client: client, email: email, onOutcome: { onPurchase(PurchaseOutcome($0)) })
        }

        /// The list, a spinner while loading, or the error.
        public var body: some View {
            Group {
                if isLoading {
                    ProgressView()
                } else if let failure {
                    Text(failure).foregroundStyle(.red)
                } else {
                    List(products) { product in
                        HStack {
                            VStack(alignment: .leading) {
                                Text(product.name).font(.headline)
                                Text(product.priceFormatted).font(.subheadline).foregroundStyle(.secondary)
                            }
                            Spacer()
                            StorefrontBuyButton(product: product, client: client, email: email, onOutcome: onOutcome)
                        }
                    }
                }
            }
            .task { await load() }
        }

        private func load() async {
            do {
                products = try await client.products()
            } catch {
                failure = error.message
            }
            isLoading = false
        }
    }

    /// Buys one product: opens its hosted checkout with the environment's
    /// `openURL` (the browser), then waits for the outcome. The app's return
    /// link, passed on by ``SwiftUI/View/storefrontRedirects(_:otherwise:)``,
    /// ends the wait early; so does coming back to the app from the browser
    /// without paying (reported with ``StorefrontClient/checkoutClosed(checkoutID:)``:
    /// the outcome is then ``CheckoutOutcome/cancelled`` and the button is enabled again).
    @MainActor
    public struct StorefrontBuyButton: View {
        private let product: Product
        private let client: StorefrontClient
        private let email: String?
        private let title: String
        private let onOutcome: @MainActor (CheckoutOutcome) -> Void
        @Environment(\.openURL) private var openURL
        @Environment(\.scenePhase) private var scenePhase
        @State private var isWorking = false
        @State private var failure: String?
        @State private var openCheckout: CheckoutSession?
        @State private var returnDetector = BrowserReturnDetector()

        /// - Parameters:
        ///   - product: what to buy.
        ///   - client: the app's ``StorefrontClient``.
        ///   - email: pre-fills the checkout form.
        ///   - title: the button's label (default `Buy`).
        ///   - onOutcome: called with the outcome once the wait ends.
        public init(
            product: Product, client: StorefrontClient, email: String? = nil, title: String = "Buy",
            onOutcome: @escaping @MainActor (CheckoutOutcome) -> Void = { _ in }
        ) {
            self.product = product
            self.client = client
            self.email = email
            self.title = title
            self.onOutcome = onOutcome
        }

        /// The older form, with a ``PurchaseOutcome`` (a closed checkout is ``PurchaseOutcome/expired``).
        @_disfavoredOverload
        @available(
            *, deprecated, message: "Use init(product:client:email:title:onOutcome:), whose CheckoutOutcome tells a closed checkout (.cancelled)"
        )
        public init(
            product: Product, client: StorefrontClient, email: String? = nil, title: String = "Buy",
            onPurchase: @escaping @MainActor (PurchaseOutcome) -> Void = { _ in }
        ) {
            self.init(product: product, client: client, email: email, title: title, onOutcome: { onPurchase(PurchaseOutcome($0)) })
        }

        /// The button (a spinner while busy) and an alert for errors.
        public var body: some View {
            Button {
                Task { await buy() }
            } label: {
                if isWorking { ProgressView() } else { Text(title) }
            }
            .buttonStyle(.borderedProminent)
            .disabled(isWorking)
            .alert("Purchase failed", isPresented: Binding(get: { failure != nil }, set: { if !$0 { failure = nil } })) {
                Button("OK", role: .cancel) {}
            } message: {
                Text(failure ?? "")
            }
            .task(id: scenePhase) {
                // Back from the browser while the checkout is open: the page was left.
                if returnDetector.phaseChanged(isActive: scenePhase == .active), let openCheckout {
                    client.checkoutClosed(openCheckout)
                }
            }
        }

        private func buy() async {
            isWorking = true
            defer {
                isWorking = false
                openCheckout = nil
                returnDetector.finished()
            }
            do {
                let checkout = try await client.createCheckout(for: product, email: email)
                openCheckout = checkout
                returnDetector.checkoutOpened()
                openURL(checkout.url)
                onOutcome(try await client.awaitCheckout(checkout))
            } catch {
                failure = error.message
            }
        }
    }

    extension View {
        /// Hands the URLs the app opens to ``StorefrontClient/handleRedirect(_:)``,
        /// so returning from a checkout refreshes the entitlements at once.
        /// - Parameter otherwise: gets the URLs that are not checkout return links.
        public func storefrontRedirects(_ client: StorefrontClient, otherwise: ((URL) -> Void)? = nil) -> some View {
            onOpenURL { url in
                if !client.handleRedirect(url) { otherwise?(url) }
            }
        }

        /// Shows `paywall` instead of this view unless the entitlement is
        /// active, following ``StorefrontClient/entitlementSnapshots()`` (so a
        /// purchase, a refresh or an expiry switches it by itself). Offline,
        /// the cached entitlements decide: a paying user keeps the content.
        /// While nothing is known yet, a spinner. The decision is
        /// ``PaywallGate/decision(for:snapshot:)``.
        ///
        /// ```swift
        /// PremiumView()
        ///     .storefrontPaywall(entitlement: "premium", client: storefront) {
        ///         StorefrontProductList(client: storefront)
        ///     }
        /// ```
        public func storefrontPaywall<Paywall: View>(
            entitlement: String, client: StorefrontClient, @ViewBuilder paywall: @escaping () -> Paywall
        ) -> some View {
            modifier(StorefrontPaywallModifier(entitlement: entitlement, client: client, paywall: paywall))
        }
    }

    /// ``SwiftUI/View/storefrontPaywall(entitlement:client:paywall:)``.
    @MainActor
    struct StorefrontPaywallModifier<Paywall: View>: ViewModifier {
        let entitlement: String
        let client: StorefrontClient
        let paywall: () -> Paywall
        @State private var snapshot: EntitlementsSnapshot?

        func body(content: Content) -> some View {
            Group {
                switch PaywallGate.decision(for: entitlement, snapshot: snapshot) {
                case .loading: ProgressView()
                case .unlocked: content
                case .paywall: paywall()
                }
            }
            .task(id: entitlement) {
                for await next in await client.entitlementSnapshots() { snapshot = next }
            }
        }
    }
#endif
