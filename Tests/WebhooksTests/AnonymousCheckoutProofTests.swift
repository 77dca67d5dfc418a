import ServiceSettings
import BillingModel
import Testing
@testable import Webhooks

/// An anonymous (web-first) checkout's proof: it proves the checkout id
/// alone, can never pass for a user's proof, and never names an owner.
@Suite struct AnonymousCheckoutProofTests {
    static let maker = OwnershipProofTests.maker
    static let checkout = OwnershipProofTests.checkout

    @Test func anAnonymousProofVerifiesForItsCheckoutOnly() throws {
        let proof = Self.maker.proof(anonymousCheckoutID: Self.checkout)
        #expect(proof.count == 64)
        #expect(Self.maker.verify(proof, anonymousCheckoutID: Self.checkout))
        #expect(!Self.maker.verify(proof, anonymousCheckoutID: "another-checkout"))
        #expect(!Self.maker.verify(proof, anonymousCheckoutID: ""))
        // Not a user's proof for any user, and a user's proof is not an anonymous one.
        #expect(!Self.maker.verify(proof, checkoutID: Self.checkout, appUserID: OwnershipProofTests.user))
        let userProof = Self.maker.proof(checkoutID: Self.checkout, appUserID: OwnershipProofTests.user)
        #expect(!Self.maker.verify(userProof, anonymousCheckoutID: Self.checkout))
        let otherKey = try OwnershipProof(key: Secret("another-key-that-is-long-enough-0123456789"))
        #expect(!otherKey.verify(proof, anonymousCheckoutID: Self.checkout))
    }

    @Test func checkKeepsAProvenAnonymousCheckoutWithoutAnOwner() {
        var event = OwnershipProofTests.event([
            CustomDataKeys.checkoutID: Self.checkout, CustomDataKeys.proof: Self.maker.proof(anonymousCheckoutID: Self.checkout),
        ])
        #expect(Self.maker.check(&event) == .provenAnonymousCheckout)
        #expect(event.checkoutID == Self.checkout && event.appUserID == nil)
    }

    @Test func anAnonymousProofBesideAUserNamesNobody() {
        // Custom data that adds a user to an anonymous checkout's proof (a buy link's forged
        // `checkout[custom][storefront_user_id]`) is unproven: both ids are cleared.
        var event = OwnershipProofTests.event([
            CustomDataKeys.appUserID: "victim", CustomDataKeys.checkoutID: Self.checkout,
            CustomDataKeys.proof: Self.maker.proof(anonymousCheckoutID: Self.checkout),
        ])
        #expect(Self.maker.check(&event) == .unproven)
        #expect(event.appUserID == nil && event.checkoutID == nil)
    }

    @Test func derivedSecretsDifferByPurposeAndFromTheKey() {
        let a = Self.maker.derivedSecret(purpose: "anonymous-user-token")
        let b = Self.maker.derivedSecret(purpose: "redemption-token")
        #expect(a != nil && b != nil && a != b && a?.count == 32)
    }
}
