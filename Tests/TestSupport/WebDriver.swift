import Foundation
import HTTPClient

/// Debian's headless Chromium, driven through chromedriver's W3C WebDriver
/// HTTP API (https://www.w3.org/TR/webdriver2/) directly: no Selenium, and
/// nothing downloads browsers or drivers (`scripts/install-deps.sh` installs
/// the `chromium` and `chromium-driver` packages). It speaks to chromedriver
/// through the project's HTTPClient: Foundation's URLSession on Linux
/// rejects chromedriver's header lines (`Content-Length:252`, no space).
/// Shared by StorefrontKit's live tests and the web-first end-to-end tests.
public final class Browser: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static let chromium = "/usr/bin/chromium"
    public static let chromedriver = "/usr/bin/chromedriver"
    /// The W3C element reference key.
    public static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    let driver: ChildProcess
    let endpoint: String
    let sessionID: String
    let profile: String
    let session: HTTPClient

    private init(driver: ChildProcess, endpoint: String, sessionID: String, profile: String, session: HTTPClient) {
        self.driver = driver
        self.endpoint = endpoint
        self.sessionID = sessionID
        self.profile = profile
        self.session = session
    }

    /// Starts chromedriver on a free port and opens a headless Chromium session.
    public static func start() async throws -> Browser {
        for path in [chromium, chromedriver] where !FileManager.default.isExecutableFile(atPath: path) {
            throw Failure(description: "\(path) is missing: run scripts/install-deps.sh (Debian packages chromium, chromium-driver)")
        }
        let port = try await freePort()
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString.prefix(8))").path
        let log = profile + ".log"
        // Chromium's scratch folders go under the profile's own TMPDIR, removed with it.
        let scratch = profile + "-tmp"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch
        let driver = try ChildProcess.spawn(
            [chromedriver, "--port=\(port)", "--allowed-ips=127.0.0.1", "--log-path=\(log)"],
            environment: environment, mergeStandardError: true)
        // Drain its output so it never blocks on a full pipe.
        let output = driver.standardOutput
        Task.detached { _ = await ChildProcess.readAll(output) }
        let endpoint = "http://127.0.0.1:\(port)"
        let session = HTTPClient()
        do {
            try await waitUntilReady(endpoint, session: session)
            let capabilities: [String: Any] = [
                "capabilities": [
                    "alwaysMatch": [
                        "browserName": "chrome",
                        "goog:chromeOptions": [
                            "binary": chromium,
                            "args": [
                                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                                "--disable-extensions", "--user-data-dir=\(profile)", "--window-size=800,900",
                            ],
                        ],
                    ]
                ]
            ]
            let created = try await call(session, "POST", endpoint + "/session", capabilities)
            guard let id = (created["value"] as? [String: Any])?["sessionId"] as? String else {
                throw Failure(description: "chromedriver did not open a session: \(created)")
            }
            return Browser(driver: driver, endpoint: endpoint, sessionID: id, profile: profile, session: session)
        } catch {
            // SIGKILL: a child of this test process may inherit SIGTERM as ignored.
            driver.signal(SIGKILL)
            _ = await driver.wait()
            let tail = (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(2000)) } ?? ""
            for path in [profile, log, scratch] { try? FileManager.default.removeItem(atPath: path) }
            throw Failure(description: "\(error)\nchromedriver log:\n\(tail)")
        }
    }

    /// Ends the session, stops chromedriver (and with it Chromium), removes the profile.
    public func quit() async {
        _ = try? await command("DELETE", "") // closes Chromium
        driver.signal(SIGKILL)
        _ = await driver.wait()
        for path in [profile, profile + ".log", profile + "-tmp"] { try? FileManager.default.removeItem(atPath: path) }
    }

    public func open(_ url: String) async throws { _ = try await command("POST", "/url", ["url": url]) }

    public var currentURL: String { get async throws { try await command("GET", "/url") as? String ?? "" } }
    public var title: String { get async throws { try await command("GET", "/title") as? String ?? "" } }
    public var source: String { get async throws { try await command("GET", "/source") as? String ?? "" } }

    /// The first element matching a CSS selector (waits up to `timeout` for it to appear).
    public func element(_ selector: String, timeout: Duration = .seconds(10)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                let found = try await command("POST", "/element", ["using": "css selector", "value": selector])
                if let id = (found as? [String: Any])?[Self.elementKey] as? String { return id }
            } catch  where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            throw Failure(description: "no element \(selector)")
        }
    }

    public func click(_ element: String) async throws { _ = try await command("POST", "/element/\(element)/click", [:]) }
    /// Types `text` into a field (W3C Element Send Keys), as a person at the keyboard.
    public func type(_ text: String, into element: String) async throws {
        _ = try await command("POST", "/element/\(element)/value", ["text": text])
    }
    public func text(_ element: String) async throws -> String { try await command("GET", "/element/\(element)/text") as? String ?? "" }
    public func attribute(_ name: String, of element: String) async throws -> String? {
        try await command("GET", "/element/\(element)/attribute/\(name)") as? String
    }

    /// Polls until the page's URL satisfies `condition`.
    public func waitForURL(timeout: Duration = .seconds(15), _ condition: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try await currentURL
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "the browser stayed at \(last)")
    }

    // MARK: - Wire

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        try await Self.call(session, method, "\(endpoint)/session/\(sessionID)\(path)", body)["value"]
    }

    private static func call(_ client: HTTPClient, _ method: String, _ url: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var headers = HTTPHeaders()
        var bytes: [UInt8] = []
        if let body {
            bytes = Array(try JSONSerialization.data(withJSONObject: body))
            headers.add(name: "Content-Type", value: "application/json")
        }
        var request = HTTPClientRequest(method: HTTPMethod(rawValue: method), url: url, headers: headers, body: bytes)
        request.retryPolicy = RetryPolicy.none
        request.timeout = .seconds(60)
        let response = try await client.execute(request)
        guard response.status == 200 else {
            throw Failure(description: "WebDriver \(method) \(url) answered \(response.status): \(response.bodyString.prefix(500))")
        }
        return (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    private static func waitUntilReady(_ endpoint: String, session: HTTPClient) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        var last = "no answer"
        while ContinuousClock.now < deadline {
            do {
                let status = try await call(session, "GET", endpoint + "/status")
                if (status["value"] as? [String: Any])?["ready"] as? Bool == true { return }
            } catch {
                last = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "chromedriver did not become ready at \(endpoint): \(last)")
    }

    private static func freePort() async throws -> Int {
        let output = try await ChildProcess.run([try ScriptRunner.scriptsFolder() + "/free-port.sh"])
        guard let port = Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(description: "free-port.sh printed no port")
        }
        return port
    }
}
