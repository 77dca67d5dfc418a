import Foundation

/// Which URLs may receive webhooks: absolute `https://` ones (`http://` too
/// outside live mode), whose host is not, and does not resolve to, a
/// loopback, link-local, private or unspecified address unless the operator
/// allowed it (`--allow-private`): the sender must not become a way into
/// the deployment's own network (SSRF).
public struct EndpointURLPolicy: Sendable, Hashable {
    /// `STOREFRONT_MODE=live`: `https://` only.
    public var liveMode: Bool
    /// `--allow-private`: any address.
    public var allowPrivate: Bool

    public init(liveMode: Bool, allowPrivate: Bool) {
        self.liveMode = liveMode
        self.allowPrivate = allowPrivate
    }

    /// Why a URL is refused, in words an operator can act on.
    public struct Refusal: Error, CustomStringConvertible, Hashable {
        public var description: String
    }

    /// What a check of the URL's target came to.
    public enum Target: Sendable, Hashable {
        /// Every address it resolves to (or its literal address) may be used.
        case allowed(addresses: [String])
        /// The host name does not resolve now: nothing to judge yet (each send checks again).
        case unresolved(reason: String)
    }

    /// The URL's host, when its form is acceptable: absolute, `https` (or
    /// `http` outside live mode), with a host and no user name or password.
    public func host(of url: String) throws(Refusal) -> String {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host, !host.isEmpty else {
            throw Refusal(description: "--url must be an absolute https:// URL, got \(url)")
        }
        if liveMode {
            guard scheme == "https" else { throw Refusal(description: "--url must be https:// in live mode (STOREFRONT_MODE=live)") }
        } else {
            guard ["https", "http"].contains(scheme) else { throw Refusal(description: "--url must be an absolute https:// (or http://) URL") }
        }
        guard parsed.user == nil, parsed.password == nil else {
            throw Refusal(description: "--url must not carry a user name or password")
        }
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Checks where `host` leads: an address literal by its kind, a name by
    /// every address it resolves to (one private address is enough to refuse:
    /// a client may connect to any of them).
    /// - Throws: ``Refusal`` for a target that is not public, unless ``allowPrivate``.
    public func check(host: String, resolver: any HostResolver) async throws(Refusal) -> Target {
        if let kind = TargetAddress.kind(of: host) {
            try refuse(host, kind)
            return .allowed(addresses: [host])
        }
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        // RFC 6761: these names are loopback whatever a resolver says.
        if name == "localhost" || name.hasSuffix(".localhost") { try refuse(host, .loopback) }
        let addresses: [String]
        do {
            addresses = try await resolver.addresses(of: host)
        } catch {
            return .unresolved(reason: String(describing: error))
        }
        for address in addresses {
            try refuse(host, TargetAddress.kind(of: address) ?? .reserved, via: address)
        }
        return .allowed(addresses: addresses)
    }

    private func refuse(_ host: String, _ kind: TargetAddress.Kind, via address: String? = nil) throws(Refusal) {
        guard !kind.isPublic, !allowPrivate else { return }
        let which = address.map { "\(host) resolves to \($0), a \(kind.rawValue) address" } ?? "\(host) is a \(kind.rawValue) address"
        throw Refusal(description: "\(which); webhooks go to public addresses unless the endpoint is added with --allow-private")
    }
}
