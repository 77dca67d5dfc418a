import Timing
import ServiceSettings
import ServiceRuntime

/// What the `provider-sandbox` executable reads: its `--help-settings`
/// prints it, and its reader refuses anything else.
public enum ProviderSandboxBinary {
    public static let settings = BinarySettings("provider-sandbox", [.runtime, .sandbox])
}
