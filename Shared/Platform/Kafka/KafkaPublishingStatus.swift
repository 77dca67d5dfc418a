/// Whether a producer can publish right now, as its own delivery reports
/// tell it: the input of a service's `/readyz` check. A reachable broker is
/// not enough (after a broker restart a producer may reach it and still have
/// every record refused), so this looks at deliveries, not at metadata.
public struct KafkaPublishingStatus: Sendable, Hashable {
    /// A delivery failure that no later delivery has cleared.
    public struct Failure: Sendable, Hashable {
        /// How long ago it happened.
        public var age: Duration
        /// Why (librdkafka's text, or why the handle was replaced).
        public var reason: String

        /// Creates a failure (for tests and fakes; producers make their own).
        public init(age: Duration, reason: String) {
            self.age = age
            self.reason = reason
        }
    }

    /// Records enqueued whose delivery report has not arrived yet.
    public var undelivered: Int
    /// How long the producer has owed records without any progress (no
    /// delivery since the oldest of them was enqueued, or since the last
    /// delivery); nil when it owes nothing.
    public var stalledFor: Duration?
    /// The latest failed delivery, or replacement of the librdkafka handle,
    /// when no delivery succeeded after it.
    public var lastFailure: Failure?
    /// How many times the producer replaced its librdkafka handle.
    public var rebuilds: Int

    /// Creates a status (for tests and fakes; producers make their own).
    public init(undelivered: Int, stalledFor: Duration?, lastFailure: Failure?, rebuilds: Int) {
        self.undelivered = undelivered
        self.stalledFor = stalledFor
        self.lastFailure = lastFailure
        self.rebuilds = rebuilds
    }

    /// Why the producer should not count as ready, or nil when it should.
    ///
    /// Not ready while records wait `window` or longer without any delivery,
    /// or while the latest failure is younger than `window` and nothing was
    /// delivered since. A success clears both at once; so does `window`
    /// passing with no new failure, so a service that publishes rarely (and
    /// that a load balancer stops sending requests to) does not stay unready
    /// for lack of traffic.
    public func problem(window: Duration) -> String? {
        if let stalledFor, stalledFor >= window {
            return "\(undelivered) record(s) undelivered and no delivery for \(stalledFor.formattedSeconds)"
        }
        if let lastFailure, lastFailure.age < window {
            return "a delivery failed \(lastFailure.age.formattedSeconds) ago: \(lastFailure.reason)"
        }
        return nil
    }
}

extension Duration {
    /// `12.3 s`, for status texts.
    fileprivate var formattedSeconds: String {
        let tenths = (components.seconds * 10) + components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
