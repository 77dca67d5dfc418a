import Foundation
import Synchronization

/// The emulated External Purchase Server API (App Store):
/// `PUT /externalPurchase/v1/reports` (Send External Purchase Report) and
/// `GET /externalPurchase/v1/reports/{requestIdentifier}` (Retrieve External
/// Purchase Report), behind Apple's token check (``AppleTokenCheck``: 401),
/// with Apple's report checks (``AppleReportRules``: 400) and injectable
/// 401, 429 and 5xx answers, so a reporter's retries can be tested.
///
/// Controls (``control(_:path:body:)``, under `/_sandbox/apple/external-purchase`):
/// `GET reports` lists what was accepted, in order, and every attempt with its
/// answer; `DELETE reports` forgets both; `POST faults`
/// `{"answer_next": [429, 500, 401]}` answers the next reports with those statuses.
final class AppleExternalPurchaseAPI: Sendable {
    struct Accepted: Sendable {
        var receivedAt: Date
        var report: JSONValue
    }

    struct Attempt: Sendable {
        var requestID: String?
        var status: Int
        var error: String?
    }

    struct State: Sendable {
        var accepted: [Accepted] = []
        var attempts: [Attempt] = []
        var lineItems: [String: (eventType: String, subscriptionEvent: String?)] = [:]
        var lineItemTokens: Set<String> = []
        var answerNext: [Int] = []
    }

    private let context: SandboxContext
    private let state = Mutex(State())

    init(context: SandboxContext) { self.context = context }

    /// Answers a request under `/externalPurchase/v1` (`path` without it).
    func handle(_ request: SandboxRequest, path: String) -> SandboxResponse {
        let route = Route(method: request.method, path: path)
        let check = AppleTokenCheck(settings: context.configuration.apple, signer: context.signer)
        let refusal = check.refusal(authorization: request.headers["Authorization"], now: context.clock.now())
        if let c = route.match("GET", "reports/:id") {
            if refusal != nil { return SandboxResponse(status: 401) }
            let found = state.withLock { $0.accepted.first { $0.report["requestIdentifier"]?.stringValue == c[0] } }
            guard let found else { return Self.error(404, "ReportNotFoundError", "no report \(c[0])") }
            return .json(200, ["report": found.report])
        }
        guard route.match("PUT", "reports") != nil else { return Self.error(404, "NotFound", "not found: \(request.path)") }
        let report = JSONValue.parse(request.body)
        let requestID = report?["requestIdentifier"]?.stringValue
        return state.withLock { state in
            func answer(_ response: SandboxResponse, _ error: String?) -> SandboxResponse {
                state.attempts.append(Attempt(requestID: requestID, status: response.status, error: error))
                return response
            }
            if !state.answerNext.isEmpty {
                let status = state.answerNext.removeFirst()
                return answer(Self.error(status, "InjectedFault", "fault injected by /_sandbox/apple/external-purchase/faults"), "injected \(status)")
            }
            if let refusal { return answer(SandboxResponse(status: 401), "unauthorized: \(refusal)") }
            guard let report, report.objectValue != nil else {
                return answer(Self.error(400, "MalformedRequestError", "body is not a JSON object"), "malformed")
            }
            let known = AppleReportRules.Known(
                requestIDs: Set(state.accepted.compactMap { $0.report["requestIdentifier"]?.stringValue }), lineItems: state.lineItems,
                lineItemTokens: state.lineItemTokens)
            do throws(AppleReportRules.Refusal) {
                let checked = try AppleReportRules.check(report, known: known)
                for line in checked.lineItems { state.lineItems[line.id] = (line.eventType, line.subscriptionEvent) }
                if !checked.lineItems.isEmpty, let token = report["externalPurchaseId"]?.stringValue { state.lineItemTokens.insert(token) }
                state.accepted.append(Accepted(receivedAt: context.clock.now(), report: report))
                return answer(.json(200, ["requestIdentifier": .string(checked.requestID)]), nil)
            } catch {
                var body: JSONValue = ["errorCode": .string(error.error), "errorMessage": .string(error.message)]
                if let line = error.lineItemID { body = body.setting("lineItemId", .string(line)) }
                return answer(.json(400, body), error.error)
            }
        }
    }

    /// The controls under `/_sandbox/apple/external-purchase` (`path` without it).
    func control(_ request: SandboxRequest, path: String, body: JSONValue) -> HandlerResult? {
        let route = Route(method: request.method, path: path)
        if route.match("GET", "reports") != nil {
            let (accepted, attempts) = state.withLock { ($0.accepted, $0.attempts) }
            let formatter = ISO8601DateFormatter()
            return HandlerResult(
                .json(
                    200,
                    [
                        "reports": .array(accepted.map { ["received_at": .string(formatter.string(from: $0.receivedAt)), "report": $0.report] }),
                        "attempts": .array(
                            attempts.map { ["request_identifier": JSONValue($0.requestID), "status": .int($0.status), "error": JSONValue($0.error)] }),
                    ]))
        }
        if route.match("DELETE", "reports") != nil {
            state.withLock { $0 = State() }
            return HandlerResult(.json(200, ["reset": true]))
        }
        if route.match("POST", "faults") != nil {
            let statuses = (body["answer_next"]?.arrayValue ?? []).compactMap(\.intValue)
            guard statuses.allSatisfy({ [401, 429].contains($0) || (500...599).contains($0) }) else {
                return HandlerResult(.json(422, ["error": "answer_next takes 401, 429 and 5xx statuses"]))
            }
            state.withLock { $0.answerNext = statuses }
            return HandlerResult(.json(200, ["answer_next": .array(statuses.map(JSONValue.int))]))
        }
        return nil
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> SandboxResponse {
        .json(status, ["errorCode": .string(code), "errorMessage": .string(message)])
    }
}
