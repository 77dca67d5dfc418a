import BillingModel
import Synchronization

/// Where each page of a Stripe list ended. Stripe pages by cursor
/// (`starting_after` the previous page's last id); the reconciler's sweeps
/// ask for pages by number, one after another, so the cursor that page `n`
/// ended at is kept for page `n + 1`. Shared by copies of one client.
final class StripePageCursors: Sendable {
    private let ends = Mutex<[Int: String]>([:])

    /// The cursor page `number` ended at, if it was read.
    func end(ofPage number: Int) -> String? { ends.withLock { $0[number] } }

    func record(_ cursor: String, endingPage number: Int) { ends.withLock { $0[number] = cursor } }
}
