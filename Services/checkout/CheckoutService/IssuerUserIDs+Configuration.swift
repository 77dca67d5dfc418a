import Foundation
import ServiceSettings

extension IssuerUserIDs {
    /// Reads `AUTH_JWT_USER_ID_PREFIXES`: comma-separated `ISSUER=PREFIX`
    /// items (the prefix is what follows the last `=`; `ISSUER=` keeps that
    /// issuer's ids plain).
    ///
    /// Problems (the checkout then refuses to start): `AUTH_JWT_ISSUER` lists
    /// several issuers and one of them has no item (its users could otherwise
    /// merge with another issuer's); an item without `=`, for an issuer
    /// `AUTH_JWT_ISSUER` does not list (or with no issuer list at all: any
    /// issuer is accepted then, so no prefix could be enforced), named twice,
    /// or with a malformed prefix; a prefix given to two issuers; more than one
    /// empty prefix.
    /// - Parameter issuers: `AUTH_JWT_ISSUER`'s list (empty: any issuer).
    static func fromEnvironment(_ reader: inout ConfigReader, issuers: [String]) -> IssuerUserIDs {
        let items = reader.list(.authJWTUserIDPrefixes) ?? []
        let variable = Setting.authJWTUserIDPrefixes
        var prefixes: [String: String] = [:]
        for item in items {
            guard let equals = item.lastIndex(of: "=") else {
                reader.report(variable, "each item is ISSUER=PREFIX (or ISSUER= to keep that issuer's ids plain)")
                continue
            }
            let issuer = item[..<equals].trimmingCharacters(in: .whitespaces)
            let prefix = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !issuer.isEmpty, isValidPrefix(prefix) else {
                reader.report(
                    variable,
                    "each item is ISSUER=PREFIX, the prefix 1 to \(maximumPrefixLength) lower-case letters, digits and '-' (or empty)")
                continue
            }
            guard issuers.contains(issuer) else {
                reader.report(variable, "\(issuer) is not in AUTH_JWT_ISSUER; prefixes apply only to the issuers listed there")
                continue
            }
            guard prefixes[issuer] == nil else {
                reader.report(variable, "names \(issuer) twice")
                continue
            }
            prefixes[issuer] = prefix
        }
        let given = prefixes.values.filter { !$0.isEmpty }
        if Set(given).count != given.count {
            reader.report(variable, "gives one prefix to two issuers: their users with the same sub would be one user")
        }
        if prefixes.values.filter(\.isEmpty).count > 1 {
            reader.report(variable, "keeps plain ids for more than one issuer: at most one issuer may have an empty prefix")
        }
        var missing: [String] = []
        for issuer in issuers where prefixes[issuer] == nil && !missing.contains(issuer) { missing.append(issuer) }
        if Set(issuers).count > 1, !missing.isEmpty {
            reader.report(
                variable,
                "AUTH_JWT_ISSUER lists \(Set(issuers).count) issuers, and two issuers' users with the same sub must not be one user: "
                    + "give each issuer an item, ISSUER=PREFIX (app user id PREFIX:sub), and at most one ISSUER= "
                    + "(plain sub ids: the issuer whose users you already have); without one: \(missing.joined(separator: ", "))")
        }
        return IssuerUserIDs(prefixes: prefixes)
    }
}
