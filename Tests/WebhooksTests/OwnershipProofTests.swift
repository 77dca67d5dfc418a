import ServiceSettings
import BillingModel
import TestSupport
import Testing
import Webhooks

/// The ownership proof: made by the checkout, checked by the projector; only
/// the exact (checkout id, app user id) pair under the same key verifies.
@Suite struct OwnershipProofTests {
    static let key = Secret("0123456789abcdef0123456789abcdef-test-only")
    static let maker = try! OwnershipProof(key: key)
    static let checkout = "2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d"
    static let user = "user-7f3a"

    @Test func aProofVerifiesForItsPairOnly() throws {
        let proof = Self.maker.proof(checkoutID: Self.checkout, appUserID: Self.user)
        #expect(proof.count == 64 && proof.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(Self.maker.verify(proof, checkoutID: Self.checkout, appUserID: Self.user))
        // Upper-case hex is the same bytes.
        #expect(Self.maker.verify(proof.uppercased(), checkoutID: Self.checkout, appUserID: Self.user))
        // Deterministic: the same pair, the same proof.
        #expect(Self.maker.proof(checkoutID: Self.checkout, appUserID: Self.user) == proof)

        #expect(!Self.maker.verify(proof, checkoutID: Self.checkout, appUserID: "user-other"), "wrong user")
        #expect(!Self.maker.verify(proof, checkoutID: "another-checkout", appUserID: Self.user), "wrong checkout")
        #expect(!Self.maker.verify(proof, checkoutID: Self.user, appUserID: Self.checkout), "fields swapped")
        let otherKey = try OwnershipProof(key: Secret("another-key-that-is-long-enough-0123456789"))
        #expect(!otherKey.verify(proof, checkoutID: Self.checkout, appUserID: Self.user), "wrong key")
        #expect(otherKey.proof(checkoutID: Self.checkout, appUserID: Self.user) != proof)
    }

    @Test(arguments: [
        ("truncated", 63), ("one digit short of a byte", 62), ("empty", 0),
    ])
    func malformedProofsAreRefused(_ what: String, keep: Int) {
        let proof = Self.maker.proof(checkoutID: Self.checkout, appUserID: Self.user)
        #expect(!Self.maker.verify(String(proof.prefix(keep)), checkoutID: Self.checkout, appUserID: Self.user), "\(what)")
    }

    @Test func nonHexLongerAndSpacedProofsAreRefused() {
        let proof = Self.maker.proof(checkoutID: Self.checkout, appUserID: Self.user)
        for bad in [
            String(proof.dropLast()) + "g", String(repeating: "z", count: 64), proof + "00", " " + proof, proof + "\n",
            String(proof.dropLast(2)) + "é",
        ] {
            #expect(!Self.maker.verify(bad, checkoutID: Self.checkout, appUserID: Self.user), "\(bad.debugDescription)")
        }
    }

    @Test func emptyIdsNeverVerify() {
        for (checkout, user) in [("", Self.user), (Self.checkout, ""), ("", "")] {
            let proof = Self.maker.proof(checkoutID: checkout, appUserID: user)
            #expect(!Self.maker.verify(proof, checkoutID: checkout, appUserID: user))
        }
    }

    /// Length prefixes: moving bytes from one field to the other is another message.
    @Test func theEncodingIsUnambiguous() {
        let split = Self.maker.proof(checkoutID: "ab", appUserID: "c")
        #expect(!Self.maker.verify(split, checkoutID: "a", appUserID: "bc"))
        #expect(Self.maker.proof(checkoutID: "a", appUserID: "bc") != split)
    }

