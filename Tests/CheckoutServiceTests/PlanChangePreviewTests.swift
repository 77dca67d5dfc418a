@testable import CheckoutService
import BillingModel
import Entitlements
import Foundation
import HTTPServer
import Providers
import Synchronization
import Telemetry
import Testing

/// `GET /api/subscription/change/preview` with no server or database: what
/// the provider is told and how its answer reads, its refusals, and the
/// route's checks before anything is read. The same rules as the change are
/// ``PlanChangeRulesTests``'; the live answers are the end-to-end suite's.
@Suite struct PlanChangePreviewTests {
    /// A provider whose preview answers what the test says; it records what it
    /// was asked, and a change would be recorded too (none must be).
    final class FakeProvider: UnusedProviderCalls {
        let provider = Provider.lemonsqueezy
        let answer: Result<PlanChangePreview, ProviderError>
        let asked = Mutex<[PlanChangePreviewRequest]>([])
        let changes = Mutex(0)

        init(_ answer: Result<PlanChangePreview, ProviderError>) { self.answer = answer }

        var planChangeTimings: Set<PlanChange.Effective> { [.now] }
        func previewPlanChange(_ request: PlanChangePreviewRequest) async throws(ProviderError) -> PlanChangePreview {
            asked.withLock { $0.append(request) }
            return try answer.get()
        }
        func changePlan(subscriptionID: String, _ change: PlanChange) async throws(ProviderError) -> ProviderSubscription {
            changes.withLock { $0 += 1 }
            throw unused
        }
    }

    static let renews = Date(timeIntervalSince1970: 1_780_000_000)
    static let owned: SubscriptionState = {
        var state = PlanChangeRulesTests.subscription("5", variant: "2")
        state.renewsAt = renews
        return state
    }()
    static let plans: [String: CatalogItem] = [
        "ls_2": CatalogItem(provider: .lemonsqueezy, productID: "2", variantID: "2", name: "Monthly", price: 499, currency: "USD"),
        "ls_3": CatalogItem(provider: .lemonsqueezy, productID: "2", variantID: "3", name: "Yearly", price: 4999, currency: "USD"),
    ]

    func ask(_ provider: FakeProvider, _ proration: PlanChange.Proration = .none) async -> Result<[String: Any], HTTPError> {
        do throws(HTTPError) {
            let response = try await PlanChangePreviewer.ask(
                provider, owned: Self.owned, change: PlanChange(variantID: "3", effective: .now, proration: proration),
                plans: { Self.plans[$0.description] }, metrics: CheckoutMetrics(registry: MetricsRegistry()), logger: ServerRouteAuthTests.logger)
            let body = try! HTTPResponse.json(response).body
            return .success(try! JSONSerialization.jsonObject(with: Data(body)) as! [String: Any])
        } catch {
            return .failure(error)
        }
    }

    @Test func theProviderIsToldBothPlansAndTheRenewalAndItsAnswerIsRendered() async throws {
        let provider = FakeProvider(.success(PlanChangePreview(currency: "usd", dueNow: 0, next: .init(amount: 4999, at: Self.renews), exact: false)))
        let answer = try await ask(provider).get()
        let asked = try #require(provider.asked.withLock { $0.first })
        #expect(asked.subscriptionID == "5" && asked.change.variantID == "3" && asked.change.proration == .none)
        #expect(asked.newPlan?.price == 4999 && asked.currentPlan?.price == 499 && asked.periodEnd == Self.renews)
        #expect(
            answer["success"] as? Bool == true && answer["provider"] as? String == "lemonsqueezy" && answer["subscription_code"] as? String == "5")
        #expect(answer["variantId"] as? String == "ls_3" && answer["effective"] as? String == "now" && answer["proration"] as? String == "none")
        #expect(answer["currency"] as? String == "USD" && answer["exact"] as? Bool == false)
        #expect((answer["due_now"] as? [String: Any])?["amount"] as? Int == 0)
        let next = try #require(answer["next"] as? [String: Any])
        #expect(next["amount"] as? Int == 4999 && next["at"] as? String == Timestamp.format(Self.renews))
        #expect(provider.changes.withLock { $0 } == 0, "a preview changes nothing")
    }

    @Test func whatTheProviderCannotSayIsNull() async throws {
        let answer = try await ask(FakeProvider(.success(.unknown)), .prorate).get()
        #expect(answer["due_now"] is NSNull && answer["next"] is NSNull && answer["currency"] is NSNull && answer["exact"] as? Bool == false)
        let dateless = try await ask(
            FakeProvider(.success(PlanChangePreview(currency: "USD", dueNow: nil, next: .init(amount: 4999, at: nil), exact: false)))
        ).get()
        #expect((dateless["next"] as? [String: Any])?["at"] is NSNull)
    }

    @Test func theProvidersRefusalsAreTheChangesOnes() async {
        let pending = ProviderError(
            provider: .stripe, operation: "previewPlanChange", kind: .validation, message: "scheduled", code: "plan_change_pending")
        let refused = ProviderError(provider: .stripe, operation: "previewPlanChange", kind: .validation, message: "no")
        for (error, status, code) in [(pending, 409, "plan_change_pending"), (refused, 409, "provider_refused")] {
            guard case .failure(let http) = await ask(FakeProvider(.failure(error))) else {
                Issue.record("\(code) was answered")
                continue
            }
            #expect(http.status.code == status && http.code == code)
        }
    }

    // MARK: - The route

    static func get(_ setup: ServerRouteAuthTests.Setup, _ query: String, token: String?) async throws -> HTTPResponse {
        try await ServerRouteAuthTests.get(
            setup.app, "/api/subscription/change/preview" + query, token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    @Test func theRouteNeedsATokenAndAWellFormedQuery() async throws {
        try await ServerRouteAuthTests.withApp(quotas: UserQuotaPolicy(cancelResumePerMinute: 5)) { setup in
            #expect(try await Self.get(setup, "?variantId=ls_3", token: nil).status == .unauthorized)
            let token = try AuthRouteTests.token(sub: "user-preview", secret: ServerRouteAuthTests.secret)
            let cases: [(String, String?)] = [
                ("", nil), ("?variantId=nope", nil), ("?variantId=ls_3&effective=later", "invalid_effective"),
                ("?variantId=ls_3&proration=some", "invalid_proration"),
            ]
            for (query, code) in cases {
                let response = try await Self.get(setup, query, token: token)
                #expect(response.status == .badRequest, "\(query): \(response.status)")
                if let code { #expect(ServerRouteAuthTests.code(response) == code, "\(query)") }
            }
            // Well formed, it reads the projection: here the database is unreachable.
            let unreachable = try await Self.get(setup, "?variantId=ls_3&effective=now&proration=none", token: token)
            #expect(unreachable.status == .serviceUnavailable)
            // Counted with the change, cancel and resume (5 a minute here).
            let over = try await Self.get(setup, "?variantId=ls_3", token: token)
            #expect(over.status == .tooManyRequests && over.headers["Retry-After"] != nil)
        }
    }
}
