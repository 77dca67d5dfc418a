import CryptoPrimitives
import Foundation
import HTTPClient

/// Sends reports to the External Purchase Server API and says what became
/// of each: accepted, to be retried, or refused for good (a dead letter,
/// with Apple's reason).
///
/// Apple's answers (Send External Purchase Report): 200 received; 400 the
/// report was malformed, a duplicate, or a line item failed its checks;
/// 401 the token was refused; 429 the rate limit; 500 try later. A 400 may be
/// the duplicate of a report Apple already has (the answer to an earlier
/// send was lost), so before calling a 400 a refusal the client asks for the
/// report by its request identifier (Retrieve External Purchase Report):
/// found means accepted. A 401 is retried, never dead-lettered: a refused
/// key is an operator's fix, and the lines wait for it.
public struct AppStoreReportClient: Sendable {
    /// Apple's production and sandbox hosts; the sandbox takes only tokens whose id starts `SANDBOX`.
    public static let productionURL = "https://api.storekit.apple.com"
    public static let sandboxURL = "https://api.storekit-sandbox.apple.com"

    public enum Outcome: Sendable, Equatable {
        case accepted
        case retry(reason: String, after: Duration?)
        case refused(reason: String)
    }

    public typealias Send = @Sendable (HTTPClientRequest) async throws -> HTTPClientResponse

    let key: AppStoreConnectKey
    /// Replaces both of Apple's hosts (the provider sandbox in tests and `make run`).
    let baseURLOverride: String?
    let send: Send
    let now: @Sendable () -> Date

    public init(key: AppStoreConnectKey, baseURLOverride: String? = nil, now: @escaping @Sendable () -> Date = { Date() }, send: @escaping Send) {
        self.key = key
        self.baseURLOverride = baseURLOverride.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.send = send
        self.now = now
    }

    /// The host a report on `externalPurchaseID` goes to.
    public func baseURL(for externalPurchaseID: String) -> String {
        baseURLOverride ?? (externalPurchaseID.hasPrefix("SANDBOX") ? Self.sandboxURL : Self.productionURL)
    }

    /// Sends `report` once (the caller's store schedules retries).
    public func deliver(_ report: ExternalPurchaseReport) async -> Outcome {
        let base = baseURL(for: report.externalPurchaseId)
        let body: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            body = Array(try encoder.encode(report))
        } catch {
            return .refused(reason: "the report does not encode as JSON")
        }
        guard let response = await exchange(.put, base + "/externalPurchase/v1/reports", body: body) else {
            return .retry(reason: "Apple could not be reached", after: nil)
        }
        switch response.status {
        case 200..<300:
            return .accepted
        case 400:
            let lookup = await exchange(.get, base + "/externalPurchase/v1/reports/\(report.requestIdentifier)", body: [])
            if lookup?.status == 200 { return .accepted }
            return .refused(reason: Self.reason(response))
        case 401:
            return .retry(reason: "Apple refused the App Store Connect token (401)", after: nil)
        case 429:
            let seconds = response.headers["Retry-After"].flatMap { Int($0) }
            return .retry(reason: "Apple's rate limit (429)", after: seconds.map { .seconds($0) })
        default:
            return .retry(reason: "Apple answered \(response.status)", after: nil)
        }
    }

    /// One request with a fresh token; nil when it could not be signed or sent.
    private func exchange(_ method: HTTPMethod, _ url: String, body: [UInt8]) async -> HTTPClientResponse? {
        guard let token = try? key.token(now: now()) else { return nil }
        var headers: HTTPHeaders = ["Authorization": "Bearer \(token)"]
        if !body.isEmpty { headers.add(name: "Content-Type", value: "application/json") }
        return try? await send(HTTPClientRequest(method: method, url: url, headers: headers, body: body, retryPolicy: RetryPolicy.none))
    }

    /// Apple's error code and message from a refusal's body, bounded.
    static func reason(_ response: HTTPClientResponse) -> String {
        let text = String(decoding: response.body.prefix(1024), as: UTF8.self)
        return "Apple answered \(response.status): \(text.isEmpty ? "no body" : text)"
    }
}
