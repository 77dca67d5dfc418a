import ServiceSettings

/// Why ``ServiceGroup/run()`` threw; the executable should exit non-zero.
public enum ServiceGroupError: Error, CustomStringConvertible {
    /// A service threw while the group was running; the others were stopped.
    case serviceFailed(service: String, error: any Error)
    /// A service returned although it had not been asked to stop.
    case serviceFinishedEarly(service: String)
    /// Shutdown was requested, but some services failed while stopping or
    /// did not stop within the deadline.
    case shutdownIncomplete(problems: [String])
    /// `run()` was called a second time.
    case alreadyRun

    public var description: String {
        switch self {
        case .serviceFailed(let service, let error):
            return "service \(service) failed: \(ConfigReader.redactingCredentials(String(describing: error)))"
        case .serviceFinishedEarly(let service):
            return "service \(service) returned unexpectedly"
        case .shutdownIncomplete(let problems):
            return "shutdown incomplete: " + problems.joined(separator: "; ")
        case .alreadyRun:
            return "a service group runs only once"
        }
    }
}
