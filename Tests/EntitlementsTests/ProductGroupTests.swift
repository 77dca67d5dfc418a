import BillingModel
import Entitlements
import Testing

/// `product_groups` in the entitlements file: the plans a subscription may change between.
@Suite struct ProductGroupTests {
    static func parse(_ text: String) throws(EntitlementsConfiguration.Invalid) -> EntitlementsConfiguration {
        try EntitlementsConfiguration.parse(Array(text.utf8))
    }

    static let entitlements = #""entitlements": {"premium": {"lemonsqueezy": {"products": ["2"]}}}"#

    @Test func groupsNameEachProvidersPlans() throws {
        let configuration = try Self.parse(
            #"{\#(Self.entitlements), "product_groups": {"premium": {"lemonsqueezy": ["2", 3], "stripe": ["price_M"]}}}"#)
        #expect(configuration.productGroup(.lemonsqueezy, variantID: "3")?.name == "premium")
        #expect(configuration.productGroup(.stripe, variantID: "price_M")?.name == "premium")
        #expect(configuration.productGroup(.lemonsqueezy, variantID: "price_M") == nil)
        #expect(configuration.productGroup(.paystack, variantID: nil) == nil)
        #expect(try Self.parse("{\(Self.entitlements)}").productGroups.isEmpty, "groups are optional")
    }

    @Test func aBrokenGroupNamesWhereItIs() {
        func problems(_ groups: String) -> [String] {
            do throws(EntitlementsConfiguration.Invalid) {
                _ = try Self.parse(#"{\#(Self.entitlements), "product_groups": \#(groups)}"#)
                return []
            } catch {
                return error.problems
            }
        }
        #expect(problems("[]") == [#""product_groups" must be an object of group names"#])
        #expect(
            problems(#"{"a": {"lemonsqueezy": ["2"]}, "b": {"lemonsqueezy": ["2"]}}"#) == [
                #"product_groups.b.lemonsqueezy: "2" is already in product_groups.a"#
            ])
        #expect(problems(#"{"a": {"gumroad": ["2"]}}"#).contains { $0.contains(#"unknown key "gumroad""#) })
        #expect(problems(#"{"a": {}}"#) == ["product_groups.a: names no plan"])
    }
}
