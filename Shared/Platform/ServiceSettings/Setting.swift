/// One environment variable, declared once: its name, the default a human
/// sees, whether it is required or a secret, and one line saying what it does.
///
/// Every read goes through a declaration (``ConfigReader`` takes a `Setting`,
/// never a bare name), so a variable cannot be read without being declared,
/// and `--help-settings`, the settings tables in docs/configuration.md and the
/// compose check are all generated from these values. Declare a setting next
/// to the code that reads it, as a static member:
///
/// ```swift
/// extension Setting {
///     public static let kafkaBrokers = Setting(
///         "KAFKA_BROKERS", required: true, "comma-separated host:port list of the brokers")
/// }
/// let brokers = reader.required.list(.kafkaBrokers)
/// ```
public struct Setting: Sendable, Hashable {
    /// The environment variable's name, e.g. `KAFKA_BROKERS`.
    public let name: String
    /// The default as shown to people ("8080", "30 s", "the service's name");
    /// nil when there is none (a required setting, or unset means off).
    public let shownDefault: String?
    /// Whether the binaries that read it refuse to start without it.
    public let isRequired: Bool
    /// Whether the value must never be shown; a secret may instead be given
    /// in a file named by ``fileVariant``.
    public let isSecret: Bool
    /// One line saying what the setting does, for `--help-settings` and the docs.
    public let summary: String

    /// - Parameters:
    ///   - name: the environment variable.
    ///   - shownDefault: the default as shown to people; nil when there is none.
    ///   - required: the binaries that read it refuse to start without it.
    ///   - secret: never shown; `NAME_FILE` may name a file holding it.
    ///   - summary: one line saying what it does.
    public init(_ name: String, default shownDefault: String? = nil, required: Bool = false, secret: Bool = false, _ summary: String) {
        self.name = name
        self.shownDefault = shownDefault
        self.isRequired = required
        self.isSecret = secret
        self.summary = summary
    }

    /// `NAME_FILE`, the file variant a secret accepts (the Docker and
    /// Kubernetes secrets convention); nil for settings that are not secret.
    public var fileVariant: String? { isSecret ? name + "_FILE" : nil }

    /// The same variable read where it may be left unset (the reconciler's
    /// `DATABASE_URL`), with that reader's own summary.
    public func optional(_ summary: String) -> Setting {
        Setting(name, default: shownDefault, required: false, secret: isSecret, summary)
    }
}
