import Foundation
import ProjectionStore

/// The revenue log the gauges keep between computations
/// (``ProjectionStore/RevenueLogFollower``), brought up to date by one
/// computation at a time.
actor FollowedRevenueLog {
    private var follower = RevenueLogFollower()

    /// Reads what was logged since the last call, then the log up to `asOf`
    /// as a full read would return it. A moment earlier than one already
    /// answered for (a clock set back) starts over with a full read.
    /// - Throws: the source's error; the kept log is then unchanged.
    func log(before asOf: Date, reading source: any RevenueLogChangeSource) async throws -> RevenueLog {
        if !follower.canAnswer(before: asOf) { follower = RevenueLogFollower() }
        // Another call may have moved the watermark while this one read
        // (actor reentrancy): its rows do not fit, so read again from there.
        while !follower.apply(try await source.changes(since: follower.watermark)) {}
        return follower.log(before: asOf)
    }
}
