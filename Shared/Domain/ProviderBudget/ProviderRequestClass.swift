/// Who is asking the provider, and so how much of the shared per-minute
/// budget the request may reach into.
///
/// Every class counts against the same ledger window; they differ only in the
/// ceiling they are refused at (``ProviderBudgetShares/ceiling(for:)``), so when
/// the window fills up the sweep is refused first, the reconciler's targeted
/// fetches next, and the checkout's interactive calls last.
public enum ProviderRequestClass: String, Sendable, CaseIterable {
    /// The checkout's calls for an app user waiting on the answer: may use the whole limit.
    case interactive
    /// The reconciler fetching what a webhook or command touched: the limit minus the checkout's reserve.
    case targeted
    /// The reconciler's scheduled list sweeps: a lower ceiling, so they yield first.
    case sweep
}
