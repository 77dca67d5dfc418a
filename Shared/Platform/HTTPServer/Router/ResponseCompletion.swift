import Synchronization
import Telemetry

/// The one-shot answer of a deferred route (``DeferredRouteHandler``): call
/// ``complete(_:)`` once, from any thread, with the response.
///
/// Only the first call counts; later ones are ignored, as is a call that
/// comes after the server already answered (the handler deadline's 504, the
/// shutdown's 503). A completion that is released without ever being called
/// answers 500 from its `deinit` and logs an error, so a handler that loses
/// it (a callback that is never invoked, a path that forgets to answer) costs
/// one failed request, not a connection held until the handler deadline or,
/// behind middleware, a task suspended for ever.
public final class ResponseCompletion: Sendable {
    /// Where the response goes: the suspended connection, or the continuation
    /// of a deferred handler run as an async one (behind middleware).
    private let deliver: @Sendable (Result<HTTPResponse, HTTPError>) -> Void
    private let called = Atomic<Bool>(false)
    private let logger: Logger
    private let route: String

    init(logger: Logger, route: String, deliver: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void) {
        self.logger = logger
        self.route = route
        self.deliver = deliver
    }

    deinit {
        guard claim() else { return }
        logger.error("deferred handler dropped its completion without answering", metadata: ["http.route": route])
        deliver(.success(HTTPError(.internalServerError, "Internal server error").response))
    }

    /// Answers the request with `response`; only the first call counts.
    public func complete(_ response: HTTPResponse) {
        guard claim() else { return }
        deliver(.success(response))
    }

    /// Answers the request with `error`'s response, as if the handler had thrown it
    /// (middleware around the route sees the error thrown).
    public func fail(_ error: HTTPError) {
        guard claim() else { return }
        deliver(.failure(error))
    }

    /// True for exactly one caller: the one that answers.
    private func claim() -> Bool {
        called.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
