/// How a verified token's issuer and subject become its app user id
/// (docs/operations.md, "One app user per issuer").
///
/// With one issuer the id is the token's `sub`, as it always was, so a
/// deployment's existing rows keep their owners. With several
/// (`AUTH_JWT_ISSUER` lists more than one), `AUTH_JWT_USER_ID_PREFIXES` gives
/// each issuer a prefix and the id is `<prefix>:<sub>`; at most one issuer
/// keeps an empty prefix (its ids stay the plain `sub`: the issuer whose users
/// the deployment already has). The operator chooses the prefixes, rather
/// than Storefront deriving them from the issuer URL, so that an id never
/// changes when an issuer's URL does not, and never depends on the order of a
/// list.
///
/// Distinct (issuer, subject) pairs never share an id:
/// - prefixes are distinct and hold no `:`, so the text before an id's first
///   `:` names its issuer;
/// - the unprefixed issuer's subjects that begin with `<prefix>:` for any
///   configured prefix are refused, so none of them reads as another
///   issuer's user;
/// - a subject shaped like a Storefront anonymous id (``AnonymousUsers``:
///   `anon_` and 32 hex digits) is refused whoever issued it, prefixes or
///   not: those ids are minted by this server alone.
public struct IssuerUserIDs: Sendable, Equatable {
    /// The prefix of each issuer; empty when none is configured (every id is then the plain `sub`).
    let prefixes: [String: String]

    /// No prefixes: the id is the token's `sub` (one issuer, or none checked).
    public static let plain = IssuerUserIDs(prefixes: [:])

    /// Between a prefix and the subject.
    static let separator = ":"
    /// Longest prefix accepted.
    static let maximumPrefixLength = 32
    /// Longest app user id, prefix included: the bound every route applies (ServerRoutes).
    static let maximumIDBytes = 256

    /// Why a verified token names no app user.
    public enum Refusal: Error, Equatable {
        /// Prefixes are configured and the token's `iss` has none (only
        /// reachable if the claim rules let such an issuer through).
        case unknownIssuer
        /// The subject reads as another issuer's prefixed id or as an anonymous id.
        case reservedSubject
        /// The id would be longer than ``maximumIDBytes``.
        case tooLong
    }

    init(prefixes: [String: String]) {
        self.prefixes = prefixes
    }

    /// The app user id of a verified token.
    /// - Throws: ``Refusal`` when the pair must name no user.
    func appUserID(issuer: String?, subject: String) throws(Refusal) -> String {
        if AnonymousUsers.isAnonymousID(subject) { throw .reservedSubject }
        guard !prefixes.isEmpty else {
            guard subject.utf8.count <= Self.maximumIDBytes else { throw .tooLong }
            return subject
        }
        guard let issuer, let prefix = prefixes[issuer] else { throw .unknownIssuer }
        let id: String
        if prefix.isEmpty {
            let claimed = prefixes.values.contains { !$0.isEmpty && subject.hasPrefix($0 + Self.separator) }
            if claimed { throw .reservedSubject }
            id = subject
        } else {
            id = prefix + Self.separator + subject
        }
        guard id.utf8.count <= Self.maximumIDBytes else { throw .tooLong }
        return id
    }

    /// Whether `prefix` may be configured: empty, or 1 to ``maximumPrefixLength``
    /// lower-case letters, digits and `-`, starting with a letter or digit
    /// (so an id stays readable in a URL path and a log, and holds no `:` of its own).
    static func isValidPrefix(_ prefix: String) -> Bool {
        if prefix.isEmpty { return true }
        let bytes = Array(prefix.utf8)
        func isLetterOrDigit(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        return bytes.count <= maximumPrefixLength && isLetterOrDigit(bytes[0]) && bytes.allSatisfy { isLetterOrDigit($0) || $0 == 0x2D }
    }
}
