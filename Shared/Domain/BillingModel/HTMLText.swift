/// Turns the providers' HTML descriptions (Lemon Squeezy product descriptions
/// are HTML) into plain text for clients that cannot render HTML.
public enum HTMLText {
    /// Block-level tags that end a line of text.
    static let lineBreakingTags: Set<String> = [
        "br", "p", "/p", "div", "/div", "li", "/li", "ul", "/ul", "ol", "/ol", "h1", "h2", "h3", "h4", "h5", "h6", "/h1", "/h2", "/h3", "/h4", "/h5",
        "/h6", "tr", "/tr",
    ]

    static let entities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ",
        "ndash": "–", "mdash": "—", "hellip": "…", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“",
        "euro": "€", "pound": "£", "copy": "©", "reg": "®", "trade": "™",
    ]

    /// Tags removed, `<br>`/block ends turned into newlines, entities decoded,
    /// runs of spaces collapsed, blank lines dropped, ends trimmed.
    public static func plainText(fromHTML html: String) -> String {
        var out = ""
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            if character == "<", startsTag(html[html.index(after: index)...]), let close = html[index...].firstIndex(of: ">") {
                let inner = html[html.index(after: index)..<close]
                if lineBreakingTags.contains(tagName(inner)) { out.append("\n") }
                index = html.index(after: close)
            } else if character == "&", let semicolon = html[index...].prefix(12).firstIndex(of: ";") {
                let name = String(html[html.index(after: index)..<semicolon])
                if let decoded = decodeEntity(name) {
                    out += decoded
                    index = html.index(after: semicolon)
                } else {
                    out.append(character)
                    index = html.index(after: index)
                }
            } else {
                out.append(character)
                index = html.index(after: index)
            }
        }
        return out.split(separator: "\n", omittingEmptySubsequences: true)
            .map { line in line.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ") }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    /// A `<` opens a tag only before a letter, `/` or `!` (so "a < b" stays text).
    static func startsTag(_ rest: Substring) -> Bool {
        guard let next = rest.first else { return false }
        return next.isLetter || next == "/" || next == "!"
    }

    /// `p` for `<p class="x">`, `/p` for `</p>`, `br` for `<br/>`.
    static func tagName(_ inner: Substring) -> String {
        var name = ""
        for character in inner {
            if name.isEmpty, character == "/" { name.append(character); continue }
            guard character.isLetter || character.isNumber else { break }
            name.append(character)
        }
        return name.lowercased()
    }

    static func decodeEntity(_ name: String) -> String? {
        if let named = entities[name] { return named }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let code: UInt32?
        if digits.first == "x" || digits.first == "X" {
            code = UInt32(digits.dropFirst(), radix: 16)
        } else {
            code = UInt32(digits, radix: 10)
        }
        guard let code, let scalar = Unicode.Scalar(code) else { return nil }
        return String(Character(scalar))
    }
}
