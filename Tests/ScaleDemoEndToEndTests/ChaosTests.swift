import Foundation
import TestSupport
import Testing

/// Runs `scripts/chaos.sh` small (its own stack on free ports: 2 receivers,
/// 3 projectors): 2,000 webhooks through the gateway while the broker is
/// frozen twice, a projector is SIGKILLed, PostgreSQL is restarted and a
/// receiver is restarted. The script exits 0 only when PostgreSQL holds
/// every webhook answered 2xx exactly once, every subscription is in its
/// final state, and every fault recovered.
@Suite struct ChaosTests {
    /// The small run; CHAOS_* variables in the test's environment override these.
    static let small = [
        "CHAOS_SUBSCRIPTIONS": "200", "CHAOS_EVENTS_PER_SUBSCRIPTION": "10", "CHAOS_RATE": "100",
        // Longer than the receivers' publish timeout (5 s), so webhooks are answered 503 and retried.
        "CHAOS_FREEZE_SECONDS": "8",
        // Bounds, not paces: a loaded machine recovers slowly, and each wait ends as soon as its condition holds.
        "CHAOS_RECOVERY_TIMEOUT": "120", "CHAOS_DRAIN_TIMEOUT": "180", "CHAOS_RETRY_DEADLINE": "240",
    ]

    @Test func chaosRunLosesNothingAndAppliesNothingTwice() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("chaos-\(UUID().uuidString.prefix(8)).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let own = ProcessInfo.processInfo.environment
        let environment = Self.small.filter { own[$0.key] == nil }
        var failure: (any Error)?
        do {
            try await ScriptRunner.runScript("chaos.sh", [], environment: environment, outputFile: output)
        } catch {
            failure = error
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? "(no output)"
        if let failure { Issue.record("chaos run failed: \(failure)\n\(text.suffix(8000))") }
        #expect(text.contains("lost: 0, applied twice: 0, subscriptions not in their final state: 0"), "\(text.suffix(3000))")
        // The sender met the frozen broker as a provider would: 503s, retried until 2xx.
        let answers = text.split(separator: "\n").first { $0.hasPrefix("answers:") }.map(String.init) ?? ""
        let unavailable =
            answers.firstRange(of: " × 503").flatMap { range in
                Int(answers[..<range.lowerBound].split(separator: " ").last ?? "")
            } ?? 0
        #expect(unavailable > 0, "no webhook was answered 503 while the broker was frozen: \(answers)")
    }
}
