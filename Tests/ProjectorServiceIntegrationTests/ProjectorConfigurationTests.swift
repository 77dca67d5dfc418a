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

    /// The broker fetch wait: 10 ms unless set, and refused outside 1 ms...1 s.
    @Test func theFetchWaitIsBounded() {
        let base = ["DATABASE_URL": "postgresql://projector@127.0.0.1:1/none", "OWNERSHIP_PROOF_KEY": TestEnvironment.ownershipProofKey]
        #expect(Self.read(base).0.fetchWait == .milliseconds(10))
        let (set, none) = Self.read(base.merging(["PROJECTOR_FETCH_WAIT": "25ms"]) { $1 })
        #expect(none.isEmpty && set.fetchWait == .milliseconds(25))
        for outside in ["0s", "2s"] {
            #expect(Self.read(base.merging(["PROJECTOR_FETCH_WAIT": outside]) { $1 }).1.map(\.variable) == ["PROJECTOR_FETCH_WAIT"])
        }
    }
}
