import Foundation

/// `POST /transaction/initialize`, `GET /transaction/verify/{reference}` and `GET /transaction`.
extension PaystackAPI {
    func initialize(_ request: SandboxRequest) -> SandboxResponse {
        guard let body = jsonBody(request) else { return PaystackErrors.response(400, "Invalid JSON body") }
        guard let email = body["email"]?.stringValue?.trimmingCharacters(in: .whitespaces), email.contains("@"), email.count <= 254 else {
            return PaystackErrors.response(400, "Invalid Email Address Passed")
        }
        var plan: PaystackCatalog.Plan?
        if let code = body["plan"]?.stringValue, !code.isEmpty {
            guard let found = resources.catalog.plan(idOrCode: code) else { return PaystackErrors.response(400, "Plan not found") }
            plan = found
        }
        // The plan overrides amount, as documented.
        let amount: Int
        if let plan {
            amount = plan.amount
        } else {
            guard let given = body["amount"]?.intValue, given > 0 else { return PaystackErrors.response(400, "Invalid Amount Sent") }
            amount = given
        }
        var reference = body["reference"]?.stringValue
        if let given = reference {
            let allowed = given.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-.=".unicodeScalars.contains($0)
            }
            guard !given.isEmpty, given.count <= 100, allowed else {
                return PaystackErrors.response(400, "Invalid transaction reference: only -, ., = and alphanumeric characters are allowed")
            }
        }
        // Metadata may arrive as an object or as a JSON string; both come back as an object in webhooks.
        var metadata: JSONValue = ""
        if let given = body["metadata"], !given.isNull {
            if let text = given.stringValue, let parsed = JSONValue.parse(text), parsed.objectValue != nil {
                metadata = parsed
            } else {
                metadata = given
            }
        }
        let callback = body["callback_url"]?.stringValue
        let currency = body["currency"]?.stringValue ?? plan?.currency ?? "NGN"
        let now = context.clock.now()
        let created: PSTransaction? = try? store.withState { (state) throws(SandboxError) -> PSTransaction? in
            if let given = reference, state.psTransactions[given] != nil { return nil }
            let n = state.next(.psTransaction)
            let ref = reference ?? "sbxref-\(n)"
            let access = Formatting.code("", state.next(.psAccessCode))
            let t = PSTransaction(
                id: n, reference: ref, accessCode: access, amount: amount, currency: currency, email: email, planID: plan?.id,
                callbackURL: callback, metadata: metadata, status: "abandoned", createdAt: now, paidAt: nil, customerID: nil, subscriptionID: nil)
            state.psTransactions[ref] = t
            state.psAccessCodes[access] = ref
            return t
        }
        guard let t = created else { return PaystackErrors.duplicateReference() }
        reference = t.reference
        return resources.ok(
            "Authorization URL created",
            data: [
                "authorization_url": .string("\(context.publicBase)/checkout/paystack/\(t.accessCode)"),
                "access_code": .string(t.accessCode),
                "reference": .string(t.reference),
            ])
    }

    func verify(_ reference: String) -> SandboxResponse {
        let data: JSONValue? = store.read { state in state.psTransactions[reference].map { resources.transaction($0, state: state) } }
        guard let data else {
            return PaystackErrors.response(
                400, "Transaction reference not found",
                nextStep: "Ensure that you're passing the reference of a transaction that exists on this integration", type: "validation_error",
                code: "transaction_not_found")
        }
        return resources.ok("Verification successful", data: data)
    }

    /// `GET /transaction`: newest first, `perPage` (default 50) and `page`; filters
    /// `status`, `customer` (numeric id), `from`/`to` (creation time, ISO 8601),
    /// `amount`. `meta` adds `total_volume` (the sum of successful amounts on the
    /// whole list) to the usual `{total, skipped, perPage, page, pageCount}`.
    func listTransactions(_ request: SandboxRequest) -> SandboxResponse {
        let from = request.queryValue("from").flatMap(Formatting.parseISO)
        let to = request.queryValue("to").flatMap(Formatting.parseISO)
        let (items, window, volume): ([JSONValue], PageWindow, Int) = store.read { state in
            var transactions = state.psTransactions.values.sorted { $0.id > $1.id }
            if let status = request.queryValue("status") { transactions = transactions.filter { $0.status == status } }
            if let customer = request.queryValue("customer") { transactions = transactions.filter { $0.customerID.map(String.init) == customer } }
            if let amount = request.queryValue("amount").flatMap({ Int($0) }) { transactions = transactions.filter { $0.amount == amount } }
            if let from { transactions = transactions.filter { $0.createdAt >= from } }
            if let to { transactions = transactions.filter { $0.createdAt <= to } }
            let page = self.window(request, total: transactions.count)
            let volume = transactions.filter { $0.status == "success" }.reduce(0) { $0 + $1.amount }
            return (page.slice(transactions).map { resources.transaction($0, state: state) }, page, volume)
        }
        let meta = resources.listMeta(window).setting("total_volume", .int(volume))
        return resources.ok("Transactions retrieved", data: .array(items), meta: meta)
    }
}
