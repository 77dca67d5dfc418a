import ServiceSettings
import ProviderConfiguration

/// Reads provider settings from a dictionary the way a service reads its
/// environment: through a `ConfigReader`.
enum ProviderSettings {
    struct Refused: Error, CustomStringConvertible {
        let problems: [ConfigurationProblem]
        var description: String { problems.map(\.description).joined(separator: "; ") }
    }

    /// The configuration (nil when refused) and every problem reported.
    static func read(
        _ values: [String: String], uses: ProviderUses = .all
    ) -> (configuration: ProvidersConfiguration?, problems: [ConfigurationProblem]) {
        var reader = ConfigReader(Environment(values))
        let configuration = ProvidersConfiguration.fromEnvironment(&reader, uses: uses)
        return (configuration, reader.problems)
    }

    /// The configuration, or ``Refused`` with the problems.
    static func configuration(_ values: [String: String], uses: ProviderUses = .all) throws(Refused) -> ProvidersConfiguration {
        let (configuration, problems) = read(values, uses: uses)
        guard let configuration, problems.isEmpty else { throw Refused(problems: problems) }
        return configuration
    }
}
