import Testing
@testable import StorefrontCLI

@Suite struct StatusTargetTests {
    @Test func anEmailOrAnAppUserIDButNotBoth() throws {
        #expect(try StatusTarget(CommandLineArguments(["status", "ada@example.com"])) == .email("ada@example.com"))
        #expect(try StatusTarget(CommandLineArguments(["status", "--user", "app-user-1"])) == .appUser("app-user-1"))
        #expect(try StatusTarget(CommandLineArguments(["status", "--user=firebase|uid 7"])) == .appUser("firebase|uid 7"))
        for arguments in [
            ["status"], ["status", "not-an-email"], ["status", "--user"], ["status", "--user", ""],
            ["status", "ada@example.com", "--user", "app-user-1"],
        ] {
            #expect(throws: CommandLineArguments.UsageError.self, "\(arguments)") { _ = try StatusTarget(CommandLineArguments(arguments)) }
        }
    }
}
