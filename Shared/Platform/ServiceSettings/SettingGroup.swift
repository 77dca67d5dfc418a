/// Settings that are read together by one piece of code (the HTTP server's,
/// the broker's, the checkout's own…), so a binary lists what it reads as a
/// few groups and the docs show one table per group.
public struct SettingGroup: Sendable, Hashable {
    /// A short heading, e.g. `HTTP server`.
    public let title: String
    /// The group's settings, in the order the docs show them.
    public let settings: [Setting]

    public init(_ title: String, _ settings: [Setting]) {
        self.title = title
        self.settings = settings
    }
}
