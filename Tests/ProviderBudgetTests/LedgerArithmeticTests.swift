import Foundation
import BillingModel
import Testing
@testable import ProviderBudget

/// The ledger's windows and ceilings, on explicit instants.
@Suite struct LedgerArithmeticTests {
    @Test func theClassesSplitTheLimitAndTheSweepYieldsFirst() {
        let ls = ProviderBudgetShares(requestsPerMinute: 300)
        #expect(ProviderRequestClass.allCases.map(ls.perMinuteCeiling(for:)) == [300, 210, 120])
        #expect(ProviderRequestClass.allCases.map(ls.ceiling(for:)) == [42, 30, 17], "a seventh of each, rounded down")
        let paystackTest = ProviderBudgetShares(requestsPerMinute: 100)
        #expect(ProviderRequestClass.allCases.map(paystackTest.ceiling(for:)) == [14, 10, 5])
        // Tiny limits still let every class through, one per window.
        #expect(ProviderRequestClass.allCases.map(ProviderBudgetShares(requestsPerMinute: 5).ceiling(for:)) == [1, 1, 1])
        // The sweep share never exceeds what the reserve leaves.
        #expect(ProviderBudgetShares(requestsPerMinute: 100, checkoutReservePercent: 80, sweepPercent: 40).sweepPercent == 20)
    }

    /// Whatever the provider's own minute, what the windows allow in any 60
    /// seconds stays within the limit (checked at every 100 ms offset).
    @Test(arguments: [100, 300, 600, 7, 1000])
    func noSixtySecondsHoldMoreThanTheLimit(limit: Int) {
        let perWindow = ProviderBudgetShares(requestsPerMinute: limit).ceiling(for: .interactive)
        guard limit >= LedgerWindow.windowsPerMinute + 1 else { return } // a floor of one per window is the documented exception
        let origin = 1_800_000_000.0
        for tenth in 0..<600 {
            let from = origin + Double(tenth) / 10
            // Every window overlapping [from, from + 60) is filled to its ceiling.
            var windows = Set<Date>()
            var instant = from
            while instant < from + 60 {
                windows.insert(LedgerWindow.start(of: Date(timeIntervalSince1970: instant)))
                instant += 0.5
            }
            #expect(windows.count * perWindow <= limit, "from +\(Double(tenth) / 10) s: \(windows.count) windows of \(perWindow)")
        }
    }

    @Test func windowsAreTenSecondsAlignedToTheEpoch() {
        let t = Date(timeIntervalSince1970: 1_800_000_013.5)
        #expect(LedgerWindow.start(of: t) == Date(timeIntervalSince1970: 1_800_000_010))
        #expect(LedgerWindow.untilNext(after: t) == .milliseconds(6500))
        #expect(LedgerWindow.untilNext(after: Date(timeIntervalSince1970: 1_800_000_010)) == .seconds(10))
    }
}
