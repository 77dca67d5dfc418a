import Timing
import ServiceSettings
import HTTPServer
import ProviderConfiguration
import ServiceRuntime

/// What the `catalog` executable reads: `catalog --help-settings` prints it,
/// and its reader refuses anything else.
public enum CatalogBinary {
    public static let settings = BinarySettings("catalog", [.runtime, .httpServer, .catalog] + ProviderUses.api.settingGroups)
}
