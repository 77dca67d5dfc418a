import ServiceSettings
import CheckoutService
import ServiceRuntime
import Testing

/// Which token settings the checkout accepts (the routes' answers to tokens: AuthTests).
@Suite struct AuthConfigurationTests {
    @Test func configurationRules() {
        // AUTH_JWT_ISSUER (or _AUDIENCE) is required too; AuthIdentityTests covers that rule.
        var neither = ConfigReader(Environment(["AUTH_JWT_ISSUER": "storefront-dev"]))
        _ = AuthConfiguration.fromEnvironment(&neither, mode: .test)
        #expect(neither.problems.map(\.variable) == ["AUTH_JWT_SECRET"])
        // The sources combine; an unreadable key file is still a problem of its own.
        var both = ConfigReader(
            Environment([
                "AUTH_JWT_SECRET": String(repeating: "s", count: 40), "AUTH_JWT_PUBLIC_KEY_FILE": "/nonexistent", "AUTH_JWT_ISSUER": "storefront-dev",
            ]))
        _ = AuthConfiguration.fromEnvironment(&both, mode: .test)
        #expect(both.problems.map(\.variable) == ["AUTH_JWT_PUBLIC_KEY_FILE"])
        var short = ConfigReader(Environment(["AUTH_JWT_SECRET": "short", "AUTH_JWT_AUDIENCE": "storefront-app"]))
        _ = AuthConfiguration.fromEnvironment(&short, mode: .test)
        #expect(short.problems.count == 1 && !short.problems.description.contains("short\""))
        var disabled = ConfigReader(Environment(["AUTH_DISABLED": "true"]))
        #expect(AuthConfiguration.fromEnvironment(&disabled, mode: .test).isDisabled && disabled.problems.isEmpty)
        var secret = ConfigReader(Environment(["AUTH_JWT_SECRET": String(repeating: "s", count: 40), "AUTH_JWT_ISSUER": "storefront-dev"]))
        #expect(!AuthConfiguration.fromEnvironment(&secret, mode: .test).isDisabled && secret.problems.isEmpty)
    }
}
