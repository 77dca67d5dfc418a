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
        private let onPurchase: @MainActor (PurchaseOutcome) -> Void
        @State private var products: [Product] = []
        @State private var failure: String?
        @State private var isLoading = true

        /// - Parameters:
        ///   - client: the app's ``StorefrontClient``.
        ///   - email: pre-fills the checkout form (the signed-in user's).
        ///   - onPurchase: called with what ``StorefrontClient/awaitPurchase(checkoutID:timeout:)`` found.
        public init(client: StorefrontClient, email: String? = nil, onPurchase: @escaping @MainActor (PurchaseOutcome) -> Void = { _ in }) {
            self.client = client
            self.email = email
            self.onPurchase = onPurchase
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
                            StorefrontBuyButton(product: product, client: client, email: email, onPurchase: onPurchase)
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
    /// `openURL` (the browser), then waits for the purchase (the app's return
    /// link, passed on by ``SwiftUI/View/storefrontRedirects(_:otherwise:)``, ends the wait early).
    @MainActor
    public struct StorefrontBuyButton: View {
        private let product: Product
        private let client: StorefrontClient
        private let email: String?
        private let title: String
        private let onPurchase: @MainActor (PurchaseOutcome) -> Void
        @Environment(\.openURL) private var openURL
        @State private var isWorking = false
        @State private var failure: String?

        /// - Parameters:
        ///   - product: what to buy.
        ///   - client: the app's ``StorefrontClient``.
        ///   - email: pre-fills the checkout form.
        ///   - title: the button's label (default `Buy`).
        ///   - onPurchase: called with the outcome once the wait ends.
        public init(
            product: Product, client: StorefrontClient, email: String? = nil, title: String = "Buy",
            onPurchase: @escaping @MainActor (PurchaseOutcome) -> Void = { _ in }
        ) {
            self.product = product
            self.client = client
            self.email = email
            self.title = title
            self.onPurchase = onPurchase
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
        }

        private func buy() async {
            isWorking = true
            defer { isWorking = false }
            do {
                let checkout = try await client.createCheckout(for: product, email: email)
                openURL(checkout.url)
                onPurchase(try await client.awaitPurchase(checkout))
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
    }
#endif
