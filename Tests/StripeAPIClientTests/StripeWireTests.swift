import BillingModel
import Foundation
import HTTPClient
import HTTPServer
import Providers
import ServiceSettings
import Providers
import ProviderConfiguration
import Synchronization
import Telemetry
import Testing

/// What ``StripeHTTPTransport`` puts on the wire, seen by a small recording
/// server on 127.0.0.1: the headers Stripe requires, the form body, and the
/// same `Idempotency-Key` on a POST repeated after a 500.
@Suite("Stripe requests on the wire")
struct StripeWireTests {
    /// Every request it received, and answers: a price, a session (after
    /// failing the first `failingPosts` attempts with 500), Stripe's 400.
    final class RecordingServer: Sendable {
        struct Seen: Sendable {
            let method: HTTPMethod
            let path: String
            let query: [(name: String, value: String)]
            let headers: HTTPHeaders
            let body: String
        }

        /// What the handlers share.
        final class State: Sendable {
            let seen = Mutex<[Seen]>([])
            let failuresLeft: Mutex<Int>
            init(failures: Int) { failuresLeft = Mutex(failures) }
        }

        let server: HTTPServer
        let port: UInt16
        private let state: State

        var seen: [Seen] { state.seen.withLock { $0 } }

        init(failingPosts: Int) throws {
            let state = State(failures: failingPosts)
            let record: @Sendable (HTTPRequest) -> Void = { request in
                state.seen.withLock {
                    $0.append(
                        Seen(
                            method: request.method, path: request.path, query: request.query.pairs, headers: request.headers,
                            body: String(decoding: request.body, as: UTF8.self)))
                }
            }
            @Sendable func json(_ status: Int, _ text: String) -> HTTPResponse {
                HTTPResponse(status: HTTPStatus(code: status), headers: ["Content-Type": "application/json"], body: Array(text.utf8))
            }
            let router = Router()
            _ = router.get("/v1/prices/price_M") { request, _ in
                record(request)
                return json(200, #"{"id":"price_M","object":"price","active":true,"product":"prod_P","type":"recurring","unit_amount":499}"#)
            }
            _ = router.post("/v1/checkout/sessions") { request, _ in
                record(request)
                let fail = state.failuresLeft.withLock { left -> Bool in
                    defer { left = max(0, left - 1) }
                    return left > 0
                }
                if fail { return json(500, #"{"error":{"type":"api_error","message":"Something went wrong on Stripe's end."}}"#) }
                return json(200, #"{"id":"cs_test_w","object":"checkout.session","url":"https://checkout.stripe.test/w","livemode":false}"#)
            }
            _ = router.post("/v1/subscriptions/sub_gone") { request, _ in
                record(request)
                return json(
                    400,
                    #"{"error":{"type":"invalid_request_error","code":"resource_missing","param":"id","message":"A canceled subscription can only update its cancellation_details and metadata."}}"#
                )
            }
            var configuration = HTTPServerConfiguration()
            configuration.bindAddress = "127.0.0.1"
            configuration.port = 0
            server = HTTPServer(
                responder: router.buildResponder(), configuration: configuration, logger: Logger(service: "stripe-wire", minimumLevel: .critical))
            port = try server.start()
            self.state = state
        }
    }

    static let key = "sk_test_wire_5e2a"

    /// Starts a server, runs `body`, and shuts it down whatever happens.
    func withServer(failingPosts: Int = 0, _ body: (RecordingServer) async throws -> Void) async throws {
        let server = try RecordingServer(failingPosts: failingPosts)
        do {
            try await body(server)
            await server.server.shutdown()
        } catch {
            await server.server.shutdown()
            throw error
        }
    }

    func client(_ server: RecordingServer) -> StripeClient {
        StripeClient(
            provider: StripeClientTests.provider,
            configuration: StripeConfiguration(
                secretKey: Secret(Self.key), apiBaseURL: "http://127.0.0.1:\(server.port)", successURL: "https://app.example/done"),
            httpClient: HTTPClient(), retryPolicy: StripeSandbox.quickRetry)
    }

    @Test func aCheckoutRepeatedAfterA500CarriesTheSameKeyAndBody() async throws {
        try await withServer(failingPosts: 1) { server in
            let checkout = try await client(server).createCheckout(
                CheckoutRequest(
                    variantID: "price_M", email: EmailAddress("ada@example.com"), appUserID: "user-w", checkoutID: "chk-w", ownershipProof: "proof-w")
            )
            #expect(checkout.providerCheckoutID == "cs_test_w")

            let seen = server.seen
            #expect(seen.map(\.method) == [.get, .post, .post])
            for request in seen {
                #expect(request.headers["Authorization"] == "Bearer \(Self.key)")
                #expect(request.headers["Stripe-Version"] == StripeConfiguration.defaultAPIVersion)
                #expect(request.headers["Accept"] == "application/json")
            }
            let (first, second) = (seen[1], seen[2])
            #expect(seen[0].headers["Idempotency-Key"] == nil && seen[0].body.isEmpty)
            #expect(first.headers["Idempotency-Key"] == "storefront-checkout-chk-w")
            #expect(second.headers["Idempotency-Key"] == first.headers["Idempotency-Key"])
            #expect(second.body == first.body)
            #expect(first.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(first.body.contains("line_items%5B0%5D%5Bprice%5D=price_M"))
            #expect(first.body.contains("subscription_data%5Bmetadata%5D%5Bstorefront_user_id%5D=user-w"))
            #expect(first.body.contains("customer_email=ada%40example.com"))
        }
    }

    @Test func stripesErrorBodyNamesTheMessageParameterAndCode() async throws {
        try await withServer { server in
            do throws(ProviderError) {
                _ = try await client(server).resumeSubscription(id: "sub_gone")
                Issue.record("a refused update succeeded")
            } catch {
                #expect(error.kind == .validation && error.status == 400 && error.code == "resource_missing")
                #expect(error.message.hasPrefix("A canceled subscription") && error.message.hasSuffix("(id)"))
                #expect(error.operation == "resumeSubscription" && error.provider == StripeClientTests.provider)
            }
            #expect(server.seen.count == 1, "a 400 is not retried")
            #expect(server.seen.first?.body == "cancel_at_period_end=false")
        }
    }
}
