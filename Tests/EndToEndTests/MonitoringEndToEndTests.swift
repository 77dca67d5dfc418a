import Foundation
import HTTPClient
import HTTPPrimitives
import Testing

/// Prometheus from Debian's package against a live stack (`scripts/monitoring.sh`,
/// what an operator runs beside `make run`): every replica is scraped and up,
/// the compose profile's alert rules load and evaluate, and the series the
/// dashboards and rules read are there under the job names they use.
extension EndToEndTests {
    func prometheusJSON(_ stack: LiveStack, _ url: String) async throws -> [String: Any] {
        let response = try await stack.request(.get, url)
        #expect(response.status == 200, "\(url) answered \(response.status)")
        let object = try JSONSerialization.jsonObject(with: Data(response.bodyString.utf8)) as? [String: Any]
        return try #require(object?["data"] as? [String: Any], "no data in \(response.bodyString.prefix(300))")
    }

    @Test func prometheusScrapesEveryReplicaAndEvaluatesTheAlertRules() async throws {
        let stack = try self.stack
        try await ScriptRunner.runScript(
            "monitoring.sh", ["up", stack.state], environment: ["MONITORING_SCRAPE_INTERVAL": "1s"],
            outputFile: stack.state + "/monitoring.out")
        do {
            let settings = try TestEnvironment.readEnvFile(stack.state + "/monitoring/monitoring.env")
            let prometheus = try #require(settings["PROMETHEUS_URL"])
            let expectedJobs = Set(try metricsTargets(stack).map(\.0))
            let replicas = try metricsTargets(stack).count

            // Every replica a target, every target up.
            let up = try await stack.eventually(timeout: .seconds(60), "every target up") { () -> [[String: Any]]? in
                let targets = try await prometheusJSON(stack, prometheus + "/api/v1/targets?state=active")["activeTargets"] as? [[String: Any]] ?? []
                let storefront = targets.filter { expectedJobs.contains(($0["labels"] as? [String: String])?["job"] ?? "") }
                return storefront.count == replicas && storefront.allSatisfy { $0["health"] as? String == "up" } ? storefront : nil
            }
            #expect(Set(up.compactMap { ($0["labels"] as? [String: String])?["job"] }) == expectedJobs)

            // The compose profile's rules, loaded and evaluated without error.
            let groups = try await prometheusJSON(stack, prometheus + "/api/v1/rules")["groups"] as? [[String: Any]] ?? []
            let rules = groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }
            #expect(rules.contains { $0["name"] as? String == "ConsumerLagGrowing" })
            #expect(rules.contains { $0["name"] as? String == "WebhooksUnavailable" })
            _ = try await stack.eventually("every rule evaluated") { () -> Bool? in
                let groups = try await prometheusJSON(stack, prometheus + "/api/v1/rules")["groups"] as? [[String: Any]] ?? []
                let rules = groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }
                return !rules.isEmpty && rules.allSatisfy { $0["health"] as? String == "ok" } ? true : nil
            }

            // The lag as the dashboards and the lag rule read it.
            let query = "max by (group) (kafka_consumer_group_lag)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let lag = try await stack.eventually("kafka_consumer_group_lag in Prometheus") { () -> [[String: Any]]? in
                let result = try await prometheusJSON(stack, prometheus + "/api/v1/query?query=" + query)["result"] as? [[String: Any]] ?? []
                return result.count >= 2 ? result : nil
            }
            let groupsSeen = Set(lag.compactMap { ($0["metric"] as? [String: String])?["group"] })
            #expect(groupsSeen.isSuperset(of: ["subscription-projector", "reconciler"]), "groups: \(groupsSeen)")
        } catch {
            try? await ScriptRunner.runScript("monitoring.sh", ["down", stack.state])
            throw error
        }
        try await ScriptRunner.runScript("monitoring.sh", ["down", stack.state])
    }
}
