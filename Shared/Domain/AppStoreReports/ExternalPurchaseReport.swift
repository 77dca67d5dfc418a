/// The body of Apple's Send External Purchase Report
/// (`PUT /externalPurchase/v1/reports`): one token, its status and, for
/// `LINE_ITEM`, the transactions. Field names are Apple's
/// (ExternalPurchaseReport, OneTimeBuyLineItem, SubscriptionBuyLineItem,
/// RefundLineItem); nil fields are left out of the JSON.
public struct ExternalPurchaseReport: Sendable, Codable, Equatable {
    /// Apple's `status` values.
    public enum Status: String, Sendable, Codable {
        case lineItem = "LINE_ITEM"
        case noLineItem = "NO_LINE_ITEM"
        case unrecognizedToken = "UNRECOGNIZED_TOKEN"
    }

    /// A UUID per report; the same one again only to resend the same report.
    public var requestIdentifier: String
    public var externalPurchaseId: String
    public var tokenType: String?
    public var status: Status
    public var lineItems: [LineItem]?

    public init(requestIdentifier: String, externalPurchaseId: String, tokenType: String?, status: Status, lineItems: [LineItem]?) {
        self.requestIdentifier = requestIdentifier
        self.externalPurchaseId = externalPurchaseId
        self.tokenType = tokenType
        self.status = status
        self.lineItems = lineItems
    }

    /// One transaction. Amounts are milli-units of `reportingCurrency`; dates UNIX milliseconds.
    public struct LineItem: Sendable, Codable, Equatable {
        public var lineItemId: String
        public var referenceLineItemId: String?
        public var creationDate: Int64
        /// `BUY` or `REFUND`.
        public var eventType: String
        /// `ONE_TIME_BUY` or `SUBSCRIPTION`; nil for refunds.
        public var productType: String?
        public var productIdentifier: String?
        public var quantity: Int?
        public var pricingCurrency: String
        public var reportingCurrency: String
        public var amountTaxExclusive: Int64
        public var amountTaxInclusive: Int64
        public var netAmountTaxExclusive: Int64
        public var taxAmount: Int64
        public var taxCountry: String
        /// `SUBSCRIPTION_START` or `RENEWAL`, subscriptions only.
        public var subscriptionEvent: String?
        public var subscriptionStartDate: Int64?
        public var subscriptionEndDate: Int64?
        public var subscriptionDaysOfPaidService: Int?
    }
}
