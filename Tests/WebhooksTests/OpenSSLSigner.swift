import Foundation
import TestSupport

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
        for path in ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        throw Failure.notFound
    }

    /// Lowercase hex HMAC of `body` under `key`; `digest` is `sha256` or `sha512`.
    static func hmacHex(_ digest: String, key: String, body: [UInt8]) async throws -> String {
        let data = try await ChildProcess.run([try executable().path, "dgst", "-\(digest)", "-hmac", key, "-r"], input: body)
        // `-r` prints "<hex> *stdin".
        guard let hex = String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init),
            hex.count == (digest == "sha256" ? 64 : 128)
        else {
            throw Failure.failed("unexpected output")
        }
        return hex
    }
}

/// Plain SHA-256 by the `openssl` tool, to check the dedup digest independently.
enum OpenSSLDigest {
    static func sha256Hex(_ body: [UInt8]) async throws -> String {
        let data = try await ChildProcess.run([try OpenSSLSigner.executable().path, "dgst", "-sha256", "-r"], input: body)
        guard let hex = String(decoding: data, as: UTF8.self).split(separator: " ").first else {
            throw OpenSSLSigner.Failure.failed("sha256")
        }
        return String(hex)
    }
}
