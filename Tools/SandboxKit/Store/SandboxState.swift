import Foundation
import Synchronization

/// Every record the sandbox holds. Mutated only inside ``SandboxStore/withState(_:)``.
struct SandboxState: Sendable {
    enum Counter: String, Sendable {
        case lsCheckout, lsOrder, lsOrderItem, lsSubscription, lsSubscriptionItem, lsInvoice, lsCustomer, lsWebhook
        case psTransaction, psCustomer, psSubscription, psInvoice, psAccessCode, psRefund, psDispute
    }

    private var counters: [Counter: Int] = [:]

    var lsCheckouts: [String: LSCheckout] = [:]
    var lsOrders: [Int: LSOrder] = [:]
    var lsSubscriptions: [Int: LSSubscription] = [:]
    var lsInvoices: [Int: LSInvoice] = [:]
    /// Lemon Squeezy customer id by lowercased email.
    var lsCustomers: [String: Int] = [:]

    var psTransactions: [String: PSTransaction] = [:]
    /// Transaction reference by access code (the hosted page's id).
    var psAccessCodes: [String: String] = [:]
    /// Add customers with ``addPSCustomer(_:)``, which keeps the email index.
    private(set) var psCustomers: [Int: PSCustomer] = [:]
    /// Paystack keys customers by email; the index keeps lookups constant-time (seeding thousands).
    private var psCustomerIDs: [String: Int] = [:]
    var psSubscriptions: [Int: PSSubscription] = [:]
    var psInvoices: [Int: PSInvoice] = [:]
    /// Chargebacks by id (open and resolved).
    var psDisputes: [Int: PSDispute] = [:]

    /// Everything the emulated Stripe holds (its own ids and counters).
    var stripe = StripeState()

    /// The next id of a kind: 1, 2, 3… (monotonic, never reused).
    mutating func next(_ counter: Counter) -> Int {
        let value = (counters[counter] ?? 0) + 1
        counters[counter] = value
        return value
    }

    mutating func addPSCustomer(_ customer: PSCustomer) {
        psCustomers[customer.id] = customer
        if psCustomerIDs[customer.email.lowercased()] == nil { psCustomerIDs[customer.email.lowercased()] = customer.id }
    }

    func psCustomer(email: String) -> PSCustomer? {
        psCustomerIDs[email.lowercased()].flatMap { psCustomers[$0] }
    }
}

/// The shared, lock-guarded state plus the immutable catalog.
final class SandboxStore: Sendable {
    let catalog: SandboxCatalog
    private let state = Mutex(SandboxState())

    init(catalog: SandboxCatalog) { self.catalog = catalog }

    /// Runs `body` with exclusive access to the state; keep it short and non-blocking.
    func withState<T: Sendable>(_ body: (inout SandboxState) throws(SandboxError) -> T) throws(SandboxError) -> T {
        try state.withLock { (state: inout SandboxState) throws(SandboxError) -> T in try body(&state) }
    }

    func read<T: Sendable>(_ body: (SandboxState) -> T) -> T {
        state.withLock { body($0) }
    }
}

/// A failure of a state change, turned into each provider's error format by its router.
struct SandboxError: Error, Sendable {
    enum Kind: Sendable { case notFound, invalid, unsupported, conflict }
    let kind: Kind
    let message: String
    /// JSON pointer for Lemon Squeezy validation errors.
    var pointer: String? = nil

    static func notFound(_ message: String) -> SandboxError { SandboxError(kind: .notFound, message: message) }
    static func invalid(_ message: String, pointer: String? = nil) -> SandboxError {
        SandboxError(kind: .invalid, message: message, pointer: pointer)
    }
    static func unsupported(_ message: String) -> SandboxError { SandboxError(kind: .unsupported, message: message) }
    static func conflict(_ message: String) -> SandboxError { SandboxError(kind: .conflict, message: message) }
}
