import ServiceSettings
import Foundation
import Synchronization
import Telemetry

/// Runs an executable's services: starts them in order, and stops them in
/// reverse order on SIGTERM/SIGINT, on ``triggerGracefulShutdown(reason:)``,
/// when the task running ``run()`` is cancelled, or when any service throws
/// or returns on its own.
///
/// Start order: each service's ``Service/run()`` is launched in its own task,
/// in array order. For a service whose ``Service/signalsReadiness`` is true
/// the group waits for ``ServiceStartup/markReady()`` before launching the
/// next; for the others it moves on at once, so their `run()` bodies start
/// concurrently.
///
/// Stop: each running service, last first, has its task cancelled and is
/// given ``Configuration/stopTimeout`` to return; one that does not is
/// logged, abandoned, and the next is stopped.
///
/// ```swift
/// let group = ServiceGroup(services: [database, consumer, http], logger: logger)
/// try await group.run()   // throws ServiceGroupError: exit non-zero
/// ```
public final class ServiceGroup: Sendable {
    /// How the group stops.
    public struct Configuration: Sendable {
        /// How long each service gets to return after its task is cancelled.
        public var stopTimeout: Duration
        /// Signals that start a graceful shutdown; empty to handle none
        /// (tests, or an embedding program that handles signals itself).
        public var signals: [Int32]

        public init(stopTimeout: Duration = .seconds(10), signals: [Int32] = [SIGTERM, SIGINT]) {
            self.stopTimeout = stopTimeout
            self.signals = signals
        }
    }

    enum Event: Sendable {
        case ready(Int)
        case exited(Int, Result<Void, any Error>)
        case shutdownRequested(String)
        case stopDeadline(Int)
    }

    private enum Phase {
        case idle(shutdownRequested: String?)
        case running(AsyncStream<Event>.Continuation)
        case finished
    }

    /// Why the group is stopping.
    private enum StopCause {
        case shutdown(reason: String)
        case failed(index: Int, error: any Error)
        case finishedEarly(index: Int)
    }

    public let services: [any Service]
    public let configuration: Configuration
    private let logger: Logger
    private let phase = Mutex(Phase.idle(shutdownRequested: nil))

    /// - Parameters:
    ///   - services: started in this order, stopped in reverse.
    ///   - configuration: stop deadline and signals.
    ///   - logger: logs each start and stop (metadata `service.name`).
    public init(services: [any Service], configuration: Configuration = Configuration(), logger: Logger) {
        self.services = services
        self.configuration = configuration
        self.logger = logger
    }

    /// Asks the group to stop its services in reverse order, exactly as
    /// SIGTERM does. Before ``run()`` it makes `run()` return at once; after
    /// the group stopped it does nothing.
    public func triggerGracefulShutdown(reason: String = "requested") {
        phase.withLock { phase in
            switch phase {
            case .idle(nil): phase = .idle(shutdownRequested: reason)
            case .running(let continuation): continuation.yield(.shutdownRequested(reason))
            case .idle, .finished: break
            }
        }
    }

    /// Starts every service and returns once all are stopped.
    ///
    /// Returns normally after a graceful shutdown in which every service
    /// stopped in time.
    /// - Throws: ``ServiceGroupError`` when a service threw or returned on its
    ///   own, or when a service failed or overran its deadline while stopping.
    public func run() async throws {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let early: String?? = phase.withLock { phase -> String?? in
            guard case .idle(let requested) = phase else { return .none }
            phase = .running(continuation)
            return .some(requested)
        }
        guard let requested = early else { throw ServiceGroupError.alreadyRun }
        defer {
            phase.withLock { $0 = .finished }
            continuation.finish()
        }
        if let requested {
            logger.notice("shutdown requested before start; not starting services", metadata: ["reason": requested])
            return
        }
        // The loop runs in its own task: iterating an AsyncStream ends when
        // the iterating task is cancelled, and cancelling run()'s task must
        // instead mean "stop gracefully".
        let loop = Task { try await self.coordinate(events: events, continuation: continuation) }
        try await withTaskCancellationHandler {
            try await loop.value
        } onCancel: {
            continuation.yield(.shutdownRequested("task cancelled"))
        }
    }

    // MARK: - Coordination

