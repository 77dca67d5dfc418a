/// Apple's checks on one `ExternalPurchaseReport` (Send External Purchase
/// Report), against what was accepted before. Each refusal names the error
/// object Apple documents for it where there is one
/// (`MissingLineItemsForStatusError`, `LineItemsNotAllowedForStatusError`,
/// `LineItemStatusRegressionError`); the rest are the malformed requests
/// Apple answers with a plain 400.
struct AppleReportRules {
    struct Refusal: Error, Equatable {
        var error: String
        var message: String
        var lineItemID: String?
    }

    static let statuses: Set<String> = ["LINE_ITEM", "NO_LINE_ITEM", "UNRECOGNIZED_TOKEN"]
    static let amountFields = ["amountTaxExclusive", "amountTaxInclusive", "netAmountTaxExclusive", "taxAmount"]

    /// What the ledger knows of earlier accepted reports.
    struct Known {
        var requestIDs: Set<String>
        /// Accepted line items by id: their event type and subscription event, if any.
        var lineItems: [String: (eventType: String, subscriptionEvent: String?)]
        var lineItemTokens: Set<String>
    }

    /// Checks `report`; returns its request id and the ids of its line items.
    static func check(
        _ report: JSONValue, known: Known
    ) throws(Refusal) -> (requestID: String, lineItems: [(id: String, eventType: String, subscriptionEvent: String?)]) {
        guard let requestID = report["requestIdentifier"]?.stringValue, isUUID(requestID) else {
            throw Refusal(error: "InvalidRequestIdentifierError", message: "requestIdentifier must be a UUID")
        }
        guard !known.requestIDs.contains(requestID) else { throw Refusal(error: "DuplicateRequestError", message: "duplicate request \(requestID)") }
        guard let token = report["externalPurchaseId"]?.stringValue, !token.isEmpty else {
            throw Refusal(error: "InvalidExternalPurchaseIdError", message: "externalPurchaseId is required")
        }
        guard let status = report["status"]?.stringValue, statuses.contains(status) else {
            throw Refusal(error: "InvalidStatusError", message: "status must be one of \(statuses.sorted())")
        }
        let items = report["lineItems"]?.arrayValue ?? []
        if status == "LINE_ITEM", items.isEmpty {
            throw Refusal(error: "MissingLineItemsForStatusError", message: "status LINE_ITEM without line items")
        }
        if status != "LINE_ITEM" {
            guard items.isEmpty else { throw Refusal(error: "LineItemsNotAllowedForStatusError", message: "line items with status \(status)") }
            guard !known.lineItemTokens.contains(token) else {
                throw Refusal(error: "LineItemStatusRegressionError", message: "\(token) was reported with line items before")
            }
        }
        var accepted = known.lineItems
        var ids: [(id: String, eventType: String, subscriptionEvent: String?)] = []
        for item in items {
            let line = try checkLine(item, known: accepted)
            accepted[line.id] = (line.eventType, line.subscriptionEvent)
            ids.append(line)
        }
        return (requestID, ids)
    }

    /// One line item's fields (OneTimeBuyLineItem, SubscriptionBuyLineItem, RefundLineItem).
    static func checkLine(
        _ item: JSONValue, known: [String: (eventType: String, subscriptionEvent: String?)]
    ) throws(Refusal) -> (id: String, eventType: String, subscriptionEvent: String?) {
        guard let id = item["lineItemId"]?.stringValue, !id.isEmpty else {
            throw Refusal(error: "InvalidLineItemError", message: "lineItemId is required")
        }
        func refuse(_ message: String) -> Refusal { Refusal(error: "InvalidLineItemError", message: message, lineItemID: id) }
        if known[id] != nil, item["restatement"]?.boolValue != true {
            throw refuse("lineItemId \(id) was reported before and this is no restatement")
        }
        guard (item["creationDate"]?.intValue ?? 0) > 0 else { throw refuse("creationDate (UNIX milliseconds) is required") }
        for field in ["pricingCurrency", "reportingCurrency", "taxCountry"] where !isThreeLetters(item[field]?.stringValue) {
            throw refuse("\(field) must be three upper-case letters")
        }
        for field in amountFields where item[field]?.intValue == nil { throw refuse("\(field) (milli-units) is required") }
        let eventType = item["eventType"]?.stringValue ?? ""
        switch eventType {
        case "REFUND":
            guard let reference = item["referenceLineItemId"]?.stringValue, known[reference]?.eventType == "BUY" else {
                throw refuse("a refund's referenceLineItemId must name a BUY line item reported before")
            }
            return (id, eventType, nil)
        case "BUY":
            guard let product = item["productIdentifier"]?.stringValue, !product.isEmpty else { throw refuse("productIdentifier is required") }
            guard (item["quantity"]?.intValue ?? 0) >= 1 else { throw refuse("quantity must be at least 1") }
            switch item["productType"]?.stringValue {
            case "ONE_TIME_BUY": return (id, eventType, nil)
            case "SUBSCRIPTION": return (id, eventType, try subscriptionEvent(item, known: known, refuse: refuse))
            default: throw refuse("productType must be ONE_TIME_BUY or SUBSCRIPTION")
            }
        default:
            throw refuse("eventType must be BUY or REFUND")
        }
    }

    /// A subscription line's event: a start stands alone, a later event names its start.
    static func subscriptionEvent(
        _ item: JSONValue, known: [String: (eventType: String, subscriptionEvent: String?)], refuse: (String) -> Refusal
    ) throws(Refusal) -> String {
        guard let event = item["subscriptionEvent"]?.stringValue, !event.isEmpty else { throw refuse("subscriptionEvent is required") }
        for field in ["subscriptionStartDate", "subscriptionEndDate", "subscriptionDaysOfPaidService"] where item[field]?.intValue == nil {
            throw refuse("\(field) is required")
        }
        if event != "SUBSCRIPTION_START" {
            guard let reference = item["referenceLineItemId"]?.stringValue, known[reference]?.subscriptionEvent == "SUBSCRIPTION_START" else {
                throw refuse("a \(event)'s referenceLineItemId must name the SUBSCRIPTION_START line item")
            }
        }
        return event
    }

    static func isUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
        return groups == [8, 4, 4, 4, 12] && text.allSatisfy { $0 == "-" || $0.isHexDigit }
    }

    static func isThreeLetters(_ text: String?) -> Bool {
        guard let text else { return false }
        return text.count == 3 && text.allSatisfy { $0.isASCII && $0.isUppercase }
    }
}
