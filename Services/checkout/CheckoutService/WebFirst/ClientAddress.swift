import Foundation
import HTTPServer

/// The address anonymous callers are counted by (quotas of anonymous
/// checkouts, anonymous users, redemption guesses): the TCP peer, or behind
/// the gateway (``WebFirstConfiguration/trustForwardedFor``) the one address
/// it writes into `X-Forwarded-For`. An IPv6 address counts by its /64, the
/// block one subscriber usually holds, so rotating addresses inside it
/// gains nothing.
enum ClientAddress {
    /// The quota key of the request's caller: `addr:<IPv4>` or `addr:<first four IPv6 groups>::/64`.
    static func key(_ request: HTTPRequest, trustForwardedFor: Bool) -> String {
        var address = request.remoteAddress
        if trustForwardedFor, let forwarded = request.headers["X-Forwarded-For"],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty, last.utf8.count <= 64
        {
            address = last
        }
        return "addr:" + prefix(of: address)
    }

    /// IPv4 as it is; IPv6 cut to its /64 (expanding `::` first).
    static func prefix(of address: String) -> String {
        guard address.contains(":") else { return address }
        let bare = address.split(separator: "%").first.map(String.init) ?? address
        let halves = bare.components(separatedBy: "::")
        let head = halves[0].split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        let tail = halves.count > 1 ? halves[1].split(separator: ":", omittingEmptySubsequences: true).map(String.init) : []
        let groups = head + Array(repeating: "0", count: max(0, 8 - head.count - tail.count)) + tail
        return groups.prefix(4).map {
            String($0.lowercased().drop(while: { $0 == "0" })).isEmpty ? "0" : String($0.lowercased().drop(while: { $0 == "0" }))
        }
        .joined(separator: ":") + "::/64"
    }
}
