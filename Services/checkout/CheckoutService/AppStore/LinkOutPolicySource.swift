import BillingModel
import Foundation
import HTTPServer
import ServiceRuntime
import Synchronization
import Telemetry

/// The link-out policy in force, reread when its file changes
/// (`APP_STORE_POLICY_FILE`), so a seller edits the rules without a restart.
/// A file that fails to parse leaves the last good policy in force and is
/// logged once per change; one that is missing at start-up stops the service
/// (``load(path:)``), as a broken entitlements file does.
public final class LinkOutPolicySource: Service {
    public let name = "app-store-policy"
    let path: String?
    let interval: Duration
    let logger: Logger
    private let state: Mutex<State>

    struct State {
        var policy: LinkOutPolicy
        var answer: RenderedPolicy
        /// The file's modification time and size when last read.
        var stamp: FileStamp?
    }

    /// The policy's JSON as `GET /api/app-config` answers it, with its tag.
    struct RenderedPolicy: Sendable {
        var body: [UInt8]
        var etag: String

        init(_ policy: LinkOutPolicy) {
            body = (try? HTTPResponse.json(AppConfigResponse(policy: policy)).body) ?? []
            etag = EntityTag.strong(for: body)
        }
    }

    struct FileStamp: Equatable {
        var modified: Date
        var size: Int
    }

    /// A source over an already-read policy (tests, and a deployment without a file).
    public init(policy: LinkOutPolicy = .unconfigured, logger: Logger = Logger(service: "checkout")) {
        path = nil
        interval = .seconds(2)
        self.logger = logger
        state = Mutex(State(policy: policy, answer: RenderedPolicy(policy), stamp: nil))
    }

    /// Reads `path` now; reread every `interval` when it changed.
    /// - Throws: ``LinkOutPolicy/Invalid`` when the file cannot be read or is invalid.
    public init(path: String, interval: Duration = .seconds(2), logger: Logger) throws(LinkOutPolicy.Invalid) {
        self.path = path
        self.interval = interval
        self.logger = logger
        let stamp = Self.stamp(path)
        let policy = try LinkOutPolicy.load(path: path)
        state = Mutex(State(policy: policy, answer: RenderedPolicy(policy), stamp: stamp))
    }

    /// The policy in force.
    public var policy: LinkOutPolicy { state.withLock { $0.policy } }

    var answer: RenderedPolicy { state.withLock { $0.answer } }

    public func run() async throws {
        guard path != nil else { return await idleUntilStopped() }
        while !Task.isCancelled {
            try await Task.sleep(for: interval)
            reloadIfChanged()
        }
    }

    /// Rereads the file when its modification time or size changed.
    func reloadIfChanged() {
        guard let path else { return }
        let stamp = Self.stamp(path)
        guard stamp != state.withLock({ $0.stamp }) else { return }
        do {
            let policy = try LinkOutPolicy.load(path: path)
            let previous = state.withLock { current -> String in
                defer { current = State(policy: policy, answer: RenderedPolicy(policy), stamp: stamp) }
                return current.policy.version
            }
            logger.info("App Store policy reloaded", metadata: ["from": previous, "version": policy.version])
        } catch {
            // Remember the stamp, so a broken file is reported once, not every interval.
            state.withLock { $0.stamp = stamp }
            logger.error("App Store policy not reloaded; the previous one stays in force", metadata: ["error": error.description])
        }
    }

    private static func stamp(_ path: String) -> FileStamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return FileStamp(modified: modified, size: (attributes[.size] as? NSNumber)?.intValue ?? 0)
    }
}
