import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
@testable import StorefrontKit

/// A request as the stub saw it.
struct RecordedRequest: Sendable {
    var method: String
    var url: URL
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
}

/// What the stub answers.
enum StubAnswer: Sendable {
    case response(status: Int, headers: [String: String], body: Data)
    case failure(URLError.Code)
    /// `answer`, after `seconds`, from another thread: a long poll's wait
    /// without holding the thread that asked (blocking it would stall the caller).
    indirect case delayed(seconds: Double, StubAnswer)

    static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> StubAnswer {
        .response(status: status, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a }, body: Data(text.utf8))
    }
}

/// A fake Storefront server behind a `URLProtocol`: no sockets. Each stub
/// has its own host (`stub-<id>.invalid`), so suites running in parallel
/// never see each other's requests.
final class StubServer: Sendable {
    typealias Handler = @Sendable (RecordedRequest, Int) -> StubAnswer

    static let servers = Mutex<[String: StubServer]>([:])

    let host = "stub-\(UUID().uuidString.prefix(8).lowercased()).invalid"
    private let state: Mutex<(handler: Handler, requests: [RecordedRequest])>

    /// - Parameter handler: gets each request and its 0-based number.
    init(_ handler: @escaping Handler) {
        state = Mutex((handler, []))
        Self.servers.withLock { $0[host] = self }
    }

    var baseURL: URL { URL(string: "https://\(host)")! }

    var requests: [RecordedRequest] { state.withLock { $0.requests } }

    func setHandler(_ handler: @escaping Handler) { state.withLock { $0.handler = handler } }

    func answer(_ request: RecordedRequest) -> StubAnswer {
        let (handler, number) = state.withLock { state -> (Handler, Int) in
            state.requests.append(request)
            return (state.handler, state.requests.count - 1)
        }
        return handler(request, number)
    }

    func unregister() { _ = Self.servers.withLock { $0.removeValue(forKey: host) } }

    /// A session whose requests this stub (and its siblings) answer.
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }

    /// A client on this stub.
    func client(
        options: StorefrontClient.Options = StubServer.fastOptions(),
        token: @escaping StorefrontClient.TokenProvider = { StubServer.jwt(subject: "user-1") }
    ) -> StorefrontClient {
        StorefrontClient(baseURL: baseURL, session: Self.session(), options: options, tokenProvider: token)
    }

    /// Short delays, and a fresh folder of its own for the entitlements cache
    /// (never the machine's Application Support). The live stream is off
    /// unless asked for: the suites that count requests count polls only.
    static func fastOptions(
        cacheDirectory: URL? = nil, returnURLs: [URL] = [], entitlementsDirectory: URL? = StubServer.temporaryFolder(),
        clock: any StorefrontClock = .system, liveChanges: Bool = false
    ) -> StorefrontClient.Options {
        StorefrontClient.Options(
            cacheDirectory: cacheDirectory, returnURLs: returnURLs, requestTimeout: .seconds(5),
            pollInitialDelay: .milliseconds(10), pollMaximumDelay: .milliseconds(40), entitlementsDirectory: entitlementsDirectory,
            refreshesOnForeground: false, liveChanges: liveChanges, clock: clock)
    }

    /// A new folder under the system's temporary one (not created yet).
    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("storefrontkit-tests", isDirectory: true)
            .appendingPathComponent(UUID().uuidString.prefix(12).lowercased(), isDirectory: true)
    }

    /// An unsigned JWT-shaped token with this subject (the stub does not verify).
    static func jwt(subject: String) -> String {
        func part(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return part(#"{"alg":"HS256","typ":"JWT"}"#) + "." + part(#"{"sub":"\#(subject)"}"#) + ".c2ln"
    }
}

final class StubProtocol: URLProtocol {
    /// Carries the protocol to the queue that delivers a delayed answer.
    /// `@unchecked Sendable`: URLProtocol is not, but the only state touched
    /// there is the `stopped` mutex and `client`, which the session sets
    /// before `startLoading` and never changes.
    private struct Later: @unchecked Sendable {
        let stub: StubProtocol
    }

    override class func canInit(with request: URLRequest) -> Bool {
        guard let host = request.url?.host else { return false }
        return StubServer.servers.withLock { $0[host] != nil }
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let host = url.host, let server = StubServer.servers.withLock({ $0[host] }) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
            return
        }
        let recorded = RecordedRequest(
            method: request.httpMethod ?? "GET", url: url, headers: request.allHTTPHeaderFields ?? [:],
            body: request.httpBody ?? Self.read(request.httpBodyStream))
        deliver(server.answer(recorded), url: url)
    }

    private func deliver(_ answer: StubAnswer, url: URL) {
        switch answer {
        case .failure(let code):
            client?.urlProtocol(self, didFailWithError: URLError(code))
        case .response(let status, let headers, let body):
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client?.urlProtocol(self, didLoad: body)
            client?.urlProtocolDidFinishLoading(self)
        case .delayed(let seconds, let later):
            let carried = Later(stub: self)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                if !carried.stub.stopped.withLock({ $0 }) { carried.stub.deliver(later, url: url) }
            }
        }
    }

    /// Set when the request is cancelled: a delayed answer is then dropped.
    private let stopped = Mutex(false)

    override func stopLoading() { stopped.withLock { $0 = true } }

    static func read(_ stream: InputStream?) -> Data {
        guard let stream else { return Data() }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
