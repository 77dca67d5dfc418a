import Foundation

// The fixtures themselves: `Tests/Fixtures`, read through TestSupport's `Fixture`.

func date(_ text: String) -> Date? {
    ISO8601DateFormatter().date(from: text)
}
