import Dispatch
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns process signals (SIGTERM, SIGINT) into calls to a handler, on a
/// Dispatch queue rather than in a signal handler, so the handler may lock,
/// allocate and log.
final class ShutdownSignals {
    private var sources: [(signal: Int32, source: any DispatchSourceSignal)] = []

    /// Starts watching `signals`. Their default action (terminate) is
    /// disabled first, as Dispatch requires, so the process survives to stop
    /// gracefully.
    init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append((number, source))
        }
    }

    /// Stops watching and restores each signal's default action, so a signal
    /// arriving after the group stopped terminates the process as usual.
    func cancel() {
        for (number, source) in sources {
            source.cancel()
            signal(number, SIG_DFL)
        }
        sources = []
    }

    static func name(_ number: Int32) -> String {
        switch number {
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        case SIGHUP: return "SIGHUP"
        case SIGQUIT: return "SIGQUIT"
        default: return "signal \(number)"
        }
    }
}
