import Foundation
import HTTPClient
import TestSupport
import Testing

/// What `/echo` answers.
struct Echo: Decodable {
    let method: String
    let path: String
    let headers: [String: String]
    let body: String
    let clientPort: Int
}

@Suite("HTTPClient against a live local server")
struct HTTPClientTests {
    let server: TestServer

    init() async throws {
        server = try await sharedServer.value
    }

    private func attempts(_ key: String, _ client: HTTPClient) async throws -> Int {
        let response = try await client.get(server.url("/attempts?key=\(key)")).ensureSuccess()
        return try #require(Int(response.bodyString))
    }

    // MARK: - Basics

    @Test func echoesMethodHeadersAndBody() async throws {
        let client = HTTPClient()
        let request = HTTPClientRequest(
            method: .put, url: server.url("/echo?x=1"),
            headers: ["X-Test": "hello", "Authorization": "Bearer secret-token"],
            body: Array("payload é".utf8))
        let response = try await client.execute(request).ensureSuccess()
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["CONTENT-TYPE"] == "application/json")
        let echo = try response.decode(Echo.self)
        #expect(echo.method == "PUT")
        #expect(echo.path == "/echo?x=1")
        #expect(echo.headers["x-test"] == "hello")
        #expect(echo.headers["content-length"] == "\(Array("payload é".utf8).count)")
        #expect(echo.headers["expect"] == nil)
        #expect(echo.body == "payload é")
    }

    @Test func postWithEmptyBodySendsContentLengthZero() async throws {
        let echo = try await HTTPClient().post(server.url("/echo"), body: []).decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.headers["content-length"] == "0")
    }

    @Test func ensureSuccessThrowsStatusAndBody() async throws {
        let response = try await HTTPClient().get(server.url("/missing"))
        #expect(response.status == 404)
        #expect(throws: HTTPClientError.status(code: 404, body: "not found")) { try response.ensureSuccess() }
    }

    // MARK: - Connections

    @Test func sequentialRequestsReuseTheConnection() async throws {
        let client = HTTPClient()
        var ports: Set<Int> = []
        for _ in 0..<20 {
            let echo = try await client.get(server.url("/echo")).decode(Echo.self)
            ports.insert(echo.clientPort)
        }
        #expect((1...2).contains(ports.count), "20 sequential requests used \(ports.count) connections")
    }

    @Test func manyConcurrentRequestsAllSucceed() async throws {
        let client = HTTPClient()
        let paths = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await client.get(server.url("/echo?i=\(index)")).ensureSuccess().decode(Echo.self).path
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(paths == Set((0..<200).map { "/echo?i=\($0)" }))
    }

    // MARK: - Failures

    @Test func totalTimeoutFires() async throws {
        let client = HTTPClient()
        let request = HTTPClientRequest(url: server.url("/slow?ms=3000"), timeout: .milliseconds(300), retryPolicy: RetryPolicy.none)
        await #expect(throws: HTTPClientError.timeout) { try await client.execute(request) }
    }

    @Test func closedPortIsConnectionRefused() async throws {
        let port = try closedPort()
        let request = HTTPClientRequest(
            url: "http://127.0.0.1:\(port)/", headers: ["Authorization": "Bearer very-secret-value"],
            retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10)))
        let error = await #expect(throws: HTTPClientError.self) { try await HTTPClient().execute(request) }
        #expect(error == .connectionRefused)
        #expect(!"\(String(describing: error))".contains("very-secret-value"))
    }

    @Test func rejectsNonHTTPURLAndHeaderInjection() async throws {
        let client = HTTPClient()
        await #expect(throws: HTTPClientError.invalidURL) { try await client.get("ftp://127.0.0.1/file") }
        await #expect(throws: HTTPClientError.invalidHeader(name: "X-Evil")) {
            try await client.get(server.url("/echo"), headers: ["X-Evil": "a\r\nInjected: yes"])
        }
    }

    @Test func bodyLimitIsEnforced() async throws {
        let client = HTTPClient(configuration: HTTPClientConfiguration(maxResponseBodySize: 1000))
        let exact = try await client.get(server.url("/bytes?n=1000"))
        #expect(exact.body.count == 1000)
        // Declared length too large: refused before reading.
        await #expect(throws: HTTPClientError.bodyTooLarge(limit: 1000)) { try await client.get(server.url("/bytes?n=5000")) }
        // Chunked, no declared length: stopped while reading.
        await #expect(throws: HTTPClientError.bodyTooLarge(limit: 1000)) {
            try await client.get(server.url("/bytes?n=50000&chunked=1"))
        }
        // The client still works afterwards.
        #expect(try await client.get(server.url("/bytes?n=10")).body.count == 10)
    }

    @Test func cancellationStopsTheRequest() async throws {
        let client = HTTPClient()
        let key = UUID().uuidString
        let clock = ContinuousClock()
        let task = Task { try await client.get(server.url("/slow?ms=30000&key=\(key)")) }
        // Cancel only once the server is holding the request, so it is a transfer in flight that stops.
        try await waitUntil("the server received the request") {
            (try? await HTTPClient().get(server.url("/attempts?key=\(key)")))?.bodyString == "1"
        }
        let cancelled = clock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // Far below the server's 30 s: the transfer was aborted, not waited out.
        #expect(clock.now - cancelled < .seconds(15))
    }

    // MARK: - Retries

    @Test func retryHonoursRetryAfter() async throws {
        let key = UUID().uuidString
        let client = HTTPClient()
        let clock = ContinuousClock()
        let started = clock.now
        let response = try await client.get(server.url("/flaky?key=\(key)&failures=2&retry_after=1"))
        let elapsed = started.duration(to: clock.now)
        #expect(response.status == 200)
        #expect(response.bodyString == "ok after 3")
        #expect(try await attempts(key, client) == 3)
        #expect(elapsed >= .seconds(2), "two Retry-After: 1 waits, but only \(elapsed) elapsed")
    }

    @Test func retries429() async throws {
        let key = UUID().uuidString
        let client = HTTPClient()
        let response = try await client.get(server.url("/flaky?key=\(key)&failures=1&status=429&retry_after=0"))
        #expect(response.status == 200)
        #expect(try await attempts(key, client) == 2)
    }

    @Test func retryAfterBeyondTheCapReturnsTheResponse() async throws {
        let key = UUID().uuidString
        let client = HTTPClient(configuration: HTTPClientConfiguration(retryPolicy: RetryPolicy(maxRetryAfter: .seconds(1))))
        let response = try await client.get(server.url("/flaky?key=\(key)&failures=1&retry_after=120"))
        #expect(response.status == 503)
        #expect(try await attempts(key, client) == 1)
    }

    @Test func plainPostIsNotRetried() async throws {
        let key = UUID().uuidString
        let client = HTTPClient()
        let response = try await client.post(server.url("/fail?key=\(key)"), body: Array("{}".utf8))
        #expect(response.status == 503)
        #expect(try await attempts(key, client) == 1)
    }

    @Test func postMarkedIdempotentIsRetried() async throws {
        let key = UUID().uuidString
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10))
        let client = HTTPClient(configuration: HTTPClientConfiguration(retryPolicy: policy))
        let response = try await client.post(server.url("/fail?key=\(key)"), body: Array("{}".utf8), idempotent: true)
        #expect(response.status == 503)
        #expect(try await attempts(key, client) == 3)
    }

    @Test func getRetriesUntilAttemptsRunOut() async throws {
        let key = UUID().uuidString
        let request = HTTPClientRequest(
            url: server.url("/fail?key=\(key)"), retryPolicy: RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(5)))
        let client = HTTPClient()
        #expect(try await client.execute(request).status == 503)
        #expect(try await attempts(key, client) == 4)
    }
}