    private func coordinate(events: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation) async throws {
        let signals = ShutdownSignals(configuration.signals) { number in
            continuation.yield(.shutdownRequested(ShutdownSignals.name(number)))
        }
        defer { signals.cancel() }

        var iterator = events.makeAsyncIterator()
        var tasks: [Task<Void, Never>] = []
        var exits: [Int: Result<Void, any Error>] = [:]
        var cause: StopCause?

        // Start, in order.
        starting: for (index, service) in services.enumerated() {
            logger.info("starting service", metadata: ["service.name": service.name])
            tasks.append(launch(service, index: index, continuation: continuation))
            while let event = await iterator.next() {
                switch event {
                case .ready(let ready) where ready == index:
                    logger.info("service started", metadata: ["service.name": service.name])
                    continue starting
                case .exited(let exited, let result):
                    exits[exited] = result
                    cause = stopCause(index: exited, result: result)
                    break starting
                case .shutdownRequested(let reason):
                    cause = .shutdown(reason: reason)
                    break starting
                case .ready, .stopDeadline:
                    continue
                }
            }
        }

        // Run until something asks to stop.
        if cause == nil {
            logger.info("all services started", metadata: ["service.count": String(services.count)])
        }
        while cause == nil, let event = await iterator.next() {
            switch event {
            case .exited(let exited, let result):
                exits[exited] = result
                cause = stopCause(index: exited, result: result)
            case .shutdownRequested(let reason):
                cause = .shutdown(reason: reason)
            case .ready, .stopDeadline:
                continue
            }
        }
        guard let cause else { return } // unreachable: the stream ends only after run() returns
        logStopCause(cause)

        // Stop, in reverse.
        var problems: [String] = []
        for index in tasks.indices.reversed() {
            let name = services[index].name
            if let result = exits[index] {
                if case .failed(let failed, _) = cause, failed == index { continue }
                if case .finishedEarly(let finished) = cause, finished == index { continue }
                noteStopped(index, result, problems: &problems)
                continue
            }
            logger.info("stopping service", metadata: ["service.name": name])
            tasks[index].cancel()
            let deadline = Task {
                try? await Task.sleep(for: configuration.stopTimeout)
                if !Task.isCancelled { continuation.yield(.stopDeadline(index)) }
            }
            waiting: while let event = await iterator.next() {
                switch event {
                case .exited(let exited, let result):
                    exits[exited] = result
                    if exited == index {
                        noteStopped(index, result, problems: &problems)
                        break waiting
                    }
                case .stopDeadline(let overdue) where overdue == index:
                    logger.error(
                        "service did not stop in time; abandoning it", metadata: ["service.name": name, "timeout": "\(configuration.stopTimeout)"])
                    problems.append("\(name) did not stop within \(configuration.stopTimeout)")
                    break waiting
                case .shutdownRequested(let reason):
                    logger.notice("shutdown already in progress", metadata: ["reason": reason])
                case .ready, .stopDeadline:
                    continue
                }
            }
            deadline.cancel()
        }
        logger.info("all services stopped")

        switch cause {
        case .failed(let index, let error):
            throw ServiceGroupError.serviceFailed(service: services[index].name, error: error)
        case .finishedEarly(let index):
            throw ServiceGroupError.serviceFinishedEarly(service: services[index].name)
        case .shutdown:
            if !problems.isEmpty { throw ServiceGroupError.shutdownIncomplete(problems: problems) }
        }
    }

    /// Launches one service in its own unstructured task, so the group can
    /// cancel it alone and stop waiting for it at its deadline.
    private func launch(_ service: any Service, index: Int, continuation: AsyncStream<Event>.Continuation) -> Task<Void, Never> {
        Task {
            let signal = StartupSignal { continuation.yield(.ready(index)) }
            let result: Result<Void, any Error>
            do {
                try await ServiceStartup.$current.withValue(signal) {
                    if !service.signalsReadiness { signal.fire() }
                    try await service.run()
                }
                result = .success(())
            } catch {
                result = .failure(error)
            }
            continuation.yield(.exited(index, result))
        }
    }

    private func stopCause(index: Int, result: Result<Void, any Error>) -> StopCause {
        switch result {
        case .success: return .finishedEarly(index: index)
        case .failure(let error): return .failed(index: index, error: error)
        }
    }

    private func logStopCause(_ cause: StopCause) {
        switch cause {
        case .shutdown(let reason):
            logger.notice("graceful shutdown", metadata: ["reason": reason])
        case .failed(let index, let error):
            logger.error("service failed; stopping the others", metadata: ["service.name": services[index].name, "error": Self.describe(error)])
        case .finishedEarly(let index):
            logger.error("service returned unexpectedly; stopping the others", metadata: ["service.name": services[index].name])
        }
    }

    /// Logs how a service ended during the stop phase; returning or throwing
    /// `CancellationError` is a clean stop.
    private func noteStopped(_ index: Int, _ result: Result<Void, any Error>, problems: inout [String]) {
        let name = services[index].name
        switch result {
        case .success, .failure(is CancellationError):
            logger.info("service stopped", metadata: ["service.name": name])
        case .failure(let error):
            logger.error("service failed while stopping", metadata: ["service.name": name, "error": Self.describe(error)])
            problems.append("\(name) failed while stopping: \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        ConfigReader.redactingCredentials(String(describing: error))
    }
}
