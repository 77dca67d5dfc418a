import Foundation
import HTTPClient
import HTTPPrimitives
import Synchronization
import TestSupport
import Testing

/// Connection budgets (issue 34, part 1) through the gateway with real
/// processes: one account cannot take the checkout's connections with live
/// stream polls, and an address that holds the stream and the app routes at
/// their gateway limits takes neither another user's reads nor the provider
/// webhooks. The replica's cap on waiting polls is 8 here (instead of 768), so
/// two users reach it; the per-user cap is the default, 4.
@Suite(.serialized, .liveStack(["CHECKOUT_STREAM_MAX_WAITING": "8", "RECONCILER_REPLICAS": "0"]))
struct ConnectionBudgetsEndToEndTests {
    /// CHECKOUT_STREAM_MAX_PER_USER's default.
    static let perUser = 4
    static let maxWaiting = 8
    /// The gateway's caps per address (deploy/nginx/gateway.conf.template).
    static let streamPerAddress = 16
    static let appPerAddress = 256
    /// Seconds each poll waits: long enough to tell "ended by a newer poll" from "timed out".
    static let wait = 20

    @Test("polls over a user's cap end that user's oldest, over the replica's cap are refused; another user and the webhooks are served")
    func oneAccountCannotTakeTheConnections() async throws {
        let stack = try LiveStack.required()
        let greedy = try await stack.token(subject: "greedy-\(UUID().uuidString.prefix(8))", email: nil)
        let url = stack.gateway + "/api/entitlements/stream?wait=\(Self.wait)"
        let started = ContinuousClock.now

        // One user, ten polls from three addresses (each under the gateway's per-address cap).
        let greedyPolls = Polls()
        greedyPolls.start((0..<10).map { EdgeClient(stack, address: "127.0.0.\(2 + $0 % 3)") }, url, token: greedy)
        let ended = try await stack.eventually(timeout: .seconds(Self.wait - 4), "six of the user's ten polls to end") {
            () async throws -> [(status: Int, body: String)]? in
            let done = greedyPolls.finished
            return done.count >= 10 - Self.perUser ? done : nil
        }
        #expect(ContinuousClock.now - started < .seconds(Self.wait - 2), "ended by newer polls, not by their own wait")
        for answer in ended {
            #expect(answer.status == 200, "an ended poll is a normal empty answer: \(answer.status) \(answer.body.prefix(200))")
            #expect(answer.body.contains(#""events":[]"#) && answer.body.contains(#""reset":false"#), "\(answer.body.prefix(200))")
        }
        try await Task.sleep(for: .seconds(1))
        #expect(greedyPolls.finished.count == 10 - Self.perUser, "the user's newest four still wait")
        #expect(try await Self.waiting(stack) == Self.perUser)

        // A second user fills the replica's cap; a third is refused in the API's shape.
        let second = try await stack.token(subject: "second-\(UUID().uuidString.prefix(8))", email: nil)
        let secondPolls = Polls()
        secondPolls.start((0..<Self.perUser).map { EdgeClient(stack, address: "127.0.0.\(2 + $0 % 3)") }, url, token: second)
        _ = try await stack.eventually(timeout: .seconds(5), "the replica's cap to fill") { () async throws -> Int? in
            let waiting = try await Self.waiting(stack)
            return waiting == Self.maxWaiting ? waiting : nil
        }
        let third = try await stack.token(subject: "third-\(UUID().uuidString.prefix(8))", email: nil)
        let refused = try await Self.poll(EdgeClient(stack, address: "127.0.0.8"), url, token: third)
        #expect(refused.status == 503 && refused.body.contains(#""code":"stream_busy""#), "\(refused.status) \(refused.body.prefix(200))")

        // The abuser's address holds the stream and the app routes at the gateway's caps.
        let gateway = try #require(URL(string: stack.gateway))
        let (host, port) = (try #require(gateway.host), try #require(gateway.port))
        let abuser = "127.0.0.5"
        let heldStream = try HeldRequests(count: Self.streamPerAddress, from: abuser, to: host, port: port, path: "/api/entitlements/stream")
        defer { heldStream.release() }
        let heldApp = try HeldRequests(count: Self.appPerAddress, from: abuser, to: host, port: port, path: "/checkout/complete")
        defer { heldApp.release() }
        let client = EdgeClient(stack, address: abuser)
        // A one-second poll, so a probe that got through before the cap filled comes back soon.
        let streamRefused = try await stack.eventually(timeout: .seconds(30), "the abuser's stream cap to fill") {
            () async throws -> (status: Int, body: String)? in
            let answer = try await client.send(
                stack.gateway + "/api/entitlements/stream?wait=1", headers: [("Authorization", "Bearer \(third)")], maxTime: 15)
            return answer.status == 429 ? answer : nil
        }
        #expect(streamRefused.body.contains(#""code":"rate_limited""#), "\(streamRefused.body.prefix(200))")
        _ = try await stack.eventually(timeout: .seconds(30), "the abuser's app cap to fill") { () async throws -> Int? in
            let answer = try await client.send(stack.gateway + "/checkout/complete")
            return answer.status == 429 ? answer.status : nil
        }

        // Another user is served; provider webhooks are answered, from anywhere, the abuser's address included.
        let other = try await stack.token(subject: "other-\(UUID().uuidString.prefix(8))", email: nil)
        let read = try await EdgeClient(stack, address: "127.0.0.6").send(
            stack.gateway + "/api/entitlements", headers: [("Authorization", "Bearer \(other)")])
        #expect(read.status == 200 && read.body.contains(#""success":true"#), "\(read.status) \(read.body.prefix(200))")
        for address in ["127.0.0.9", abuser] {
            for delivery in try SignedWebhook.both() {
                let answer = try await EdgeClient(stack, address: address).send(
                    stack.gateway + delivery.path, body: delivery.body, headers: delivery.headers)
                #expect(answer.status == 200, "\(delivery.path) from \(address): \(answer.status) \(answer.body.prefix(200))")
            }
        }

        // Bounded: what the checkout counted, and its memory.
        let metrics = try await Self.metrics(stack)
        #expect(Self.value("checkout_stream_polls_evicted_total", in: metrics) == Double(10 - Self.perUser), "\(metrics)")
        #expect((Self.value("checkout_stream_polls_refused_total", in: metrics) ?? 0) >= 1)
        let rss = try Self.residentMegabytes(stack, pidFile: "pids/checkout.pid")
        #expect(rss < 256, "the checkout's memory (\(rss) MB) stays under its compose limit")

        // The polls still waiting end with their wait: nothing is left hanging.
        for answer in try await greedyPolls.all() + secondPolls.all() {
            #expect(answer.status == 200 && answer.body.contains(#""events":[]"#), "\(answer.status) \(answer.body.prefix(200))")
        }
    }

    // MARK: - Helpers

    static func poll(_ client: EdgeClient, _ url: String, token: String) async throws -> (status: Int, body: String) {
        try await client.send(url, headers: [("Authorization", "Bearer \(token)")], maxTime: wait + 10)
    }

    /// Polls running as tasks, and the answers of those that have finished.
    final class Polls: Sendable {
        private let answers = Mutex<[(status: Int, body: String)]>([])
        private let tasks = Mutex<[Task<(status: Int, body: String), any Error>]>([])

        /// Starts one poll per client, in order.
        func start(_ clients: [EdgeClient], _ url: String, token: String) {
            for client in clients {
                let task = Task {
                    let answer = try await ConnectionBudgetsEndToEndTests.poll(client, url, token: token)
                    self.answers.withLock { $0.append(answer) }
                    return answer
                }
                tasks.withLock { $0.append(task) }
            }
        }

        var finished: [(status: Int, body: String)] { answers.withLock { $0 } }

        /// Every poll's answer, waiting for those still running.
        func all() async throws -> [(status: Int, body: String)] {
            var all: [(status: Int, body: String)] = []
            for task in tasks.withLock({ $0 }) { all.append(try await task.value) }
            return all
        }
    }

    static func metrics(_ stack: LiveStack) async throws -> String {
        let checkout = try #require(stack.settings["CHECKOUT_URL"])
        return String(decoding: try await stack.request(.get, checkout + "/metrics").body, as: UTF8.self)
    }

    static func waiting(_ stack: LiveStack) async throws -> Int {
        Int(value("checkout_stream_waiting", in: try await metrics(stack)) ?? -1)
    }

    /// The value of an unlabelled series in Prometheus text.
    static func value(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    static func residentMegabytes(_ stack: LiveStack, pidFile: String) throws -> Int {
        let pid = try String(contentsOfFile: "\(stack.state)/\(pidFile)", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        return kilobytes / 1024
    }
}
