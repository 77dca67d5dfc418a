/// The small HTML pages of the hosted checkout; plain forms, so they work without JavaScript.
enum CheckoutPage {
    struct Item {
        let provider: SandboxProvider
        let id: String
        let title: String
        let detail: String
        let price: String
        let email: String
    }

    static func layout(_ title: String, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Formatting.html(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
        .card{border:1px solid #ddd;border-radius:12px;padding:1.5rem}.price{font-size:2rem;font-weight:700}
        input{width:100%;padding:.5rem;margin:.25rem 0 1rem;box-sizing:border-box}button{width:100%;padding:.75rem;font-size:1rem;border:0;border-radius:8px;background:#5423e7;color:#fff}
        .note{color:#777;font-size:.85rem}</style></head>
        <body><div class="card">\(body)</div><p class="note">provider-sandbox: nothing here is a real payment.</p></body></html>
        """
    }

    static func checkout(_ item: Item) -> String {
        let providerName =
            switch item.provider {
            case .lemonSqueezy: "Lemon Squeezy (sandbox)"
            case .paystack: "Paystack (sandbox)"
            case .stripe: "Stripe Checkout (sandbox)"
            }
        return layout(
            "Checkout – \(item.title)",
            """
            <p class="note">\(providerName)</p>
            <h1>\(Formatting.html(item.title))</h1>
            <p>\(Formatting.html(item.detail))</p>
            <p class="price">\(Formatting.html(item.price))</p>
            <form method="post" action="/checkout/\(item.provider.rawValue)/\(Formatting.html(item.id))/pay">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" required value="\(Formatting.html(item.email))">
            <p class="note">Test card 4242 4242 4242 4242 is always accepted.</p>
            <button type="submit">Pay \(Formatting.html(item.price))</button>
            </form>
            """)
    }

    static func message(_ title: String, _ text: String) -> String {
        layout(title, "<h1>\(Formatting.html(title))</h1><p>\(Formatting.html(text))</p>")
    }
}
