@testable import CheckoutService
import Foundation
import HTTPServer
import ServiceRuntime
import Testing
import ServiceSettings

/// The server's half of the checkout's end: `CHECKOUT_APP_RETURN_URL` is
/// checked at start-up and `/checkout/complete` escapes all it echoes.
/// (The page through the gateway and in a browser: StorefrontKitLiveTests.)
@Suite struct CompletionPageTests {
    static func read(_ value: String?) -> (String?, [String]) {
        var reader = ConfigReader(Environment(value.map { ["CHECKOUT_APP_RETURN_URL": $0] } ?? [:]))
        let configuration = CheckoutConfiguration.fromEnvironment(&reader)
        return (configuration.appReturnURL, reader.problems.map(\.variable))
    }

    @Test func theAppReturnLinkIsCheckedAtStartUp() {
        #expect(Self.read(nil) == (nil, []))
        #expect(Self.read("") == (nil, []), "empty is unset")
        #expect(Self.read("myapp://purchase-complete") == ("myapp://purchase-complete", []))
        #expect(Self.read("https://app.example.com/bought?x=1&y='2'") == ("https://app.example.com/bought?x=1&y='2'", []))
        for bad in [
            "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<b>", "purchase-complete", "myapp://a b",
            "myapp://" + String(repeating: "a", count: 2050),
        ] {
            #expect(Self.read(bad) == (nil, ["CHECKOUT_APP_RETURN_URL"]), "\(bad.prefix(40)) is refused")
        }
    }

    @Test func thePageEscapesTheLinkAndTheReference() throws {
        let page = CheckoutCompletionPage(appReturnURL: #"myapp://done?a=1&b="2"<x>"#)
        let request = try HTTPRequest(method: .get, target: "/checkout/complete?reference=%22%3E%3Cimg%20src%3Dx%3E")
        let response = page.response(for: request)
        let html = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == .ok && response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(html.contains(#"href="myapp://done?a=1&amp;b=&quot;2&quot;&lt;x&gt;""#))
        #expect(!html.contains("<img"), "a reference with spaces is not echoed at all")
        let plain = page.response(for: try HTTPRequest(method: .get, target: "/checkout/complete?trxref=T_1%22%3E"))
        #expect(String(decoding: plain.body, as: UTF8.self).contains(#"<code id="reference">T_1&quot;&gt;</code>"#))

        let noLink = String(decoding: CheckoutCompletionPage(appReturnURL: nil).response(for: request).body, as: UTF8.self)
        #expect(noLink.contains("close-hint") && !noLink.contains("return-to-app"))
    }
}
