import Foundation

/// Renders a binary's declared settings for `--help-settings`: a text table
/// for people, JSON for the generators (scripts/settings-docs.sh writes
/// docs/settings.json from it), Markdown for pasting.
public enum SettingsHelp {
    /// The output formats `--format` accepts.
    public enum Format: String, CaseIterable, Sendable {
        case text, json, markdown
    }

    /// What a mistaken `--help-settings` command line gets told.
    public struct UsageError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The format asked for by `arguments` (the process's, without the
    /// executable), or nil when they do not ask for the settings at all.
    ///
    /// - Throws: ``UsageError`` for `--format` without a known format.
    public static func requestedFormat(_ arguments: [String]) throws(UsageError) -> Format? {
        guard arguments.contains("--help-settings") else { return nil }
        guard let flag = arguments.firstIndex(of: "--format") else { return .text }
        let wanted = flag + 1 < arguments.count ? arguments[flag + 1] : ""
        guard let format = Format(rawValue: wanted) else {
            let accepted = Format.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError(description: "--format takes one of \(accepted), got \"\(wanted)\"")
        }
        return format
    }

    /// `binaries` rendered in `format`; several binaries in JSON make one array.
    public static func render(_ binaries: [BinarySettings], as format: Format) -> String {
        switch format {
        case .json: json(binaries)
        case .markdown: binaries.map(markdown).joined(separator: "\n")
        case .text: binaries.map(text).joined(separator: "\n")
        }
    }

    // MARK: - JSON

    /// The JSON shape: stable key order, one object per binary, so the checked-in
    /// docs/settings.json diffs line by line.
    struct BinaryDocument: Encodable {
        let binary: String
        let groups: [GroupDocument]
    }

    struct GroupDocument: Encodable {
        let title: String
        let settings: [SettingDocument]
    }

    struct SettingDocument: Encodable {
        let name: String
        let shownDefault: String?
        let required: Bool
        let secret: Bool
        let file: String?
        let summary: String

        enum CodingKeys: String, CodingKey {
            case name, shownDefault = "default", required, secret, file, summary
        }

        init(_ setting: Setting) {
            name = setting.name
            shownDefault = setting.shownDefault
            required = setting.isRequired
            secret = setting.isSecret
            file = setting.fileVariant
            summary = setting.summary
        }

        // Absent keys are written as null, so every object has the same keys.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(shownDefault, forKey: .shownDefault)
            try container.encode(required, forKey: .required)
            try container.encode(secret, forKey: .secret)
            try container.encode(file, forKey: .file)
            try container.encode(summary, forKey: .summary)
        }
    }

    static func json(_ binaries: [BinarySettings]) -> String {
        let documents = binaries.map { binary in
            BinaryDocument(
                binary: binary.binary,
                groups: binary.groups.map { GroupDocument(title: $0.title, settings: $0.settings.map(SettingDocument.init)) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and booleans cannot fail.
        guard let data = try? encoder.encode(documents), let text = String(data: data, encoding: .utf8) else {
            preconditionFailure("settings could not be encoded as JSON")
        }
        return text + "\n"
    }

    // MARK: - People

    static func markdown(_ binary: BinarySettings) -> String {
        var lines = ["## `\(binary.binary)`", ""]
        for group in binary.groups {
            lines += ["### \(group.title)", "", "| setting | default | meaning |", "| --- | --- | --- |"]
            lines += group.settings.map { "| \(nameCell($0)) | \(defaultCell($0)) | \($0.summary) |" }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    static func text(_ binary: BinarySettings) -> String {
        var lines = ["\(binary.binary) reads these environment variables:"]
        for group in binary.groups {
            lines += ["", "\(group.title):"]
            for setting in group.settings {
                var name = setting.name
                if let file = setting.fileVariant { name += " (or \(file))" }
                lines.append("  \(name)  [\(defaultText(setting))]")
                lines.append("      \(setting.summary)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func nameCell(_ setting: Setting) -> String {
        setting.fileVariant.map { "`\(setting.name)` (or `\($0)`)" } ?? "`\(setting.name)`"
    }

    static func defaultCell(_ setting: Setting) -> String {
        if setting.isRequired { return "**required**" }
        return setting.shownDefault.map { "`\($0)`" } ?? "unset"
    }

    static func defaultText(_ setting: Setting) -> String {
        var words: [String] = []
        if setting.isRequired { words.append("required") } else { words.append("default: " + (setting.shownDefault ?? "unset")) }
        if setting.isSecret { words.append("secret") }
        return words.joined(separator: ", ")
    }
}
