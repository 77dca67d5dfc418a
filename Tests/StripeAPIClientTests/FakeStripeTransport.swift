import BillingModel
import JSONCodec
import Providers
import Providers
import ProviderConfiguration
import Synchronization

/// Answers each ``StripeRequest`` from a closure, with no server, and keeps
/// every request it was given, in order.
final class FakeStripeTransport: StripeTransport {
    typealias Answer = @Sendable (StripeRequest) throws(ProviderError) -> String

    private let answer: Answer
    private let log = Mutex<[StripeRequest]>([])

    init(_ answer: @escaping Answer) { self.answer = answer }

    var requests: [StripeRequest] { log.withLock { $0 } }

    func send(_ request: StripeRequest) async throws(ProviderError) -> ProviderDocument {
        log.withLock { $0.append(request) }
        let body = Array(try answer(request).utf8)
        guard let json = try? JSONValue.parse(body) else {
            throw ProviderError(provider: request.provider, operation: request.operation, kind: .decoding, message: "fake answer is not JSON")
        }
        return ProviderDocument(body: body, json: json)
    }

    /// A Stripe list page.
    static func list(_ items: [String], hasMore: Bool = false, url: String = "/v1/x") -> String {
        #"{"object":"list","data":[\#(items.joined(separator: ","))],"has_more":\#(hasMore),"url":"\#(url)"}"#
    }

    /// Stripe's 404 for an id it does not have.
    static func missing(_ request: StripeRequest) -> ProviderError {
        ProviderError(
            provider: request.provider, operation: request.operation, kind: .notFound, status: 404, message: "No such object",
            code: "resource_missing")
    }
}

extension StripeRequest {
    /// The provider value the tests give the client.
    var provider: Provider { StripeClientTests.provider }
}
