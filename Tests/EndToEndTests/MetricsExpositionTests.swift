import Foundation
import HTTPClient
import HTTPPrimitives
import Testing

/// Every service of a live stack serves a `/metrics` page that
/// `promtool check metrics` (Debian's `prometheus` package, installed by
/// `scripts/install-deps.sh`) accepts without a finding, and that carries
/// the series dashboards and alerts rely on (docs/metrics.md).
extension EndToEndTests {
    /// Each service's base URL by name; a service with replicas appears once per replica.
    func metricsTargets(_ stack: LiveStack) throws -> [(String, String)] {
        var targets: [(String, String)] = []
        for (name, variable) in [("catalog", "CATALOG_URL"), ("checkout", "CHECKOUT_URL"), ("webhook-sender", "WEBHOOK_SENDER_URL")] {
            targets.append((name, try #require(stack.settings[variable], "stack.sh sets \(variable)")))
        }
        for (name, variable) in [
            ("webhook-receiver", "WEBHOOK_RECEIVER_URLS"), ("subscription-projector", "PROJECTOR_URLS"), ("reconciler", "RECONCILER_URLS"),
        ] {
            let urls = (stack.settings[variable] ?? "").split(separator: " ").map(String.init)
            #expect(!urls.isEmpty, "stack.sh started a \(name)")
            targets += urls.map { (name, $0) }
        }
        return targets
    }

    /// Runs `promtool check metrics` over `text`; returns its exit code and what it printed.
    func promtoolCheck(_ text: String) async throws -> (Int32?, String) {
        let child = try ChildProcess.spawn(["promtool", "check", "metrics"], mergeStandardError: true)
        async let output = ChildProcess.readAll(child.standardOutput)
        await ChildProcess.write(Array(text.utf8), to: child.standardInput)
        let (printed, status) = await (output, child.wait())
        return (ChildProcess.exitCode(status), String(decoding: printed, as: UTF8.self))
    }

    /// The family names a page declares (`# TYPE name kind`).
    func metricFamilies(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("# TYPE ") else { return nil }
            return line.split(separator: " ").dropFirst(2).first.map(String.init)
        }
    }

    @Test func everyServiceExposesMetricsThatPromtoolAccepts() async throws {
        let stack = try self.stack
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let documented = try String(contentsOf: repository.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        for (name, url) in try metricsTargets(stack) {
            let response = try await stack.request(.get, url + "/metrics")
            #expect(response.status == 200, "\(name) /metrics answered \(response.status)")
            let text = response.bodyString
            let (code, printed) = try await promtoolCheck(text)
            #expect(code == 0, "promtool check metrics on \(name) (\(url)): \(printed)")
            for family in metricFamilies(text) {
                #expect(documented.contains("`\(family)`"), "\(name) publishes \(family), which docs/metrics.md does not list")
            }
            #expect(text.contains("# TYPE process_cpu_seconds_total counter\n"), "\(name)")
            #expect(text.contains("storefront_build_info{commit=\""), "\(name) has no storefront_build_info")
        }
    }

    @Test func consumersPublishTheirLagAndTheProjectorItsVisibilityHistogram() async throws {
        let stack = try self.stack
        let consumers = try metricsTargets(stack).filter { ["subscription-projector", "reconciler"].contains($0.0) }
        for (name, url) in consumers {
            // The lag is read at start-up and then every 15 s.
            _ = try await stack.eventually("\(name) publishes kafka_consumer_group_lag") {
                let text = try await stack.request(.get, url + "/metrics").bodyString
                return text.contains("kafka_consumer_group_lag{group=\"") && text.contains("topic=\"storefront.webhooks.v1\"") ? true : nil
            }
        }
        for (_, url) in consumers.filter({ $0.0 == "subscription-projector" }) {
            let text = try await stack.request(.get, url + "/metrics").bodyString
            #expect(text.contains("# TYPE projector_webhook_visible_seconds histogram\n"))
        }
    }
}
