import HTTPServer
import Testing

@Suite("Entity tags")
struct EntityTagTests {
    @Test("tags are quoted 64-bit FNV-1a hex of the body and depend on the body only")
    func strongTag() {
        // FNV-1a 64 of the empty input is the offset basis; of "a" a known value.
        #expect(EntityTag.strong(for: []) == "\"cbf29ce484222325\"")
        #expect(EntityTag.strong(for: Array("a".utf8)) == "\"af63dc4c8601ec8c\"")
        #expect(EntityTag.strong(for: Array("abc".utf8)) == EntityTag.strong(for: Array("abc".utf8)))
        #expect(EntityTag.strong(for: Array("abc".utf8)) != EntityTag.strong(for: Array("abd".utf8)))
    }

    @Test("If-None-Match lists, weak prefixes, wildcard and malformed members")
    func ifNoneMatch() {
        let tag = "\"0123456789abcdef\""
        #expect(EntityTag.ifNoneMatch([tag], matches: tag))
        #expect(EntityTag.ifNoneMatch(["W/\(tag)"], matches: tag))
        #expect(EntityTag.ifNoneMatch(["\"x\",\(tag)"], matches: tag))
        #expect(EntityTag.ifNoneMatch(["  \"x\" ,  W/\"y\", \(tag) "], matches: tag))
        #expect(EntityTag.ifNoneMatch(["*"], matches: tag))
        #expect(EntityTag.ifNoneMatch(["\"x\"", tag], matches: tag))
        #expect(!EntityTag.ifNoneMatch(["\"x\""], matches: tag))
        #expect(!EntityTag.ifNoneMatch(["0123456789abcdef"], matches: tag))
        #expect(!EntityTag.ifNoneMatch(["\"0123456789abcdef"], matches: tag))
        #expect(!EntityTag.ifNoneMatch(["\"0123456789abcde\""], matches: tag))
        #expect(!EntityTag.ifNoneMatch([""], matches: tag))
        #expect(!EntityTag.ifNoneMatch([], matches: tag))
        #expect(!EntityTag.ifNoneMatch(["\"a,\(tag.dropFirst())"], matches: tag))
    }
}
