import ServiceSettings
import Foundation
import Telemetry
import Testing
@testable import ServiceRuntime

@Suite struct BuildInfoTests {
    @Test func rendersOneSeriesWithVersionAndCommit() {
        let registry = MetricsRegistry()
        BuildInfo(version: "1.2.3", commit: "abc1234").register(into: registry)
        let text = registry.renderPrometheus()
        #expect(text.contains("# TYPE storefront_build_info gauge\n"))
        #expect(text.contains("storefront_build_info{commit=\"abc1234\",version=\"1.2.3\"} 1\n"))
    }

    @Test func readsTheCommitFromTheEnvironment() throws {
        var reader = ConfigReader(Environment(["STOREFRONT_COMMIT": "deadbee"]))
        #expect(BuildInfo.fromEnvironment(&reader).commit == "deadbee")
        var empty = ConfigReader(Environment([:]))
        #expect(BuildInfo.fromEnvironment(&empty).commit == "unknown")
        try empty.finish()
    }

    /// The version is the newest release heading in CHANGELOG.md
    /// (`## [X.Y.Z] - date`), so releasing without updating it fails here.
    @Test func versionIsTheNewestReleaseInTheChangelog() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = try #require(changelog.firstMatch(of: #/\n## \[(\d+\.\d+\.\d+)\] - /#))
        #expect(BuildInfo.releasedVersion == String(heading.1))
    }
}
