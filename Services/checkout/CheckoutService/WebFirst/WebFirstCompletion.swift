import Foundation
import HTTPServer
import Telemetry

/// What the completion page shows for `?checkout_id=` (docs/web-first.md):
/// while the purchase is not projected yet, a page that reloads itself;
/// then, for a purchase without an owner, its redemption link ("Open in the
/// app", a universal link); for one with an owner, the usual thanks.
struct WebFirstCompletion: Sendable {
    let reads: WebFirstReads
    let redemptions: Redemptions
    let appReturnURL: String?

    /// Reload every 2 s for about 3 minutes, then say it takes longer.
    static let refreshSeconds = 2
    static let maximumAttempts = 90
    /// How many reloads a projected purchase may wait for its buyer email
    /// (about 30 s), so the link's `purchase.redemption_issued` event names it;
    /// after that the link is shown without.
    static let emailAttempts = 15

    /// - Parameter plain: the classic thank-you page, for checkouts of a signed-in user.
    func page(checkoutID: String, attempt: Int, plain: HTTPResponse, logger: Logger) async throws -> HTTPResponse {
        guard let checkout = try await reads.checkout(checkoutID) else { return waiting(checkoutID: checkoutID, attempt: attempt) }
        // A signed-in user's checkout: the thank-you page at once, as before web-first (the app
        // learns of the purchase itself); only an anonymous buyer waits here for the link.
        if checkout.appUserID != nil {
            return plain
        }
        // The purchase, with its buyer email: the outgoing event carries it for the seller to send the
        // link. A Stripe subscription's first event names the checkout but no email (the invoice and
        // the session, a moment later, do); a link issued then was announced with "email": null.
        guard let purchase = try await reads.purchase(ofCheckout: checkoutID, provider: checkout.provider, isSubscription: checkout.isSubscription),
            purchase.email != nil || attempt >= Self.emailAttempts
        else { return waiting(checkoutID: checkoutID, attempt: attempt) }
        guard purchase.owner == nil,
            let link = try await redemptions.completionPageLink(for: purchase, checkoutID: checkoutID, ref: checkout.ref, logger: logger)
        else {
            return HTMLPage.response(
                title: "Payment received",
                body: """
                    <h1 id="title">Payment received</h1>
                    <p id="linked">This purchase is already linked to an account. Open the app and sign in to use it.</p>
                    \(returnLink)
                    """)
        }
        let url = redemptions.url(link.token)
        return HTMLPage.response(
            title: "Payment received",
            body: """
                <h1 id="title">Payment received</h1>
                <p>Thank you! Open the app to unlock your purchase.</p>
                <p><a id="redeem-link" class="button" href="\(HTMLPage.escape(url))">Open in the app</a></p>
                <p class="note">The link works once and until \(HTMLPage.escape(link.expiresAt.formatted(.iso8601))). If the app is not installed yet, install it first, then come back and tap the link.</p>
                """)
    }

    private var returnLink: String {
        appReturnURL.map { #"<p><a id="return-to-app" class="button" href="\#(HTMLPage.escape($0))">Return to the app</a></p>"# } ?? ""
    }

    private func waiting(checkoutID: String, attempt: Int) -> HTTPResponse {
        guard attempt < Self.maximumAttempts else {
            return HTMLPage.response(
                title: "Still confirming",
                body: """
                    <h1 id="title">Still confirming your payment</h1>
                    <p id="slow">This takes longer than usual. You will receive an email with a link to open the app; \
                    or reload this page in a few minutes.</p>
                    """)
        }
        let next = "\(CheckoutCompletionPage.path)?checkout_id=\(checkoutID)&n=\(attempt + 1)"
        var response = HTMLPage.response(
            title: "Confirming your payment",
            body: """
                <h1 id="title">Confirming your payment…</h1>
                <p id="waiting">This page updates by itself. <a href="\(HTMLPage.escape(next))">Check now</a></p>
                """)
        // A refresh to the next attempt's URL, so the page knows how long it has waited.
        response.headers.replaceOrAdd(name: "Refresh", value: "\(Self.refreshSeconds); url=\(next)")
        return response
    }
}
