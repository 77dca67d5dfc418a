/// Path matching for the small routers: `"subscriptions/:id"` against
/// `["subscriptions", "7"]` gives `["7"]`.
struct Route {
    let method: String
    let parts: [String]

    init(method: String, path: String) {
        self.method = method
        self.parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// The captured `:name` segments in order, or nil when the route does not match.
    func match(_ method: String, _ pattern: String) -> [String]? {
        guard method == self.method else { return nil }
        let expected = pattern.split(separator: "/").map(String.init)
        guard expected.count == parts.count else { return nil }
        var captures: [String] = []
        for (want, got) in zip(expected, parts) {
            if want.hasPrefix(":") { captures.append(got) } else if want != got { return nil }
        }
        return captures
    }

    /// Same segments, any method (to tell 405 from 404).
    func matchesPath(_ pattern: String) -> Bool {
        let expected = pattern.split(separator: "/").map(String.init)
        guard expected.count == parts.count else { return false }
        return zip(expected, parts).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
    }
}
