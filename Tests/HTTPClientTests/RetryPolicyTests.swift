import Foundation
import HTTPClient
import Testing

@Suite("Retry-After parsing and backoff")
struct RetryPolicyTests {
    @Test func parsesSecondsAndDates() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.parseRetryAfter("7", now: now) == .seconds(7))
        #expect(RetryPolicy.parseRetryAfter(" 0 ", now: now) == .zero)
        let later = now.addingTimeInterval(90)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(RetryPolicy.parseRetryAfter(formatter.string(from: later), now: now) == .seconds(90))
        #expect(RetryPolicy.parseRetryAfter(formatter.string(from: now.addingTimeInterval(-5)), now: now) == .zero)
        #expect(RetryPolicy.parseRetryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.parseRetryAfter("-3", now: now) == nil)
    }

    @Test func backoffStaysWithinTheCap() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .milliseconds(300))
        for retry in 1...10 {
            let delay = policy.backoff(beforeRetry: retry)
            #expect(delay >= .zero && delay <= .milliseconds(min(300, 100 << (retry - 1))))
        }
    }

    @Test func idempotencyFollowsTheMethodUnlessOverridden() {
        #expect(HTTPClientRequest(method: .get, url: "http://x").isIdempotent)
        #expect(HTTPClientRequest(method: .delete, url: "http://x").isIdempotent)
        #expect(!HTTPClientRequest(method: .post, url: "http://x").isIdempotent)
        #expect(!HTTPClientRequest(method: .patch, url: "http://x").isIdempotent)
        #expect(HTTPClientRequest(method: .post, url: "http://x", idempotent: true).isIdempotent)
        #expect(!HTTPClientRequest(method: .put, url: "http://x", idempotent: false).isIdempotent)
    }
}
