import Timing
import ServiceSettings

extension Setting {
    /// A declaration made up on the spot: these suites test the reader's
    /// parsing of arbitrary variables, not any binary's settings.
    static func named(_ name: String) -> Setting {
        Setting(name, "a variable made up by a reader test")
    }
}
