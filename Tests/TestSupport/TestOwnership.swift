import ServiceSettings
import BillingModel
import Webhooks

/// Ownership proofs for tests that feed webhooks or snapshots with
/// Storefront custom data to a projector built in process: the key is
/// ``TestEnvironment/ownershipProofKey``, and a test builds its projector
/// with ``proof``. (A stack started by `scripts/stack.sh` has a random key of
/// its own, in `stack.env`; its checkout signs what the sandbox echoes.)
public enum TestOwnership {
    /// The proof maker under the fixed test key.
    public static let proof: OwnershipProof = {
        do {
            return try OwnershipProof(key: Secret(TestEnvironment.ownershipProofKey))
        } catch {
            preconditionFailure("the test ownership key is too short: \(error)")
        }
    }()

    /// The proof that `appUserID` owns checkout `checkoutID`, under the test key.
    public static func proof(checkoutID: String, appUserID: String) -> String {
        proof.proof(checkoutID: checkoutID, appUserID: appUserID)
    }

    /// The custom data the checkout would send for this pair: user, checkout and proof.
    public static func customData(appUserID: String, checkoutID: String) -> [String: String] {
        [
            CustomDataKeys.appUserID: appUserID, CustomDataKeys.checkoutID: checkoutID,
            CustomDataKeys.proof: proof(checkoutID: checkoutID, appUserID: appUserID),
        ]
    }

    /// ``customData(appUserID:checkoutID:)`` as a JSON object, keys sorted
    /// (ids are JSON-safe test strings: no quotes or backslashes).
    public static func customDataJSON(appUserID: String, checkoutID: String) -> String {
        let members = customData(appUserID: appUserID, checkoutID: checkoutID).sorted { $0.key < $1.key }.map { #""\#($0.key)":"\#($0.value)""# }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// Text replacements that move a fixture's custom data from one (user,
    /// checkout) pair to another, proof included: the fixtures under
    /// `Tests/Fixtures` carry proofs made with the test key.
    public static func replacing(
        user: String, checkout: String, with newUser: String, _ newCheckout: String
    ) -> [String: String] {
        [
            proof(checkoutID: checkout, appUserID: user): proof(checkoutID: newCheckout, appUserID: newUser),
            "\"\(user)\"": "\"\(newUser)\"", "\"\(checkout)\"": "\"\(newCheckout)\"",
        ]
    }
}
