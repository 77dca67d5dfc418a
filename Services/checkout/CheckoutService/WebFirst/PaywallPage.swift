import Foundation
import BillingModel
import Catalog
import HTTPServer
import Telemetry

/// The hosted web paywall (docs/web-first.md): `GET /paywall` lists the
/// catalog's products with their prices and billing periods, one buy button
/// per variant; pressing it posts to `POST /paywall/checkout`, which opens
/// an anonymous checkout and redirects the browser to the provider's hosted
/// page. Plain HTML forms: no script, works with any browser and screen reader.
///
/// Query: `products=<catalog product id>,…` narrows the list; `ref=<tag>`
/// tags the campaign on the checkout (``CreateCheckoutRequest/ref``).
struct PaywallPage: Sendable {
    let catalog: CatalogCache
    let creator: CheckoutCreator
    let configuration: WebFirstConfiguration
    let maxBodyBytes: Int

    static let path = "/paywall"

    func mount(on router: some RouteRegistrar) {
        router.get(Self.path) { request, _ in
            guard configuration.anonymousCheckouts else { return Self.disabled }
            let filter = Set((request.query["products"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            let ref = request.query["ref"].flatMap { CreateCheckoutRequest.isValidRef($0) ? $0 : nil }
            return page(items: items(filter: filter.subtracting([""])), ref: ref)
        }
        router.post(Self.path + "/checkout") { request, context in
            guard configuration.anonymousCheckouts else { return Self.disabled }
            guard request.body.count <= maxBodyBytes else { return Self.problem("The form is too large.", status: 413) }
            let form = Self.formFields(request.body)
            let ref = form["ref"].flatMap { $0.isEmpty ? nil : $0 }
            // The email field of a provider that needs it (``ProviderTraits/checkoutNeedsTheEmail``); a pre-fill elsewhere.
            // As create-checkout reads it: blank (any Unicode whitespace) is no email.
            let email = form["customerEmail"]
            let body = CreateCheckoutRequest(customerEmail: email, variantId: form["variantId"] ?? "", productId: nil, ref: ref)
            let buyer = CheckoutCreator.Buyer.anonymous(address: ClientAddress.key(request, trustForwardedFor: configuration.trustForwardedFor))
            do {
                // The browser's languages choose the provider page's, where the provider takes one.
                let outcome = try await creator.create(
                    body, buyer: buyer, idempotencyKey: nil, acceptLanguage: request.headers["Accept-Language"], logger: context.logger)
                let answer = try JSONDecoder().decode(CreateCheckoutResponse.self, from: Data(outcome.body))
                return HTTPResponse(status: 303, headers: ["Location": answer.checkoutUrl, "Cache-Control": "no-store"], body: [])
            } catch let error as HTTPError {
                return Self.problem(error.message, status: error.status)
            }
        }
    }

    /// The loaded catalog's items, in the catalog's order, narrowed to `filter`'s product ids when it names any.
    func items(filter: Set<String>) -> [CatalogItem] {
        catalog.contents.loaded.flatMap(\.items).filter { item in
            filter.isEmpty || item.catalogProductID.map { filter.contains($0.description) } == true
        }
    }

    func page(items: [CatalogItem], ref: String?) -> HTTPResponse {
        let rows = items.compactMap { item -> String? in
            guard let variant = item.catalogVariantID else { return nil }
            let period = item.interval.map { " / " + Self.describe($0) } ?? ""
            let refField = ref.map { #"<input type="hidden" name="ref" value="\#(HTMLPage.escape($0))">"# } ?? ""
            // A provider that cannot open a checkout without the buyer's email (Paystack) asks for it here.
            let emailField =
                variant.provider.traits.checkoutNeedsTheEmail
                ? #"<p><label>Email <input type="email" name="customerEmail" required maxlength="254" autocomplete="email"></label></p>"# : ""
            return """
                <li><h2>\(HTMLPage.escape(item.name))</h2><p>\(HTMLPage.escape(item.descriptionText))</p>
                <p class="price">\(HTMLPage.escape(item.formattedPrice))\(HTMLPage.escape(period))</p>
                <form method="post" action="\(Self.path)/checkout"><input type="hidden" name="variantId" value="\(HTMLPage.escape(variant.description))">\(refField)\(emailField)
                <button class="button buy" type="submit" aria-label="\(item.interval == nil ? "Buy" : "Subscribe to") \(HTMLPage.escape(item.name))">\(item.interval == nil ? "Buy" : "Subscribe")</button></form></li>
                """
        }
        let list = rows.isEmpty ? #"<p id="empty">Nothing is for sale right now.</p>"# : #"<ul class="products">\#(rows.joined())</ul>"#
        return HTMLPage.response(title: "Choose your plan", body: #"<h1 id="title">Choose your plan</h1>\#(list)"#, allowsForms: true)
    }

    static func describe(_ interval: BillingInterval) -> String {
        interval.count == 1 ? interval.unit.rawValue : "\(interval.count) \(interval.unit.rawValue)s"
    }

    static var disabled: HTTPResponse {
        problem("The web paywall is not enabled (CHECKOUT_ANONYMOUS=off).", status: .notFound)
    }

    static func problem(_ message: String, status: HTTPStatus) -> HTTPResponse {
        HTMLPage.response(
            title: "Something went wrong", body: #"<h1 id="title">Something went wrong</h1><p id="problem">\#(HTMLPage.escape(message))</p>"#,
            status: status)
    }

    /// `application/x-www-form-urlencoded` fields (the first of each name).
    static func formFields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard let name = parts.first, !name.isEmpty, fields[name] == nil else { continue }
            fields[name] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}
