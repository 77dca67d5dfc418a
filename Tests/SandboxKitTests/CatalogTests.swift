import Testing
@testable import SandboxKit

@Suite struct CatalogTests {
    @Test func lemonSqueezyProductsPageWithVariantsIncluded() async throws {
        let h = Harness()
        var seen: [String] = []
        var number = 1
        while true {
            let r = await h.ls("GET", "/products?include=variants&page%5Bnumber%5D=\(number)&page%5Bsize%5D=3")
            #expect(r.status == 200)
            #expect(r.headers["content-type"] == "application/vnd.api+json")
            let doc = try #require(r.json)
            let page = try #require(doc["meta"]?["page"])
            #expect(page["currentPage"]?.intValue == number)
            #expect(page["perPage"]?.intValue == 3)
            #expect(page["total"]?.intValue == 7)
            #expect(page["lastPage"]?.intValue == 3)
            let data = try #require(doc["data"]?.arrayValue)
            seen += data.compactMap { $0["attributes"]?["name"]?.stringValue }
            // Every linked variant is in `included`.
            let linked = data.flatMap { $0["relationships"]?["variants"]?["data"]?.arrayValue ?? [] }.compactMap { $0["id"]?.stringValue }
            let included = (doc["included"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            #expect(!linked.isEmpty)
            #expect(Set(linked) == Set(included))
            #expect(doc["included"]?[0]?["type"]?.stringValue == "variants")
            if let next = doc["links"]?["next"]?.stringValue {
                #expect(next.contains("page%5Bnumber%5D=\(number + 1)"))
                number += 1
            } else {
                break
            }
        }
        #expect(number == 3)
        #expect(seen.count == 7)
        #expect(seen == seen.sorted())
        #expect(seen.contains("Beta Lab")) // drafts are listed; clients filter them
    }

    @Test func lemonSqueezyProductCarriesPricesAndPendingDefaultVariant() async throws {
        let h = Harness()
        let premium = try #require(await h.ls("GET", "/products/2").json?["data"]?["attributes"])
        #expect(premium["from_price"]?.intValue == 499)
        #expect(premium["to_price"]?.intValue == 4999)
        #expect(premium["price_formatted"]?.stringValue == "$4.99")
        #expect(premium["buy_now_url"]?.stringValue?.hasPrefix("http://127.0.0.1:8090/checkout/lemonsqueezy/buy/") == true)
        let icons = try #require(await h.ls("GET", "/products/1").json?["data"]?["attributes"])
        #expect(icons["price_formatted"]?.stringValue == "$9.99")
        #expect(icons["from_price"] == .null)
        let variants = try #require(await h.ls("GET", "/variants?filter%5Bproduct_id%5D=1").json?["data"]?.arrayValue)
        #expect(variants.count == 1)
        #expect(variants[0]["attributes"]?["status"]?.stringValue == "pending")
        #expect(variants[0]["attributes"]?["name"]?.stringValue == "Default")
        let draft = try #require(await h.ls("GET", "/products/3").json?["data"]?["attributes"])
        #expect(draft["status"]?.stringValue == "draft")
    }

    @Test func paystackPlansPage() async throws {
        let h = Harness()
        var codes: [String] = []
        for page in 1...3 {
            let r = await h.ps("GET", "/plan?perPage=2&page=\(page)")
            #expect(r.status == 200)
            let body = try #require(r.json)
            #expect(body["status"] == .bool(true))
            #expect(body["message"]?.stringValue == "Plans retrieved")
            #expect(body["meta"]?["total"]?.intValue == 5)
            #expect(body["meta"]?["pageCount"]?.intValue == 3)
            #expect(body["meta"]?["page"]?.intValue == page)
            #expect(body["meta"]?["perPage"]?.intValue == 2)
            let data = try #require(body["data"]?.arrayValue)
            #expect(data.count == (page == 3 ? 1 : 2))
            codes += data.compactMap { $0["plan_code"]?.stringValue }
            #expect(data.allSatisfy { $0["currency"]?.stringValue == "NGN" })
        }
        #expect(Set(codes).count == 5)
        let annual = try #require(await h.ps("GET", "/plan/PLN_sbxpremannual1").json?["data"])
        #expect(annual["interval"]?.stringValue == "annually")
        #expect(annual["amount"]?.intValue == 2_500_000)
        #expect(await h.ps("GET", "/plan/102").json?["data"]?["plan_code"]?.stringValue == "PLN_sbxpremannual1")
    }

    @Test func catalogFileIsValidated() throws {
        #expect(throws: SandboxCatalog.LoadError.self) { try SandboxCatalog.load(path: "/nonexistent/catalog.json") }
        #expect(SandboxCatalog.standard.problem() == nil)
    }
}
