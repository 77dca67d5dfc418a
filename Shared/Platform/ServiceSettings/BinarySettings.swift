/// Every setting one executable (or one command of a tool) reads: what its
/// `--help-settings` prints, and the only names its ``ConfigReader`` accepts.
public struct BinarySettings: Sendable {
    /// The executable, or the executable and its command (`storefront migrate`).
    public let binary: String
    /// The groups it reads, in the order its help shows them.
    public let groups: [SettingGroup]

    public init(_ binary: String, _ groups: [SettingGroup]) {
        self.binary = binary
        self.groups = groups
    }

    /// Every setting once, in group order; where two groups declare the same
    /// name, the first wins (a binary's own group comes before a shared one).
    public var settings: [Setting] {
        var seen = Set<String>()
        return groups.flatMap(\.settings).filter { seen.insert($0.name).inserted }
    }

    /// The names a reader of this binary accepts.
    public var names: Set<String> { Set(groups.flatMap(\.settings).map(\.name)) }
}
