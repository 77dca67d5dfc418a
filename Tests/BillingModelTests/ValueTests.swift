import Foundation
import Testing
@testable import BillingModel
import JSONCodec

@Suite struct CatalogIDTests {
    @Test(arguments: [
        (Provider.lemonsqueezy, "123", "ls_123"), (.paystack, "PLN_gx2wn530m0i3w3m", "ps_PLN_gx2wn530m0i3w3m"),
        (.paystack, "item.ebook-v2", "ps_item.ebook-v2"),
    ])
    func roundTrips(provider: Provider, raw: String, opaque: String) throws {
        let id = try #require(CatalogID(provider: provider, rawID: raw))
        #expect(id.description == opaque)
        let parsed = try #require(CatalogID(opaque))
        #expect(parsed.provider == provider && parsed.rawID == raw)
        let json = try JSONEncoder().encode(id)
        #expect(String(decoding: json, as: UTF8.self) == "\"\(opaque)\"")
        #expect(try JSONDecoder().decode(CatalogID.self, from: json) == id)
    }

    @Test func sameRawIDFromTwoProvidersStaysDistinct() {
        #expect(CatalogID(provider: .lemonsqueezy, rawID: "7")?.description != CatalogID(provider: .paystack, rawID: "7")?.description)
    }

    @Test(arguments: ["", "123", "ls_", "xx_123", "ls_12 3", "ps_PLN/x", "LS_1", "ls_" + String(repeating: "9", count: 129)])
    func rejectsMalformed(text: String) {
        #expect(CatalogID(text) == nil)
    }
}

@Suite struct EmailAddressTests {
    @Test(arguments: ["a@b.co", "first.last+tag@sub.example.com", "o'neil@example.ie", "x_y-z@ex-ample.ng", "  padded@example.com\n"])
    func accepts(text: String) { #expect(EmailAddress(text) != nil) }

    @Test(arguments: [
        "", "plain", "@example.com", "a@", "a@b", "a@b.c", "a@@b.co", "a@b@c.co", ".a@b.co", "a.@b.co", "a..b@c.co",
        "a b@c.co", "a@-b.co", "a@b-.co", "a@b..co", "a@b.c0m", "\"q\"@b.co", "ü@b.co",
        String(repeating: "a", count: 65) + "@b.co", "a@" + String(repeating: "b", count: 64) + ".co",
    ])
    func rejects(text: String) { #expect(EmailAddress(text) == nil, "\(text)") }

    @Test func normalisesDomainCaseOnly() {
        #expect(EmailAddress("Ada.Obi@Example.COM")?.value == "Ada.Obi@example.com")
    }
}

@Suite struct MoneyFormatterTests {
    @Test(arguments: [
        (Int64(999), "USD", "$9.99"), (123_456_789, "usd", "$1,234,567.89"), (0, "USD", "$0.00"), (5, "USD", "$0.05"),
        (500_000, "NGN", "₦5,000.00"), (110_000, "NGN", "₦1,100.00"),
        (250_050, "GHS", "GH₵2,500.50"), (1_999_900, "ZAR", "R19,999.00"), (100_000, "KES", "KSh 1,000.00"),
        (1499, "EUR", "€14.99"), (-100, "USD", "-$1.00"), (1500, "JPY", "¥1,500"), (1234, "KWD", "KWD 1.234"),
        (999, "CHF", "CHF 9.99"),
    ])
    func formats(minor: Int64, currency: String, expected: String) {
        #expect(MoneyFormatter.format(minorUnits: minor, currency: currency) == expected)
    }

    @Test func moneyValueUsesTheFormatter() {
        #expect(Money(minorUnits: 1859, currency: "eur").formatted == "€18.59")
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2024-06-19T14:08:13.000000Z", 1_718_806_093.0), ("2016-09-30T21:10:19.000Z", 1_475_269_819.0),
        ("2020-11-26T15:00:00Z", 1_606_402_800.0), ("2025-01-01T01:00:00+01:00", 1_735_689_600.0),
        ("2025-01-01 00:00:00.5", 1_735_689_600.5), ("2000-02-29T00:00:00-0230", 951_791_400.0),
    ])
    func parsesProviderFormats(text: String, seconds: Double) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_5)
    }

    @Test(arguments: [
        "", "2024-06-19", "2024-13-01T00:00:00Z", "2024-06-19T14:08:13.Z", "2024-06-19T14:08:13Zjunk", "yesterday",
        "0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00",
    ])
    func rejects(text: String) { #expect(Timestamp.parse(text) == nil) }

    @Test func formatsAsUTCMilliseconds() throws {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_718_806_093.25)) == "2024-06-19T14:08:13.250Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
        let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        #expect(Timestamp.parse(Timestamp.format(now)) == now)
    }

    /// Every instant parse accepts, format writes back (the projector logs
    /// events and reads them again; a year -1 once made that impossible).
    @Test(arguments: ["0000-01-01T00:00:00Z", "0000-01-01T05:00:00+04:00", "9999-12-31T23:59:59Z", "9999-12-31T22:00:00-01:00"])
    func extremesRoundTrip(text: String) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(Timestamp.parse(Timestamp.format(date)) == date)
    }
}

@Suite struct HTMLTextTests {
    @Test func stripsTagsAndDecodesEntities() {
        let html = "<p>Line <strong>one</strong> &amp; &#8220;two&#x201D;</p>\n<ul><li>a&nbsp;b</li><li>c &lt;d&gt;</li></ul>Done &unknown; <br/>end"
        #expect(HTMLText.plainText(fromHTML: html) == "Line one & “two”\na b\nc <d>\nDone &unknown;\nend")
        #expect(HTMLText.plainText(fromHTML: "") == "")
        #expect(HTMLText.plainText(fromHTML: "a < b and c > d") == "a < b and c > d")
    }
}

@Suite struct BillingIntervalTests {
    @Test func mapsProviderIntervals() {
        #expect(BillingInterval(paystackInterval: "quarterly") == BillingInterval(unit: .month, count: 3))
        #expect(BillingInterval(paystackInterval: "biannually") == BillingInterval(unit: .month, count: 6))
        #expect(BillingInterval(paystackInterval: "annually") == BillingInterval(unit: .year))
        #expect(BillingInterval(paystackInterval: "hourly")?.unit == .hour)
        #expect(BillingInterval(paystackInterval: "fortnightly") == nil)
        #expect(BillingInterval(lemonSqueezyInterval: "week", count: 2) == BillingInterval(unit: .week, count: 2))
        #expect(BillingInterval(lemonSqueezyInterval: nil, count: nil) == nil)
    }
}

@Suite struct JSONTextTests {
    /// The hand-written writer must produce exactly JSONEncoder's bytes
    /// (`.withoutEscapingSlashes`), escapes and non-ASCII included.
    @Test(arguments: ["", "plain", "a\"b\\c/d", "\u{08}\u{0C}\n\r\t\u{01}\u{1F}", "ünïcødé 😀 \u{7F}", "end\\"])
    func matchesJSONEncoder(text: String) throws {
        var written: [UInt8] = []
        JSONText.appendQuoted(text, to: &written)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: try encoder.encode(text), as: UTF8.self))
    }
}
