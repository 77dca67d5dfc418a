import Foundation

/// The server API's per-user routes as the CLI's `grant`, `revoke` and
/// `refund` call them: one place that builds `<base>/api/users/<user>/…`.
enum ServerAPIURL {
    /// `<base>/api/users/<user>/<segments…>`, each segment percent-encoded (a
    /// user id may hold any character), trailing `/`s of `base` dropped.
    static func user(_ user: String, _ segments: String..., base: String) -> String {
        var root = Substring(base)
        while root.hasSuffix("/") { root = root.dropLast() }
        return ([String(root), "api", "users", user] + segments).enumerated().map { $0.offset == 0 ? $0.element : encoded($0.element) }
            .joined(separator: "/")
    }

    /// One path segment, RFC 3986 unreserved characters kept.
    static func encoded(_ segment: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}
