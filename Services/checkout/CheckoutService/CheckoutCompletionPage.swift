import Foundation
import HTTPServer

/// `GET /checkout/complete`: the page the provider sends the buyer to after
/// paying (what `CHECKOUT_REDIRECT_URL` points to in `scripts/stack.sh` and
/// `deploy/sandbox.env`). It says the payment went through and, when
/// `CHECKOUT_APP_RETURN_URL` is set, links back to the app (its deep link),
/// where StorefrontKit's `handleRedirect(_:)` refreshes the entitlements.
///
/// The page needs no token and reveals nothing: it echoes only the payment
/// reference the provider appended (Paystack `reference`/`trxref`), HTML-escaped
/// and bounded, and the configured link, escaped for its attribute.
struct CheckoutCompletionPage: Sendable {
    /// The app's return link, or nil for a page without one.
    let appReturnURL: String?
    /// With `checkout_id` in the URL: finds the purchase and, for an
    /// anonymous one, shows its redemption link (docs/web-first.md); nil: the plain page.
    var redemption: WebFirstCompletion? = nil

    static let path = "/checkout/complete"

    func mount(on router: some RouteRegistrar) {
        router.get(Self.path) { request, context in
            if let redemption, let checkoutID = try await checkoutID(of: request, reads: redemption.reads) {
                return try await redemption.page(
                    checkoutID: checkoutID, attempt: Int(request.query["n"] ?? "") ?? 0, plain: response(for: request), logger: context.logger)
            }
            return response(for: request)
        }
    }

    /// The checkout the page is for: `checkout_id`, or (a provider that
    /// rewrites the return URL's query) the checkout whose provider reference
    /// (Paystack's `reference`) is in it.
    func checkoutID(of request: HTTPRequest, reads: WebFirstReads) async throws -> String? {
        if let id = Self.checkoutID(request.query["checkout_id"]) { return id }
        guard let reference = Self.reference(request.query["reference"] ?? request.query["trxref"]) else { return nil }
        return try await reads.checkoutID(providerReference: reference)
    }

    /// A checkout id as Storefront makes them (a lower-case UUID), or nil.
    static func checkoutID(_ value: String?) -> String? {
        guard let value, value.utf8.count == 36, UUID(uuidString: value) != nil else { return nil }
        return value.lowercased()
    }

    func response(for request: HTTPRequest) -> HTTPResponse {
        let reference = Self.reference(request.query["reference"] ?? request.query["trxref"])
        let headers: HTTPHeaders = [
            "Content-Type": "text/html; charset=utf-8",
            "Cache-Control": "no-store",
            // Nothing to load, run, frame or submit; the reference stays out of Referer headers.
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        ]
        return HTTPResponse(status: .ok, headers: headers, body: Array(html(reference: reference).utf8))
    }

    func html(reference: String?) -> String {
        let back =
            appReturnURL.map {
                #"<p><a id="return-to-app" class="button" href="\#(Self.escape($0))">Return to the app</a></p>"#
            } ?? #"<p id="close-hint">You can close this page and go back to the app.</p>"#
        let referenceLine = reference.map { #"<p class="note">Payment reference: <code id="reference">\#(Self.escape($0))</code></p>"# } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="robots" content="noindex"><title>Payment received</title>
            <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222;text-align:center}
            .button{display:inline-block;padding:.75rem 1.5rem;border-radius:8px;background:#5423e7;color:#fff;text-decoration:none;font-size:1.1rem}
            .note{color:#777;font-size:.85rem}</style></head>
            <body><h1 id="title">Payment received</h1>
            <p>Thank you! Your payment went through. It can take a few seconds to show up in the app.</p>
            \(back)
            \(referenceLine)
            </body></html>
            """
    }

    /// The provider's reference, if it looks like one: at most 100 printable ASCII characters.
    static func reference(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 100, value.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { return nil }
        return value
    }

    /// Escapes text for HTML content and double- or single-quoted attributes.
    static func escape(_ text: String) -> String { HTMLPage.escape(text) }
}
