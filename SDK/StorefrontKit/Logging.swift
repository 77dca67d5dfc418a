import Foundation

/// How much a ``StorefrontClient`` tells the app's log hook
/// (``StorefrontClient/Options/logHandler``).
public enum StorefrontLogLevel: Int, Hashable, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Every request and its answer, cache hits, refresh timers.
    case debug
    /// What the app may want to know: answers served from the cache after a
    /// failure, a change of user, a cleared cache, a checkout outcome.
    case info
    /// Something failed and the client coped (a refresh that could not reach
    /// the server, a cache file that could not be written).
    case warning
    /// A call failed and threw.
    case error

    /// Orders the levels from ``debug`` to ``error``.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `debug`, `info`, `warning` or `error`.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// The app's log hook: gets each message at or above
/// ``StorefrontClient/Options/logLevel``. Called on the client's actor; keep it
/// quick (hand the message to `os.Logger`, a file, a crash reporter).
///
/// Messages never contain the app user's token: the client does not put it in
/// them, and every message is scrubbed before the hook sees it (the tokens the
/// client was given, `Bearer …` values and anything shaped like a JWT become
/// `<redacted>`). They contain no user id either.
public typealias StorefrontLogHandler = @Sendable (_ level: StorefrontLogLevel, _ message: String) -> Void

/// Removes secrets from log messages.
enum LogRedactor {
    static let placeholder = "<redacted>"

    /// `message` with every `secret` (of 8 characters or more), every
    /// `Bearer …` value and every JWT-shaped run replaced by ``placeholder``.
    static func redact(_ message: String, secrets: [String] = []) -> String {
        var text = message
        for secret in secrets where secret.count >= 8 {
            text = text.replacingOccurrences(of: secret, with: placeholder)
        }
        text = redactBearer(text)
        return redactJWTShaped(text)
    }

    /// `Bearer <anything up to whitespace>` → `Bearer <redacted>`, any case.
    static func redactBearer(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: "bearer ", options: .caseInsensitive) {
            result += rest[..<range.upperBound]
            var value = rest[range.upperBound...]
            let end = value.firstIndex(where: \.isWhitespace) ?? value.endIndex
            if value.startIndex != end { result += placeholder }
            value = value[end...]
            rest = value
        }
        return result + rest
    }

    /// Runs of base64url characters and dots with two dots or more and 20
    /// characters or more (a JWT: `header.payload.signature`).
    static func redactJWTShaped(_ text: String) -> String {
        func isTokenCharacter(_ c: Character) -> Bool {
            c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".")
        }
        var result = ""
        var run = ""
        func flush() {
            let dots = run.filter { $0 == "." }.count
            let segments = run.split(separator: ".", omittingEmptySubsequences: true)
            let looksLikeJWT = dots >= 2 && run.count >= 20 && segments.count >= 2 && segments.allSatisfy { $0.count >= 4 }
            result += looksLikeJWT ? placeholder : run
            run = ""
        }
        for character in text {
            if isTokenCharacter(character) {
                run.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}
