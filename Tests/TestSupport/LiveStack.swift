import Foundation
import HTTPClient
import Postgres
import Testing

/// The whole stack as real processes (PostgreSQL, Tansu, provider sandbox, the
/// five services, the nginx gateway), started by `scripts/stack.sh` on free
/// ports. Each suite starts its own, so suites never disturb one another.
/// Shared by the end-to-end suites and StorefrontKit's live tests.
public final class LiveStack: Sendable {
    /// The stack's folder (`stack.env`, `logs/`, `pids/`).
    public let state: String
    /// What `stack.sh` wrote to `stack.env` (`GATEWAY_URL`, `SANDBOX_URL`, …).
    public let settings: [String: String]
    public let http = HTTPClient()

    public var gateway: String { settings["GATEWAY_URL"]! }
    public var sandbox: String { settings["SANDBOX_URL"]! }
    public var databaseURL: String { settings["DATABASE_URL"]! }
    public var jwtSecret: String { settings["AUTH_JWT_SECRET"]! }

    /// This stack's share of ``StackSlots/shared``, given back by ``stop()``.
    private let slot: StackSlots.Hold

    private init(state: String, settings: [String: String], slot: StackSlots.Hold) {
        self.state = state
        self.settings = settings
        self.slot = slot
    }

    /// Starts a stack; the built executables must exist (make test builds them first).
    public static func start(environment: [String: String] = [:]) async throws -> LiveStack {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString.prefix(8))").path
        // STACK_OWNER_PID: should this test process die, the stack stops itself.
        var env = [
            "STACK_FREE_PORTS": "1", "SANDBOX_RETRY_TIME_SCALE": "0.002", "LOG_LEVEL": "info",
            "STACK_OWNER_PID": String(getpid()),
        ]
        env.merge(environment) { _, new in new }
        let slot = await StackSlots.shared.take()
        do {
            try await ScriptRunner.runScript("stack.sh", ["up", state], environment: env, outputFile: state + ".out")
        } catch {
            try? await ScriptRunner.runScript("stack.sh", ["down", state])
            slot.release()
            let output = (try? String(contentsOfFile: state + ".out", encoding: .utf8)) ?? ""
            throw ScriptRunner.Failure(description: "stack did not start: \(error)\n\(output.suffix(3000))")
        }
        return LiveStack(state: state, settings: try TestEnvironment.readEnvFile(state + "/stack.env"), slot: slot)
    }

    /// Stops everything and deletes the stack's folder (its logs too, unless
    /// `E2E_KEEP_STATE=1`, for looking into a failure).
    public func stop() async {
        try? await ScriptRunner.runScript("stack.sh", ["down", state])
        slot.release()
        guard ProcessInfo.processInfo.environment["E2E_KEEP_STATE"] != "1" else { return }
        try? FileManager.default.removeItem(atPath: state)
        try? FileManager.default.removeItem(atPath: state + ".out")
    }

    /// Sends a signal to a process the stack started (e.g. SIGSTOP/SIGCONT to the broker).
    public func signal(_ signal: Int32, to pidFile: String) throws {
        let text = try String(contentsOfFile: "\(state)/\(pidFile)", encoding: .utf8)
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ScriptRunner.Failure(description: "no pid in \(pidFile)")
        }
        guard kill(pid, signal) == 0 else { throw ScriptRunner.Failure(description: "kill \(signal) \(pid) failed") }
    }

    // MARK: - HTTP

    public func request(
        _ method: HTTPMethod, _ url: String, token: String? = nil, json: String? = nil,
        headers extra: [(String, String)] = []
    ) async throws -> HTTPClientResponse {
        var headers = HTTPHeaders(extra)
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        var request = HTTPClientRequest(method: method, url: url, headers: headers, body: Array((json ?? "").utf8))
        request.retryPolicy = RetryPolicy.none
        request.timeout = .seconds(20)
        return try await http.execute(request)
    }

    public func decode<T: Decodable>(_ type: T.Type, _ response: HTTPClientResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(response.body))
    }

    /// A token for an app user, minted by the operator CLI with the stack's
    /// secret, issuer and audience; `email` nil leaves the claim out.
    public func token(subject: String, email: String?, emailVerified: Bool = true) async throws -> String {
        let output = state + "/token-\(UUID().uuidString.prefix(6))"
        var arguments = ["dev-token", "--sub", subject, "--iss", settings["AUTH_JWT_ISSUER"] ?? "", "--aud", settings["AUTH_JWT_AUDIENCE"] ?? ""]
        if let email { arguments += ["--email", email, "--email-verified", emailVerified ? "true" : "false"] }
        try await ScriptRunner.run(binary("storefront"), arguments, environment: ["AUTH_JWT_SECRET": jwtSecret], outputFile: output)
        return try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func binary(_ name: String) throws -> String {
        let scripts = try ScriptRunner.scriptsFolder()
        return
            (ProcessInfo.processInfo.environment["STOREFRONT_BIN"] ?? URL(fileURLWithPath: scripts).deletingLastPathComponent().path + "/.build/debug")
            + "/" + name
    }

    // MARK: - Waiting

    /// Polls `probe` until it returns a value or `timeout` passes (the
    /// module's one poll loop, ``TestSupport/eventually(timeout:every:_:)``).
    ///
    /// `T` must not be an Optional: assigned to an Optional (or under `try?`)
    /// with an unannotated closure, Swift can infer `T` as one, and the
    /// probe's `nil` then arrives as a found `.some(nil)` that ends the wait
    /// at once. That is refused here rather than passed as a result.
    public func eventually<T>(
        timeout: Duration = .seconds(30), _ what: String,
        _ probe: () async throws -> T?
    ) async throws -> T {
        guard !(T.self is any OptionalMarker.Type) else {
            throw ScriptRunner.Failure(
                description: "eventually(\(what)): the probe's value was inferred as \(T.self); annotate its return type")
        }
        var found: T?
        _ = try await TestSupport.eventually(timeout: timeout, every: .milliseconds(200)) {
            found = try await probe()
            return found != nil
        }
        guard let found else { throw ScriptRunner.Failure(description: "timed out waiting for \(what)") }
        return found
    }

    // MARK: - Database

    public func withDatabase<T>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: databaseURL))
        do {
            let value = try await body(pool)
            await pool.close()
            return value
        } catch {
            await pool.close()
            throw error
        }
    }
}

/// Starts one live stack around a whole suite and stops it afterwards, even
/// when a test fails; tests read it from ``LiveStack/current``.
public struct LiveStackScope: SuiteTrait, TestScoping {
    public var environment: [String: String] = [:]

    public init(environment: [String: String] = [:]) { self.environment = environment }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let stack = try await LiveStack.start(environment: environment)
        do {
            try await LiveStack.$current.withValue(stack) { try await function() }
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == LiveStackScope {
    /// The suite runs against its own live stack started with these extra settings.
    public static func liveStack(_ environment: [String: String] = [:]) -> Self { LiveStackScope(environment: environment) }
}

extension LiveStack {
    @TaskLocal public static var current: LiveStack?

    /// The suite's stack; fails the test when the suite has no `.liveStack()` trait.
    public static func required() throws -> LiveStack {
        try #require(current, "this suite needs the .liveStack() trait")
    }
}

/// Marks Optional types, so ``LiveStack/eventually(timeout:_:_:)`` can refuse an Optional `T`.
protocol OptionalMarker {}
extension Optional: OptionalMarker {}
