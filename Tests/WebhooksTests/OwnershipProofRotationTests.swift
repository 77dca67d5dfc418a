import ServiceSettings
import Testing
@testable import Webhooks

/// Rotating the ownership proof's key: new proofs name the new key's id,
/// proofs made before (renewals carry them for as long as a subscription
/// lives) keep verifying under the keys rotated out, each under its own key.
@Suite struct OwnershipProofRotationTests {
    static let first = Secret("first-key-0123456789abcdef0123456789abcdef")
    static let second = Secret("second-key-0123456789abcdef0123456789abcde")
    static let third = Secret("third-key-0123456789abcdef0123456789abcdef")

    @Test func aKeyWithAnIdNamesItInItsProofs() throws {
        let ring = try OwnershipProof(current: .init(id: "k2", secret: Self.second))
        let proof = ring.proof(checkoutID: "c", appUserID: "u")
        #expect(proof.hasPrefix("k2.") && proof.count == 3 + OwnershipProof.proofLength)
        #expect(ring.verify(proof, checkoutID: "c", appUserID: "u"))
        #expect(ring.proof(anonymousCheckoutID: "c").hasPrefix("k2."))
        #expect(ring.verify(ring.proof(anonymousCheckoutID: "c"), anonymousCheckoutID: "c"))
        #expect(!ring.verify(proof, checkoutID: "c", appUserID: "someone-else"))
    }

    @Test func proofsMadeBeforeARotationStillVerify() throws {
        let legacy = try OwnershipProof(key: Self.first)
        let beforeIDs = legacy.proof(checkoutID: "c", appUserID: "u")
        let second = try OwnershipProof(current: .init(id: "k2", secret: Self.second))
        let underSecond = second.proof(checkoutID: "c", appUserID: "u")

        let ring = try OwnershipProof(
            current: .init(id: "k3", secret: Self.third), previous: [.init(id: "k2", secret: Self.second), .init(secret: Self.first)])
        #expect(ring.verify(beforeIDs, checkoutID: "c", appUserID: "u"), "a proof from before key ids, under a key without one")
        #expect(ring.verify(underSecond, checkoutID: "c", appUserID: "u"), "a proof naming a previous key")
        #expect(ring.proof(checkoutID: "c", appUserID: "u").hasPrefix("k3."), "new proofs under the current key")
        #expect(ring.verify(legacy.proof(anonymousCheckoutID: "c"), anonymousCheckoutID: "c"))

        // Each id is checked under its own key only.
        let digits = underSecond.dropFirst(3)
        #expect(!ring.verify("k3." + digits, checkoutID: "c", appUserID: "u"), "k2's digits relabelled as k3")
        #expect(!ring.verify("k9." + digits, checkoutID: "c", appUserID: "u"), "an id the ring does not have")
        #expect(!ring.verify("." + digits, checkoutID: "c", appUserID: "u"), "an empty id")
        // Once a key leaves the ring its proofs stop verifying.
        let without = try OwnershipProof(current: .init(id: "k3", secret: Self.third), previous: [.init(id: "k2", secret: Self.second)])
        #expect(!without.verify(beforeIDs, checkoutID: "c", appUserID: "u"))
    }

    @Test func derivedSecretsListEveryKeyCurrentFirst() throws {
        let ring = try OwnershipProof(current: .init(id: "k2", secret: Self.second), previous: [.init(secret: Self.first)])
        let all = ring.derivedSecrets(purpose: "p")
        #expect(all.count == 2)
        #expect(all.first == ring.derivedSecret(purpose: "p"))
        #expect(all.last == (try OwnershipProof(key: Self.first)).derivedSecret(purpose: "p"))
    }

    @Test func badIdsAndRepeatedIdsAreRefused() {
        #expect(throws: OwnershipProof.KeyError.badKeyID("K2")) { try OwnershipProof.Key(id: "K2", secret: Self.first) }
        #expect(throws: OwnershipProof.KeyError.badKeyID("a.b")) { try OwnershipProof.Key(id: "a.b", secret: Self.first) }
        #expect(throws: OwnershipProof.KeyError.duplicateKeyID("k")) {
            try OwnershipProof(current: .init(id: "k", secret: Self.first), previous: [.init(id: "k", secret: Self.second)])
        }
    }

    @Test func theRingComesFromTheEnvironment() throws {
        let old = try OwnershipProof(current: .init(id: "k1", secret: Self.first)).proof(checkoutID: "c", appUserID: "u")
        let legacy = try OwnershipProof(key: Self.second).proof(checkoutID: "c", appUserID: "u")
        let (ring, none) = OwnershipProofTests.read([
            "OWNERSHIP_PROOF_KEY": Self.third.reveal(), "OWNERSHIP_PROOF_KEY_ID": "k3",
            "OWNERSHIP_PROOF_PREVIOUS_KEYS": " k1:\(Self.first.reveal()) , \(Self.second.reveal()),",
        ])
        #expect(none.isEmpty, "\(none)")
        #expect(ring.verify(old, checkoutID: "c", appUserID: "u"))
        #expect(ring.verify(legacy, checkoutID: "c", appUserID: "u"))
        #expect(ring.proof(checkoutID: "c", appUserID: "u").hasPrefix("k3."))

        let (_, short) = OwnershipProofTests.read(["OWNERSHIP_PROOF_KEY": Self.third.reveal(), "OWNERSHIP_PROOF_PREVIOUS_KEYS": "k1:too-short-a-key"])
        #expect(short.map(\.variable) == ["OWNERSHIP_PROOF_PREVIOUS_KEYS"])
        #expect(short.first?.message.contains("entry 1") == true)
        #expect(short.first?.message.contains("too-short-a-key") == false, "a key is never echoed")
        let (_, badID) = OwnershipProofTests.read(["OWNERSHIP_PROOF_KEY": Self.third.reveal(), "OWNERSHIP_PROOF_KEY_ID": "Key 3"])
        #expect(badID.map(\.variable) == ["OWNERSHIP_PROOF_KEY"])
        let (placeholder, repeated) = OwnershipProofTests.read([
            "OWNERSHIP_PROOF_KEY": Self.third.reveal(), "OWNERSHIP_PROOF_KEY_ID": "k3", "OWNERSHIP_PROOF_PREVIOUS_KEYS": "k3:\(Self.first.reveal())",
        ])
        #expect(repeated.map(\.variable) == ["OWNERSHIP_PROOF_PREVIOUS_KEYS"])
        #expect(placeholder.proof(checkoutID: "c", appUserID: "u").isEmpty)
    }
}
