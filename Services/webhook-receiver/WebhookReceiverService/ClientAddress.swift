import Foundation
import HTTPServer

/// The address a webhook request comes from, for the Paystack allow-list.
public enum ClientAddress {
    /// Longest address text accepted from a header (an IPv6 address with zone fits).
    static let maximumLength = 64

    /// The client address of `request`.
    ///
    /// Without `trustForwardedFor` this is always the TCP peer. With it, the
    /// last entry of `X-Forwarded-For` (all header lines read as one list):
    /// the gateway appends the address it saw, so the last hop is the only
    /// entry not written by the client. Without the header it is the peer.
    /// - Returns: nil when unknown (no peer address and no usable header).
    public static func resolve(_ request: HTTPRequest, trustForwardedFor: Bool) -> String? {
        if trustForwardedFor, let forwarded = lastForwardedHop(request.headers.values(for: "X-Forwarded-For")) {
            return forwarded
        }
        return request.remoteAddress.isEmpty ? nil : request.remoteAddress
    }

    /// The last non-empty hop of the given `X-Forwarded-For` values, or nil.
    static func lastForwardedHop(_ values: [String]) -> String? {
        guard let last = values.last(where: { !$0.allSatisfy { $0 == " " || $0 == "," } }) else { return nil }
        guard let hop = last.split(separator: ",").last(where: { !$0.allSatisfy { $0 == " " } }) else { return nil }
        let trimmed = hop.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= maximumLength else { return nil }
        return trimmed
    }
}
