import Foundation
import HTTPServer
import ServiceRuntime
import Testing
@testable import CheckoutService
import ServiceSettings

/// Bounds on what one caller can make the checkout service do. No server needed.
@Suite struct CheckoutLimitsTests {
    @Test func theServerRefusesBodiesOverTheCheckoutLimitBeforeReadingThem() {
        var http = HTTPServerConfiguration()
        http.maxBodyBytes = 1 << 20
        let bounded = CheckoutApplication.bounded(http, by: CheckoutConfiguration(maxBodyBytes: 16 * 1024))
        #expect(bounded.maxBodyBytes == 16 * 1024)
        http.maxBodyBytes = 4096
        #expect(CheckoutApplication.bounded(http, by: CheckoutConfiguration()).maxBodyBytes == 4096, "a smaller server limit stays")
    }

    @Test func oneUsersWaitersAreCapped() {
        let waiters = WaiterCounts()
        for _ in 0..<IdempotencyStore.maximumWaitersPerUser { #expect(waiters.enter("u", limit: IdempotencyStore.maximumWaitersPerUser)) }
        #expect(!waiters.enter("u", limit: IdempotencyStore.maximumWaitersPerUser))
        #expect(waiters.enter("someone-else", limit: IdempotencyStore.maximumWaitersPerUser))
        waiters.leave("u")
        #expect(waiters.enter("u", limit: IdempotencyStore.maximumWaitersPerUser))
    }

    @Test func theIdempotencyWaitIsBounded() {
        var reader = ConfigReader(Environment(["CHECKOUT_IDEMPOTENCY_WAIT": "1h"]))
        _ = CheckoutConfiguration.fromEnvironment(&reader)
        #expect(reader.problems.map(\.variable) == ["CHECKOUT_IDEMPOTENCY_WAIT"])
    }
}
