/// The words a boolean setting accepts, in every configuration reader:
/// `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, any case, surrounding
/// spaces ignored.
public enum BooleanSetting {
    /// What an error message lists as accepted.
    public static let accepted = "one of true, false, 1, 0, yes, no, on, off"

    /// The value of `text`, or nil when it is none of the accepted words.
    public static func parse(_ text: some StringProtocol) -> Bool? {
        var trimmed = Substring(text)
        while trimmed.first == " " || trimmed.first == "\t" { trimmed.removeFirst() }
        while trimmed.last == " " || trimmed.last == "\t" { trimmed.removeLast() }
        switch trimmed.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: return nil
        }
    }
}
