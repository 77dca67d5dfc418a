import Timing
import ServiceSettings
import Testing
@testable import WebhookSenderService

@Suite struct RetryScheduleTests {
    @Test func theDefaultScheduleIsEightAttemptsOverAboutADay() {
        let schedule = RetrySchedule.default
        #expect(schedule.maximumAttempts == 8)
        #expect(schedule.baseDelay(afterFailedAttempts: 1) == .seconds(5))
        #expect(schedule.baseDelay(afterFailedAttempts: 2) == .seconds(300))
        #expect(schedule.baseDelay(afterFailedAttempts: 7) == .seconds(36_000))
        // Spent: the eighth failure dead-letters.
        #expect(schedule.baseDelay(afterFailedAttempts: 8) == nil)
        #expect(schedule.delay(afterFailedAttempts: 8, random: 0.5) == nil)
        #expect(schedule.baseDelay(afterFailedAttempts: 0) == nil)
        let total = schedule.delays.reduce(Duration.zero, +)
        #expect(total == .seconds(99_305))
    }

    @Test func jitterMovesEachDelayWithinItsShare() {
        let schedule = RetrySchedule(delays: [.seconds(100)], jitter: 0.2)
        // Within a microsecond: the factor is a Double.
        func near(_ delay: Duration?, _ seconds: Double) -> Bool { delay.map { abs(($0 - .seconds(seconds)) / .microseconds(1)) < 1 } ?? false }
        #expect(near(schedule.delay(afterFailedAttempts: 1, random: 0), 80))
        #expect(near(schedule.delay(afterFailedAttempts: 1, random: 0.5), 100))
        #expect(near(schedule.delay(afterFailedAttempts: 1, random: 1), 120))
        for _ in 0..<100 {
            let delay = schedule.delay(afterFailedAttempts: 1)!
            #expect(delay >= .seconds(80) && delay <= .seconds(120))
        }
    }

    @Test func parsesTheSettingAndRefusesWhatIsNotAList() {
        #expect(RetrySchedule.parser.value(of: "1s, 2s,250ms")?.delays == [.seconds(1), .seconds(2), .milliseconds(250)])
        #expect(RetrySchedule.parser.value(of: "") == nil)
        #expect(RetrySchedule.parser.value(of: " , ") == nil)
        #expect(RetrySchedule.parser.value(of: "1s,0s") == nil)
        #expect(RetrySchedule.parser.value(of: "soon") == nil)
    }
}
