import Foundation

extension LemonSqueezyCatalog {
    /// A store discount (Lemon Squeezy's `discounts` resource): a code worth
    /// a percentage or a fixed amount, `published` or `draft`, perhaps
    /// expiring or limited to some variants. The sandbox applies it to the
    /// first payment only (Lemon Squeezy's `duration: once`).
    public struct Discount: Codable, Sendable, Equatable {
        public var id: Int
        public var name: String
        /// What buyers type; matched case-insensitively.
        public var code: String
        /// Percent (`percent`) or cents (`fixed`).
        public var amount: Int
        /// `percent` or `fixed`.
        public var amountType: String
        /// `published` (usable) or `draft`.
        public var status: String
        /// ISO 8601; nil: never expires.
        public var expiresAt: String?
        /// The variants it is limited to; nil: every variant of the store.
        public var variantIDs: [Int]?

        /// The cents it takes off `price` (never more than the price).
        func reduction(of price: Int) -> Int {
            min(price, amountType == "percent" ? price * min(max(amount, 0), 100) / 100 : max(amount, 0))
        }
    }

    /// The usable discount named `code` for `variantID`, or the refusal Lemon
    /// Squeezy's checkout API gives: a 422 pointing at `checkout_data.discount_code`.
    func discount(code: String, variantID: Int, now: Date) throws(SandboxError) -> Discount {
        let pointer = "/data/attributes/checkout_data/discount_code"
        guard let found = (discounts ?? []).first(where: { $0.code.lowercased() == code.lowercased() }), found.status == "published" else {
            throw .invalid("The discount code is invalid.", pointer: pointer)
        }
        if let expires = found.expiresAt.flatMap(Formatting.parseISO), expires <= now {
            throw .invalid("The discount code has expired.", pointer: pointer)
        }
        if let variants = found.variantIDs, !variants.contains(variantID) {
            throw .invalid("The discount code does not apply to this product.", pointer: pointer)
        }
        return found
    }
}
