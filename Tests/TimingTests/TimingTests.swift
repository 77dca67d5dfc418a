import Timing
import Testing

@Suite struct BackoffTests {
    @Test func doublesFromTheInitialDelayUpToTheMaximum() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        #expect(backoff.delay(afterFailures: 0) == .zero)
        #expect(
            (1...6).map { backoff.delay(afterFailures: $0) }
                == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        #expect(backoff.delay(afterFailures: 10_000) == .seconds(1), "no overflow for long outages")
    }

    @Test func oddSettingsNeverTrap() {
        #expect(Backoff(initial: .zero, maximum: .seconds(1)).delay(afterFailures: 3) == .zero)
        #expect(Backoff(initial: .seconds(2), maximum: .seconds(1)).delay(afterFailures: 3) == .seconds(2), "maximum raised to initial")
    }

    @Test func jitterStaysWithinTheDelay() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        for failures in 1...8 {
            let jittered = backoff.jitteredDelay(afterFailures: failures)
            #expect(jittered >= .zero && jittered <= backoff.delay(afterFailures: failures))
        }
    }

    @Test func aCounterStartsOverAfterASuccess() {
        var retries = BackoffCounter(Backoff(initial: .seconds(1), maximum: .seconds(4)))
        #expect([retries.failed(), retries.failed(), retries.failed(), retries.failed()] == [.seconds(1), .seconds(2), .seconds(4), .seconds(4)])
        #expect(retries.failures == 4)
        retries.succeeded()
        #expect(retries.failed() == .seconds(1))
    }
}

/// `Backoff.retry` with a recorded wait: no time passes.
@Suite struct BackoffRetryTests {
    struct Refused: Error {}

    @Test func retriesUntilTheAttemptSucceedsWaitingTheScheduleBetween() async {
        var attempts = 0
        var waited: [Duration] = []
        var told: [Int] = []
        let succeeded = await Backoff(initial: .milliseconds(100), maximum: .milliseconds(300)).retry(
            wait: { waited.append($0) }, failed: { _, failures, _ in told.append(failures) }
        ) {
            attempts += 1
            if attempts < 4 { throw Refused() }
        }
        #expect(succeeded)
        #expect(attempts == 4)
        #expect(waited == [.milliseconds(100), .milliseconds(200), .milliseconds(300)])
        #expect(told == [1, 2, 3])
    }

    @Test func givesUpOnceTheCallerStopsAndNeverAttemptsAfter() async {
        var attempts = 0
        var keepGoing = true
        let succeeded = await Backoff(initial: .milliseconds(1), maximum: .milliseconds(1)).retry(
            while: { keepGoing }, wait: { _ in }, failed: { _, failures, _ in if failures == 2 { keepGoing = false } }
        ) {
            attempts += 1
            throw Refused()
        }
        #expect(!succeeded)
        #expect(attempts == 2)
    }
}

@Suite struct DurationUnitsTests {
    @Test func secondsAndMilliseconds() {
        #expect(Duration.milliseconds(1500).inSeconds == 1.5)
        #expect(Duration.seconds(3).wholeMilliseconds == 3000)
        #expect(Duration.microseconds(2999).wholeMilliseconds == 2, "rounded toward zero")
        #expect(Duration.zero.inSeconds == 0)
    }
}