    /// A known answer, computed independently (Python `hmac`, see
    /// Tests/Fixtures/SOURCES.md): the fixtures' proof under the test key.
    @Test func knownAnswerUnderTheTestKey() {
        #expect(
            TestOwnership.proof(checkoutID: Self.checkout, appUserID: Self.user)
                == "f9c75b297ee11239f6f0e2e894d79f7e4deb9304fc4debf57a68b758185cfe02")
    }

    @Test func shortKeysAreRefusedAndTheKeyIsNeverShown() throws {
        #expect(throws: OwnershipProof.KeyError.tooShort(bytes: 31)) { try OwnershipProof(key: Secret(String(repeating: "k", count: 31))) }
        #expect(throws: OwnershipProof.KeyError.tooShort(bytes: 0)) { try OwnershipProof(key: Secret("")) }
        _ = try OwnershipProof(key: Secret(String(repeating: "k", count: 32)))
        let shown = "\(Self.maker) \(String(reflecting: Self.maker))"
        #expect(!shown.contains("0123456789abcdef"), "\(shown)")
    }

    /// What the checkout and the projector do: the required read, then ``OwnershipProof/configured(key:reader:)``.
    static func read(_ environment: [String: String]) -> (OwnershipProof, [ConfigurationProblem]) {
        var reader = ConfigReader(Environment(environment))
        let key = reader.required.secret("OWNERSHIP_PROOF_KEY")
        let proof = OwnershipProof.configured(key: key, reader: &reader)
        return (proof, reader.problems)
    }

    @Test func theKeyComesFromTheEnvironment() throws {
        let good = String(repeating: "a", count: 64)
        let (configured, none) = Self.read(["OWNERSHIP_PROOF_KEY": good])
        #expect(none.isEmpty)
        let direct = try OwnershipProof(key: Secret(good))
        #expect(configured.proof(checkoutID: "c", appUserID: "u") == direct.proof(checkoutID: "c", appUserID: "u"))

        let (placeholder, unset) = Self.read([:])
        #expect(unset.map(\.variable) == ["OWNERSHIP_PROOF_KEY"] && unset.count == 1)
        #expect(unset.first?.message.contains("required") == true)
        #expect(placeholder.proof(checkoutID: "c", appUserID: "u").isEmpty, "the placeholder makes no proofs")
        #expect(!placeholder.verify(direct.proof(checkoutID: "c", appUserID: "u"), checkoutID: "c", appUserID: "u"))

        let (_, short) = Self.read(["OWNERSHIP_PROOF_KEY": "too-short"])
        #expect(short.map(\.variable) == ["OWNERSHIP_PROOF_KEY"])
        #expect(short.first?.message.contains("at least 32 bytes") == true)
        #expect(short.first?.message.contains("too-short") == false, "the key is never echoed")
        // Empty counts as unset: reported once.
        let (_, empty) = Self.read(["OWNERSHIP_PROOF_KEY": ""])
        #expect(empty.map(\.variable) == ["OWNERSHIP_PROOF_KEY"])
        let (_, both) = Self.read(["OWNERSHIP_PROOF_KEY": good, "OWNERSHIP_PROOF_KEY_FILE": "/nonexistent"])
        #expect(both.count == 1)
    }

    // MARK: - Checking an event's claim

    static func event(_ customData: [String: String]) -> BillingEvent {
        var event = BillingEvent(kind: .subscriptionCreated, provider: .lemonsqueezy, providerEventName: "subscription_created", entityKey: "k")
        event.customData = customData
        event.appUserID = customData[CustomDataKeys.appUserID]
        event.checkoutID = customData[CustomDataKeys.checkoutID]
        return event
    }

    @Test func aProvenClaimIsKept() {
        let data = [
            CustomDataKeys.appUserID: Self.user, CustomDataKeys.checkoutID: Self.checkout,
            CustomDataKeys.proof: Self.maker.proof(checkoutID: Self.checkout, appUserID: Self.user),
        ]
        var event = Self.event(data)
        #expect(Self.maker.check(&event) == .proven)
        #expect(event.appUserID == Self.user && event.checkoutID == Self.checkout && event.customData == data)
    }

    @Test(arguments: [
        ("no proof", nil as String?),
        ("garbage", "not-a-proof"),
        ("another user's proof", "user-victim"),
        ("a proof for another checkout", "checkout-of-someone-else"),
    ])
    func anUnprovenClaimIsClearedButKeptForAudit(_ what: String, variant: String?) {
        var data = [CustomDataKeys.appUserID: Self.user, CustomDataKeys.checkoutID: Self.checkout]
        switch variant {
        case nil: break
        case "user-victim"?: data[CustomDataKeys.proof] = Self.maker.proof(checkoutID: Self.checkout, appUserID: "user-victim")
        case "checkout-of-someone-else"?: data[CustomDataKeys.proof] = Self.maker.proof(checkoutID: "checkout-of-someone-else", appUserID: Self.user)
        case let proof?: data[CustomDataKeys.proof] = proof
        }
        var event = Self.event(data)
        #expect(Self.maker.check(&event) == .unproven, "\(what)")
        #expect(event.appUserID == nil && event.checkoutID == nil, "\(what)")
        #expect(event.customData == data, "the claim stays visible: \(what)")
    }

    @Test func halfAClaimIsUnproven() {
        // A user without a checkout id (a buy link naming a user), or a checkout id alone
        // (someone else's checkout to complete): neither can carry a valid proof.
        for data in [[CustomDataKeys.appUserID: Self.user], [CustomDataKeys.checkoutID: Self.checkout]] {
            var event = Self.event(data)
            #expect(Self.maker.check(&event) == .unproven)
            #expect(event.appUserID == nil && event.checkoutID == nil)
        }
    }

    @Test func noClaimIsNone() {
        for data in [[:], ["customer_id": "25"], ["app_user_id": "u", "user_id": "u"], [CustomDataKeys.checkoutID: ""]] {
            var event = Self.event(data)
            #expect(Self.maker.check(&event) == .none, "\(data)")
            #expect(event.appUserID == nil && event.checkoutID == nil)
        }
    }

    /// End to end through the parser: the fall-back keys of other integrations give no owner.
    @Test func fallbackKeysGiveNoOwner() throws {
        let body = Array(
            #"{"meta":{"event_name":"order_created","custom_data":{"app_user_id":"u1","user_id":"u2"}},"data":{"type":"orders","id":"9","attributes":{"status":"paid"}}}"#
                .utf8)
        var event = try ProviderWebhooks.normalize(.lemonsqueezy, body: body)
        #expect(event.appUserID == nil)
        #expect(Self.maker.check(&event) == .none)
        #expect(event.appUserID == nil && event.customData == ["app_user_id": "u1", "user_id": "u2"])
    }
}
