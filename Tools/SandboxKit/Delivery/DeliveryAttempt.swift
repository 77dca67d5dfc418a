import Foundation

/// One attempt to deliver one webhook, as listed by `GET /_sandbox/deliveries`.
public struct DeliveryAttempt: Sendable {
    public enum Outcome: String, Sendable {
        /// The receiver acknowledged it.
        case delivered
        /// It failed and another attempt is scheduled.
        case retrying
        /// It failed and the schedule is exhausted (or there is nowhere to send it).
        case failed
        /// A drop fault swallowed it: nothing was sent, nothing will be retried.
        case dropped
    }

    public let deliveryID: Int
    public let provider: SandboxProvider
    public let eventName: String
    public let url: String?
    /// 1 for the first attempt.
    public let attempt: Int
    public let sentAt: Date
    /// The receiver's status; for a simulated failure, the status the sandbox pretended to get.
    public let status: Int?
    public let error: String?
    /// True when the fault injector failed this attempt without sending anything.
    public let simulated: Bool
    public let outcome: Outcome
    public let headers: [(String, String)]
    public let body: [UInt8]
    public let duplicateOf: Int?

    func json(timestamp: (Date) -> String) -> JSONValue {
        [
            "delivery_id": .int(deliveryID),
            "provider": .string(provider.rawValue),
            "event": .string(eventName),
            "url": JSONValue(url),
            "attempt": .int(attempt),
            "sent_at": .string(timestamp(sentAt)),
            "status": JSONValue(status),
            "error": JSONValue(error),
            "simulated": .bool(simulated),
            "outcome": .string(outcome.rawValue),
            "duplicate_of": JSONValue(duplicateOf),
            "headers": .object(headers.map { JSONField(key: $0.0, value: .string($0.1)) }),
            "body": .string(String(decoding: body, as: UTF8.self)),
        ]
    }
}
