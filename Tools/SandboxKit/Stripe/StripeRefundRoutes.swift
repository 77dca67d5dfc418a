import Foundation

/// `POST /v1/refunds` as Stripe documents it: `payment_intent` or `charge`
/// (one of them), an optional `amount` (minor units; absent: all that is
/// left), answered with the refund object; `charge.refunded` follows
/// (``StripeLifecycle/refund(paymentIntentID:amount:state:)``). Refusals
/// carry Stripe's codes: `charge_already_refunded`, `amount_too_large`.
/// The `Idempotency-Key` replay is ``StripeAPI``'s, as for every POST.
extension StripeAPI {
    func createRefund(_ params: JSONValue) -> HandlerResult {
        let intent = params["payment_intent"]?.stringValue, charge = params["charge"]?.stringValue
        guard (intent == nil) != (charge == nil), let target = intent ?? charge else {
            return HandlerResult(
                intent == nil
                    ? StripeErrors.missingParameter("payment_intent")
                    : StripeErrors.invalid("You cannot pass both charge and payment_intent.", param: "charge"))
        }
        var amount: Int?
        if let text = params["amount"]?.stringValue {
            guard let value = Int(text), value > 0 else {
                return HandlerResult(StripeErrors.invalid("Invalid positive integer", param: "amount"))
            }
            amount = value
        }
        let lifecycle = lifecycle
        let resources = resources
        do throws(SandboxError) {
            let (answer, events) = try store.withState { (state) throws(SandboxError) -> (SandboxResponse, [OutgoingWebhook]) in
                let found = intent.flatMap { state.stripe.payments[$0] } ?? charge.flatMap { state.stripe.payment(charge: $0) }
                guard let p = found else {
                    return (
                        StripeErrors.missing(intent == nil ? "charge" : "payment_intent", target, param: intent == nil ? "charge" : "payment_intent"),
                        []
                    )
                }
                let left = p.amount - p.amountRefunded
                if p.status == "succeeded", left <= 0 {
                    return (
                        StripeErrors.response(
                            400, type: "invalid_request_error", code: "charge_already_refunded",
                            message: "Charge \(p.chargeID) has already been refunded."), []
                    )
                }
                if let amount, amount > left {
                    return (
                        StripeErrors.response(
                            400, type: "invalid_request_error", code: "amount_too_large",
                            message: "Refund amount (\(amount)) is greater than unrefunded amount on charge (\(left)).", param: "amount"), []
                    )
                }
                let events = try lifecycle.refund(paymentIntentID: p.paymentIntentID, amount: amount, state: &state.stripe)
                let refunded = state.stripe.payments[p.paymentIntentID]!
                return (.json(200, resources.refund(refunded.refunds.last!, of: refunded)), events)
            }
            return HandlerResult(answer, events: events)
        } catch {
            return HandlerResult(StripeErrors.from(error))
        }
    }
}
