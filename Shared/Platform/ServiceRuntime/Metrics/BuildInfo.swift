import ServiceSettings
import Telemetry

/// Which build of Storefront a process is: the `storefront_build_info` series.
///
/// Dashboards join on it to tell releases apart during a rollout, and an
/// alert can notice replicas that run different builds.
public struct BuildInfo: Sendable, Equatable {
    /// The newest release in CHANGELOG.md (README, "Versions and releases");
    /// a test compares the two, so a release that forgets this fails `make test`.
    public static let releasedVersion = "0.4.0"

    /// The release this build belongs to.
    public var version: String
    /// The git commit it was built from, or `unknown`.
    public var commit: String

    public init(version: String = BuildInfo.releasedVersion, commit: String) {
        self.version = version
        self.commit = commit
    }

    /// Reads `STOREFRONT_COMMIT` (default `unknown`). The container image sets
    /// it from its build argument of the same name; nothing else needs to.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> BuildInfo {
        BuildInfo(commit: reader.string(.storefrontCommit, default: "unknown"))
    }

    /// Registers `storefront_build_info{version,commit} 1`.
    public func register(into registry: MetricsRegistry) {
        registry.gauge(
            "storefront_build_info", help: "Always 1; the labels say which version and commit this process runs.",
            labels: ["version": version, "commit": commit]
        ).set(1)
    }
}
