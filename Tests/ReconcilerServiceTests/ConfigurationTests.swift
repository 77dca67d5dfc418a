import ServiceSettings
import Foundation
import BillingModel
import Providers
@testable import ReconcilerService
import ServiceRuntime
import Testing

/// Settings read from the environment: defaults, and every problem named.
@Suite struct ConfigurationTests {
    static let sandboxProviders = [
        "LEMONSQUEEZY_API_KEY": "ls_test_sandbox_key", "LEMONSQUEEZY_STORE_ID": "1", "LEMONSQUEEZY_WEBHOOK_SECRET": "s",
        "PAYSTACK_SECRET_KEY": "sk_test_sandbox_secret",
    ]

    @Test func defaultsAreTheDocumentedOnes() throws {
        let configuration = try ConfigReader.load(Environment([:])) { ReconcilerConfiguration.fromEnvironment(&$0) }
        #expect(configuration.groupID == "reconciler" && configuration.sweepInterval == .seconds(3600))
        #expect(configuration.coalesceWindow == .seconds(1) && configuration.commandDelay == .seconds(5))
        #expect(configuration.shutdownGrace == .seconds(5) && configuration.databaseURL == nil)
        #expect(configuration.firstSweepDelay == .seconds(60))
        let short = try ConfigReader.load(Environment(["RECONCILER_SWEEP_INTERVAL": "2s"])) { ReconcilerConfiguration.fromEnvironment(&$0) }
        #expect(short.firstSweepDelay == .seconds(2), "never later than one interval")
    }

    @Test func everyBadValueIsReportedByName() {
        let environment = Environment([
            "RECONCILER_SWEEP_INTERVAL": "500ms", "RECONCILER_FETCH_CONCURRENCY": "0", "RECONCILER_RETRY_INITIAL_DELAY": "10s",
            "RECONCILER_RETRY_MAX_DELAY": "1s", "RECONCILER_SHUTDOWN_GRACE": "30s", "DATABASE_URL": "mysql://nope",
        ])
        do {
            _ = try ConfigReader.load(environment) { ReconcilerConfiguration.fromEnvironment(&$0) }
            Issue.record("bad settings accepted")
        } catch {
            #expect(
                Set(error.variables) == [
                    "RECONCILER_SWEEP_INTERVAL", "RECONCILER_FETCH_CONCURRENCY", "RECONCILER_RETRY_MAX_DELAY",
                    "RECONCILER_SHUTDOWN_GRACE", "DATABASE_URL",
                ])
        }
    }

    /// The fallback budgets default to the limit minus the checkout's 30 % reserve.
    @Test func budgetsFollowThePaystackKeysModeUnlessSet() throws {
        let test = try #require(try ConfigReader.load(Environment(Self.sandboxProviders)) { ReconcilerProviderSettings.fromEnvironment(&$0) })
        #expect(test.requestsPerMinute(.lemonsqueezy) == 210 && test.requestsPerMinute(.paystack) == 70)
        var live = Self.sandboxProviders
        live["PAYSTACK_SECRET_KEY"] = "sk_live_0123456789"
        #expect(try ConfigReader.load(Environment(live)) { ReconcilerProviderSettings.fromEnvironment(&$0) }?.requestsPerMinute(.paystack) == 420)
        live["PROVIDER_BUDGET_CHECKOUT_RESERVE_PERCENT"] = "50"
        #expect(try ConfigReader.load(Environment(live)) { ReconcilerProviderSettings.fromEnvironment(&$0) }?.requestsPerMinute(.paystack) == 300)
        live["RECONCILER_PAYSTACK_REQUESTS_PER_MINUTE"] = "250"
        live["RECONCILER_LEMONSQUEEZY_REQUESTS_PER_MINUTE"] = "120"
        let set = try #require(try ConfigReader.load(Environment(live)) { ReconcilerProviderSettings.fromEnvironment(&$0) })
        #expect(set.requestsPerMinute(.paystack) == 250 && set.requestsPerMinute(.lemonsqueezy) == 120)
        #expect(throws: ConfigurationError.self) {
            _ = try ConfigReader.load(Environment([:])) { ReconcilerProviderSettings.fromEnvironment(&$0) }
        }
    }
}
