import HTTPServer

/// `GET /redeem/{token}`: what a redemption link shows when it opens in a
/// browser instead of the app (the app is not installed, or the link was
/// opened on a computer). It never redeems: only the app, with its user's
/// token, can (`POST /api/redeem`).
struct RedeemLandingPage: Sendable {
    let appStoreURL: String?

    func mount(on router: some RouteRegistrar) {
        router.get("/redeem/{token}") { request, context in
            let token = RedemptionTokens.parse(context.parameters["token"] ?? "")
            return page(token: token)
        }
    }

    func page(token: String?) -> HTTPResponse {
        guard let token else {
            return HTMLPage.response(
                title: "Link not valid", body: #"<h1 id="title">This link is not valid</h1><p>Check that you copied the whole link.</p>"#,
                status: .notFound)
        }
        let store =
            appStoreURL.map { #"<p><a id="app-store" class="button" href="\#(HTMLPage.escape($0))">Get the app</a></p>"# } ?? ""
        return HTMLPage.response(
            title: "Open the app",
            body: """
                <h1 id="title">Open the app to unlock your purchase</h1>
                <p>This link opens the app when it is installed. Install it, then tap the link in your email (or this page's link) again.</p>
                \(store)
                <p class="note">Your code: <code id="redeem-code">\(HTMLPage.escape(token))</code></p>
                """)
    }
}
