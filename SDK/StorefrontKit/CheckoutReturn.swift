import Foundation

/// Tells when the app came back from the browser a checkout was opened in,
/// from the scene's phases: the app went to the background (or inactive)
/// after the page opened, and is active again. ``StorefrontBuyButton`` then
/// reports the checkout closed (``StorefrontClient/checkoutClosed(checkoutID:)``),
/// so its button is not left disabled while the buyer is back without paying.
struct BrowserReturnDetector: Hashable, Sendable {
    /// A checkout page is open and its outcome awaited.
    private(set) var isWaiting = false
    /// The app left the foreground since the page opened.
    private(set) var leftApp = false

    /// The checkout page was just opened.
    mutating func checkoutOpened() {
        isWaiting = true
        leftApp = false
    }

    /// The scene's phase changed. Returns true once when the buyer came back
    /// to the app while the page was open (report it closed).
    mutating func phaseChanged(isActive: Bool) -> Bool {
        guard isWaiting else { return false }
        if !isActive {
            leftApp = true
            return false
        }
        guard leftApp else { return false }
        leftApp = false
        return true
    }

    /// The outcome arrived.
    mutating func finished() {
        isWaiting = false
        leftApp = false
    }
}

extension PurchaseOutcome {
    /// The older outcome for a ``CheckoutOutcome``: ``CheckoutOutcome/pending``
    /// is ``timedOut``, ``CheckoutOutcome/cancelled`` is ``expired`` (it had
    /// no case for a closed page).
    init(_ outcome: CheckoutOutcome) {
        switch outcome {
        case .purchased(let granted): self = .purchased(granted)
        case .pending: self = .timedOut
        case .cancelled: self = .expired
        }
    }
}
