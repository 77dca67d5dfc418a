import Foundation

/// The headers every answer carries, whichever route, status or path made it
/// (handlers, errors, 404s, the server's own 413 and 503s): a browser that
/// is somehow pointed at an API answer neither sniffs it into HTML nor frames it.
///
/// - `X-Content-Type-Options: nosniff`: JSON stays JSON.
/// - `X-Frame-Options: DENY` and, when the answer sets no policy of its own,
///   `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`:
///   an API answer loads nothing and is framed by nobody (the HTML pages set
///   their own policy, which is kept, and already say `frame-ancestors 'none'`).
/// - `Strict-Transport-Security: max-age=31536000` only when the request says
///   it came over TLS (`X-Forwarded-Proto: https`, set by the TLS front; the
///   services never speak TLS themselves). A client that sends that header
///   over plain HTTP gains nothing: browsers ignore the header on an
///   insecure connection (RFC 6797 §8.1). `includeSubDomains` and `preload`
///   pin every host of the domain, a decision for whoever runs the TLS front,
///   which may add them there.
///
/// A header the answer already has is never replaced.
public enum SecurityHeaders {
    /// One year, the value HSTS preload lists ask for.
    public static let strictTransportSecurity = "max-age=31536000"
    public static let contentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'"

    /// Adds the headers `response` lacks; `request` is the headers of the request it answers.
    public static func apply(to response: inout HTTPResponse, request: HTTPHeaders) {
        addIfMissing(&response.headers, "X-Content-Type-Options", "nosniff")
        addIfMissing(&response.headers, "X-Frame-Options", "DENY")
        addIfMissing(&response.headers, "Content-Security-Policy", contentSecurityPolicy)
        if cameOverTLS(request) {
            addIfMissing(&response.headers, "Strict-Transport-Security", strictTransportSecurity)
        }
    }

    /// Whether the TLS front says the request came over TLS: the first value
    /// of `X-Forwarded-Proto` (the client's own hop) is `https`.
    static func cameOverTLS(_ request: HTTPHeaders) -> Bool {
        guard let value = request["X-Forwarded-Proto"] else { return false }
        let first = value.split(separator: ",", maxSplits: 1).first.map(String.init) ?? ""
        return first.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    private static func addIfMissing(_ headers: inout HTTPHeaders, _ name: String, _ value: String) {
        if !headers.contains(name) { headers.add(name: name, value: value) }
    }
}
