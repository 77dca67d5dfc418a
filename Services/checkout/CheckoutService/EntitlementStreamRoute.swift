import HTTPServer
import JSONCodec
import BillingModel

/// `GET /api/entitlements/stream[?after=<event id>][&wait=<seconds>]`: a long
/// poll for the token user's entitlement changes (waiting at most `wait`, or
/// ``EntitlementStreamSettings/wait`` when that is shorter or `wait` is absent).
///
/// A long poll, not Server-Sent Events: the HTTP server answers each request
/// with one complete body (libmicrohttpd through `MHD_create_response_from_buffer`,
/// the handler on a Swift task while the connection is suspended), so a poll
/// costs a suspended connection and a task, never a thread, and the server's
/// handler deadline, drain and metrics apply unchanged. Streaming would need
/// a callback-fed response and its own resume, timeout and shutdown rules in
/// that server; a poll of at most 25 s gives the same latency (the answer
/// leaves as soon as the change is read from the topic).
///
/// Answer: `{"success":true,"events":[…],"cursor":"…","reset":false}`, where
/// each event is the topic's value unchanged and `cursor` is the id to send
/// as `after` next (the last event's, or the one sent when none came; null
/// when neither). `reset: true` means `after` is no longer in this replica's
/// memory (``EntitlementStreamSettings/replayWindow``, or a replica that
/// started since): reread `GET /api/entitlements`, then poll without `after`.
struct EntitlementStreamRoute: Sendable {
    static let path = "/api/entitlements/stream"

    let authenticator: Authenticator
    let hub: EntitlementChangeHub

    func mount(on registrar: some RouteRegistrar) {
        registrar.get(Self.path) { request, _ in
            let user = try await authenticator.authenticate(request, fallbackEmail: request.query["email"])
            let cursor = request.query["after"].flatMap { $0.isEmpty ? nil : $0 }
            if let cursor, cursor.utf8.count > 256 {
                throw HTTPError(.badRequest, "after must be an event id of at most 256 bytes", code: "invalid_cursor")
            }
            // A client whose own request timeout is shorter asks for a shorter wait.
            var wait = hub.settings.wait
            if let asked = request.query["wait"] {
                guard let seconds = Int(asked), seconds >= 1 else {
                    throw HTTPError(.badRequest, "wait must be a whole number of seconds, at least 1", code: "bad_request")
                }
                wait = min(wait, .seconds(seconds))
            }
            let answer: EntitlementChangeHub.Answer
            do {
                answer = try await hub.next(for: user.id, after: cursor, timeout: wait)
            } catch {
                throw HTTPError(
                    .serviceUnavailable, "Too many open streams; read /api/entitlements and retry later", code: "stream_busy",
                    headers: ["Retry-After": "30"])
            }
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                body: Self.render(answer, cursor: cursor))
        }
    }

    /// The answer's JSON, written by hand so each event's bytes pass through untouched.
    static func render(_ answer: EntitlementChangeHub.Answer, cursor: String?) -> [UInt8] {
        var body = Array(#"{"success":true,"events":["#.utf8)
        var next = cursor
        var reset = false
        switch answer {
        case .changes(let changes):
            for (index, change) in changes.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body.append(contentsOf: change.value)
            }
            next = changes.last?.id ?? cursor
        case .unknownCursor:
            next = nil
            reset = true
        }
        body.append(contentsOf: #"],"cursor":"#.utf8)
        if let next { JSONText.appendQuoted(next, to: &body) } else { body.append(contentsOf: "null".utf8) }
        body.append(contentsOf: #","reset":"#.utf8)
        body.append(contentsOf: (reset ? "true" : "false").utf8)
        body.append(UInt8(ascii: "}"))
        return body
    }
}
