import Foundation

/// Signs bodies with the `openssl` command-line tool — an implementation
/// independent of the code under test — so the verifiers are checked against
/// what a real HMAC tool produces, not against themselves.
enum OpenSSLSigner {
    enum Failure: Error, CustomStringConvertible {
        case notFound
        case failed(String)
        var description: String {
            switch self {
            case .notFound: "openssl executable not found (looked in /usr/bin and /usr/local/bin); install the openssl package"
            case .failed(let detail): "openssl failed: \(detail)"
            }
        }
    }

    static func executable() throws -> URL {
        for path in ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"] where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        throw Failure.notFound
    }

    /// Lowercase hex HMAC of `body` under `key`; `digest` is `sha256` or `sha512`.
    static func hmacHex(_ digest: String, key: String, body: [UInt8]) throws -> String {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["dgst", "-\(digest)", "-hmac", key, "-r"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Bodies are a few KB, well under the pipe buffer, so writing before reading cannot deadlock.
        input.fileHandleForWriting.write(Data(body))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure.failed(errorText) }
        // `-r` prints "<hex> *stdin".
        guard let hex = String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init), hex.count == (digest == "sha256" ? 64 : 128) else {
            throw Failure.failed("unexpected output")
        }
        return hex
    }
}

/// Plain SHA-256 by the `openssl` tool, to check the dedup digest independently.
enum OpenSSLDigest {
    static func sha256Hex(_ body: [UInt8]) throws -> String {
        let process = Process()
        process.executableURL = try OpenSSLSigner.executable()
        process.arguments = ["dgst", "-sha256", "-r"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(body))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let hex = String(decoding: data, as: UTF8.self).split(separator: " ").first else {
            throw OpenSSLSigner.Failure.failed("sha256")
        }
        return String(hex)
    }
}
