extension ConfigValueParser {
    /// The value `text` reads as, or nil: for parsers that build on another one outside this module.
    public func value(of text: String) -> Value? { parse(text) }
}
