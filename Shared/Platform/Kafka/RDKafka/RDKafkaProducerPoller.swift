import Timing
internal import CRdKafka
import Foundation
import Synchronization

/// Serves a producer's callbacks (delivery reports, errors) by calling
/// `rd_kafka_poll` on a dedicated thread, never on Swift's cooperative pool,
/// and performs the blocking flush of a shutdown on that same thread.
final class RDKafkaProducerPoller: Sendable {
    typealias ShutdownWaiter = CheckedContinuation<[KafkaUndeliveredMessage], Never>

    private struct State {
        var stopRequested = false
        var flushTimeoutMilliseconds: Int32?
        var shutdownWaiters: [ShutdownWaiter] = []
        var finished: [KafkaUndeliveredMessage]?
    }

    private let state = Mutex(State())
    private let client: RDKafkaClient
    private let context: RDKafkaProducerContext

    init(client: RDKafkaClient, context: RDKafkaProducerContext) {
        self.client = client
        self.context = context
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "kafka-producer-poll"
        thread.start()
    }

    /// Stops polling without flushing (the producer was dropped without `shutdown`).
    func stop() {
        state.withLock { $0.stopRequested = true }
        rd_kafka_yield(client.handle)
    }

    /// Flushes for up to `timeout`, purges what is left, and returns the
    /// fire-and-forget messages that were not delivered. Safe to call twice.
    func shutdown(timeout: Duration) async -> [KafkaUndeliveredMessage] {
        let milliseconds = Int32(clamping: max(timeout.wholeMilliseconds, 0))
        let result = await withCheckedContinuation { (waiter: ShutdownWaiter) in
            let finished: [KafkaUndeliveredMessage]? = state.withLock { state in
                if let finished = state.finished { return finished }
                state.flushTimeoutMilliseconds = state.flushTimeoutMilliseconds ?? milliseconds
                state.shutdownWaiters.append(waiter)
                return nil
            }
            if let finished { waiter.resume(returning: finished) } else { rd_kafka_yield(client.handle) }
        }
        return result
    }

    private func run() {
        let handle = client.handle
        while true {
            let (stop, flushTimeout) = state.withLock { ($0.stopRequested, $0.flushTimeoutMilliseconds) }
            if let flushTimeout {
                finishShutdown(flushTimeout: flushTimeout)
                return
            }
            if stop { return }
            rd_kafka_poll(handle, 100)
        }
    }

    private func finishShutdown(flushTimeout: Int32) {
        let handle = client.handle
        context.beginShutdown()
        // flush serves delivery reports itself while it waits.
        let flushResult = rd_kafka_flush(handle, flushTimeout)
        if flushResult != RD_KAFKA_RESP_ERR_NO_ERROR {
            // Whatever is left fails with a purge error in its delivery report.
            rd_kafka_purge(handle, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT)
            _ = rd_kafka_flush(handle, 1000)
        }
        rd_kafka_poll(handle, 0)
        let undelivered = context.finishShutdown()
        let waiters = state.withLock { state -> [ShutdownWaiter] in
            state.finished = undelivered
            defer { state.shutdownWaiters = [] }
            return state.shutdownWaiters
        }
        for waiter in waiters {
            waiter.resume(returning: undelivered)
        }
    }
}
