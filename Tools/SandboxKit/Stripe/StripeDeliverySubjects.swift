extension DeliverySubjects {
    /// Stripe events name the subscription (`stripe:sub_…`) and the Checkout
    /// Session that began the purchase (`stripe:cs_…`), found from the event's
    /// object: a subscription, an invoice (its subscription), a session, or a
    /// charge or dispute (its payment, the payment's invoice and subscription).
    static func stripe(_ object: JSONValue, state: StripeState) -> DeliverySubjects {
        var subscription: String?
        var payment: String?
        var session: String?
        switch object["object"]?.stringValue {
        case "subscription": subscription = object["id"]?.stringValue
        case "invoice": subscription = object["parent"]?["subscription_details"]?["subscription"]?.stringValue
        case "checkout.session":
            session = object["id"]?.stringValue
            subscription = object["subscription"]?.stringValue
            payment = object["payment_intent"]?.stringValue
        case "charge", "dispute": payment = object["payment_intent"]?.stringValue
        default: break
        }
        if subscription == nil, let payment, let invoice = state.payments[payment]?.invoiceID {
            subscription = state.invoices[invoice]?.subscriptionID
        }
        var subjects = DeliverySubjects()
        if let subscription { subjects.subscriptions.insert("stripe:\(subscription)") }
        if let session { subjects.checkouts.insert("stripe:\(session)") }
        for s in state.sessions.values
        where (subscription != nil && s.subscriptionID == subscription) || (payment != nil && s.paymentIntentID == payment) {
            subjects.checkouts.insert("stripe:\(s.id)")
        }
        return subjects
    }
}
