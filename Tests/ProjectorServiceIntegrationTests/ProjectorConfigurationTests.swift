import ServiceSettings
import ProjectorService
import TestSupport
import Testing
import Webhooks

/// The projector's settings: without the checkout's ownership proof key it does not start.
@Suite struct ProjectorConfigurationTests {
    static func read(_ environment: [String: String]) -> (ProjectorConfiguration, [ConfigurationProblem]) {
        var reader = ConfigReader(Environment(environment))
        let configuration = ProjectorConfiguration.fromEnvironment(&reader)
        return (configuration, reader.problems)
    }

    @Test func theOwnershipProofKeyIsRequired() {
        let database = ["DATABASE_URL": "postgresql://projector@127.0.0.1:1/none"]
        let (configured, none) = Self.read(database.merging(["OWNERSHIP_PROOF_KEY": TestEnvironment.ownershipProofKey]) { $1 })
        #expect(none.isEmpty)
        #expect(configured.ownership.proof(checkoutID: "c", appUserID: "u") == TestOwnership.proof(checkoutID: "c", appUserID: "u"))
        #expect(Self.read(database).1.map(\.variable) == ["OWNERSHIP_PROOF_KEY"])
        let short = Self.read(database.merging(["OWNERSHIP_PROOF_KEY": "short-key"]) { $1 }).1
        #expect(short.map(\.variable) == ["OWNERSHIP_PROOF_KEY"] && short.first?.message.contains("at least 32 bytes") == true)
    }
}
