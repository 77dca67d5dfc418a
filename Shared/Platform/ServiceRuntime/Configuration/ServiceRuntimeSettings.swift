import Timing
import ServiceSettings

// What every executable reads before its own settings: the log level and the build's commit.

extension Setting {
    public static let logLevel = Setting(
        "LOG_LEVEL", default: "info", "least severe log level written to stderr: trace, debug, info, notice, warning, error or critical")
    public static let storefrontCommit = Setting(
        "STOREFRONT_COMMIT", default: "unknown", "git commit shown by the storefront_build_info metric (the image's build argument of the same name)")
}

extension SettingGroup {
    public static let runtime = SettingGroup(
        "Logging and build", [.logLevel, .storefrontCommit])
}
