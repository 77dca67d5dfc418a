import Foundation
import HTTPServer
import Models
import Projection

/// The app-facing endpoints: create-checkout, subscription status, cancel and resume.
struct CheckoutRoutes: Sendable {
    let authenticator: Authenticator
    let creator: CheckoutCreator
    let commander: SubscriptionCommander
    let reader: SubscriptionStatusReader
    let maxBodyBytes: Int
    let now: @Sendable () -> Date

    func mount(on router: some RouteRegistrar) {
        router.post("/api/create-checkout") { request, context in
            // Size, then the token, then the body: an anonymous caller learns nothing about validation.
            try JSONBody.checkSize(request, limit: maxBodyBytes)
            let verified = try authenticator.verifiedUser(request)
            let body = try JSONBody.decode(CreateCheckoutRequest.self, from: request, limit: maxBodyBytes)
            let user = try verified ?? authenticator.authenticate(request, fallbackEmail: body.customerEmail)
            let key = try CheckoutCreator.idempotencyKey(request)
            let outcome = try await creator.create(body, user: user, idempotencyKey: key, logger: context.logger)
            var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
            if outcome.replayed { headers.add(name: "Idempotent-Replayed", value: "true") }
            return HTTPResponse(status: .ok, headers: headers, body: outcome.body)
        }
        router.get("/api/subscription/status") { request, _ in
            let email = request.query["email"]
            let user = try authenticator.authenticate(request, fallbackEmail: email)
            if let email, !email.isEmpty, !user.emailMatches(email) {
                throw HTTPError(.forbidden, "email does not match the signed-in user")
            }
            let status = try await reader.status(for: ProjectionUser(appUserID: user.id, email: user.email), at: now())
            var response = try HTTPResponse.json(status)
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        }
        for action in [SubscriptionCommander.Action.cancel, .resume] {
            router.post("/api/subscription/\(action.rawValue)") { request, context in
                try JSONBody.checkSize(request, limit: maxBodyBytes)
                let user = try authenticator.authenticate(request, fallbackEmail: request.query["email"])
                let body = try JSONBody.decode(CancelSubscriptionRequest.self, from: request, limit: maxBodyBytes)
                return try HTTPResponse.json(try await commander.perform(action, body, user: user, logger: context.logger))
            }
        }
    }
}
