import ServiceSettings
import Testing

@testable import StorefrontCLI

/// Which database user `storefront api-keys` and `storefront endpoints`
/// connect as (`AdminRoleTests` runs them as that role against PostgreSQL).
@Suite struct AdminDatabaseTests {
    static func read(_ values: [String: String], binary: BinarySettings) -> (url: String, warnings: [String], problems: [ConfigurationProblem]) {
        var warnings: [String] = []
        var reader = ConfigReader(Environment(values), declared: binary)
        let url = AdminDatabase.url(&reader) { warnings.append($0) }
        return (url, warnings, reader.problems)
    }

    @Test func theAdminURLWinsWithoutAWarning() {
        for binary in [StorefrontCLIBinary.apiKeys, StorefrontCLIBinary.endpoints] {
            let read = Self.read(
                ["STOREFRONT_ADMIN_DATABASE_URL": "postgresql://admin@db/storefront", "DATABASE_URL": "postgresql://storefront@db/storefront"],
                binary: binary)
            #expect(read.url == "postgresql://admin@db/storefront" && read.warnings.isEmpty && read.problems.isEmpty, "\(binary.binary)")
        }
    }

    @Test func databaseURLIsTheFallbackAndSaysSo() {
        let read = Self.read(["DATABASE_URL": "postgresql://storefront@db/storefront"], binary: StorefrontCLIBinary.endpoints)
        #expect(read.url == "postgresql://storefront@db/storefront" && read.problems.isEmpty)
        #expect(read.warnings.count == 1)
        #expect(read.warnings.first?.contains("STOREFRONT_ADMIN_DATABASE_URL") == true && read.warnings.first?.contains("storefront_admin") == true)
    }

    @Test func neitherIsAProblemNamingBoth() {
        let read = Self.read([:], binary: StorefrontCLIBinary.apiKeys)
        #expect(read.problems.map(\.variable) == ["STOREFRONT_ADMIN_DATABASE_URL"] && read.warnings.isEmpty)
        #expect(read.problems.first?.message.contains("DATABASE_URL") == true)
    }
}
