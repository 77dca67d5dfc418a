import Foundation
import SandboxKit

/// Every provider's lives, played on the provider sandbox (`Tools/SandboxKit`):
/// purchase, renewal, payment failure and recovery, cancel and resume, plan
/// change, refunds full and partial, disputes and expiry, as far as each
/// provider has them. Each life is one purchase by one buyer, its steps a
/// day apart (a renewal's and a recovery's webhooks share their step's time,
/// as the providers send them).
public enum SandboxLives {
    /// A fixed start, so the lives' times (and so their periods) never depend on the day the test runs.
    public static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// Every life of every provider. `custom` is what Storefront's checkout
    /// sends as custom data (Lemon Squeezy) or metadata (Paystack, Stripe).
    public static func all(custom: [String: String]) async -> [Life] {
        await lemonSqueezy(custom: custom) + paystack(custom: custom) + stripe(custom: custom)
    }

    /// One step of a life: a request to the sandbox, which may note ids for later steps.
    typealias Step = (SandboxDriver, inout [String: String]) async -> Void

    /// A life: `steps` played on a fresh sandbox, a day between steps.
    static func life(
        _ provider: String, _ name: String, custom: [String: String], _ steps: [Step]
    ) async -> Life {
        let driver = SandboxDriver(start: start, custom: custom)
        var ids: [String: String] = [:]
        for step in steps {
            await step(driver, &ids)
            driver.advance(hours: 24)
        }
        return Life(provider: provider, name: name, records: await driver.sent())
    }

    static func customJSON(_ custom: [String: String]) -> JSONValue {
        .object(custom.sorted { $0.key < $1.key }.map { JSONField(key: $0.key, value: .string($0.value)) })
    }
}
