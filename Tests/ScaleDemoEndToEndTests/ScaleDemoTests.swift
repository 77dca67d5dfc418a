import Foundation
import TestSupport
import Testing

/// Runs `scripts/scale-demo.sh` (its own stack on free ports: 2 receivers,
/// 3 projectors, one SIGKILLed midway and a fourth started) and requires it
/// to exit 0, which it does only when PostgreSQL matches what was sent.
@Suite struct ScaleDemoTests {
    @Test func scaleDemoPassesItsChecksAfterAProjectorIsKilled() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("scale-demo-\(UUID().uuidString.prefix(8)).out").path
        // Full size (20,000 webhooks, 2,000 subscriptions, 500/s): about 75 s
        // alone on a 2-core machine, stack start and stop included.
        // SCALE_DEMO_* variables in the test's environment override the size.
        let environment = [String: String]()
        do {
            // Two receivers and three projectors: two stacks' worth of the machine.
            try await StackSlots.shared.withSlots(2) {
                try await ScriptRunner.runScript("scale-demo.sh", [], environment: environment, outputFile: output)
            }
        } catch {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? "(no output)"
            Issue.record("scale demo failed: \(error)\n\(text.suffix(6000))")
        }
        try? FileManager.default.removeItem(atPath: output)
    }
}
