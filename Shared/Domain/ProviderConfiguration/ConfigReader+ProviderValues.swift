import Foundation
import ServiceSettings

// How every provider reads its values: empty counts as unset, URLs are checked
// without echoing them.

extension ConfigReader {
    /// The value trimmed, or nil when unset or blank.
    public mutating func trimmedString(_ setting: Setting) -> String? {
        guard let raw = string(setting)?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
        return raw
    }

    /// The secret (or its `_FILE`) trimmed, or nil when unset or blank.
    public mutating func trimmedSecret(_ setting: Setting) -> Secret? {
        guard let raw = secret(setting)?.reveal().trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
        return Secret(raw)
    }

    /// An absolute http(s) URL without query, fragment or user info, without
    /// a trailing slash; `fallback` when unset or reported.
    public mutating func baseURL(_ setting: Setting, default fallback: String) -> String {
        guard let raw = trimmedString(setting) else { return fallback }
        guard let components = URLComponents(string: raw), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else {
            report(setting, "must be an absolute http(s) URL without query, fragment or credentials")
            return fallback
        }
        return raw.hasSuffix("/") ? String(raw.dropLast()) : raw
    }
}

extension Setting {
    /// `A`, `A and B`, `A, B and C`.
    static func listed(_ settings: [Setting]) -> String {
        let names = settings.map(\.name)
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }
}
