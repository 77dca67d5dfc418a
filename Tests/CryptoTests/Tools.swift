import Foundation
import TestSupport

struct ToolError: Error, CustomStringConvertible {
    let description: String
}

/// Runs an external command (openssl, python3) found on PATH and returns its stdout.
/// - Throws: ``ToolError`` naming the command when it cannot start or exits non-zero.
func run(_ arguments: [String], input: [UInt8] = []) async throws -> [UInt8] {
    do {
        return try await ChildProcess.run(arguments, input: input)
    } catch {
        throw ToolError(description: "\(error) (is \(arguments[0]) installed?)")
    }
}

/// Runs a command and returns its stdout as trimmed text.
func runText(_ arguments: [String], input: [UInt8] = []) async throws -> String {
    String(decoding: try await run(arguments, input: input), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A 2048-bit RSA key pair made by the `openssl` command in a temporary directory.
struct RSAKeyPair: Sendable {
    let directory: URL
    let privateKeyPath: String
    let publicKeyPath: String
    let privateKeyPEM: String
    let publicKeyPEM: String

    static func generate() async throws -> RSAKeyPair {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crypto-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let privatePath = directory.appendingPathComponent("private.pem").path
        let publicPath = directory.appendingPathComponent("public.pem").path
        _ = try await run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", privatePath])
        _ = try await run(["openssl", "pkey", "-in", privatePath, "-pubout", "-out", publicPath])
        return RSAKeyPair(
            directory: directory, privateKeyPath: privatePath, publicKeyPath: publicPath,
            privateKeyPEM: try String(contentsOfFile: privatePath, encoding: .utf8),
            publicKeyPEM: try String(contentsOfFile: publicPath, encoding: .utf8))
    }

    /// Signs `message` with `openssl dgst -sha256 -sign`.
    func opensslSign(_ message: String) async throws -> [UInt8] {
        let input = directory.appendingPathComponent("input-\(UUID().uuidString)")
        try Data(message.utf8).write(to: input)
        return try await run(["openssl", "dgst", "-sha256", "-sign", privateKeyPath, input.path])
    }

    /// Checks `signature` over `message` with `openssl dgst -sha256 -verify`.
    func opensslVerify(_ message: String, signature: [UInt8]) async throws -> Bool {
        let input = directory.appendingPathComponent("input-\(UUID().uuidString)")
        let signatureFile = directory.appendingPathComponent("sig-\(UUID().uuidString)")
        try Data(message.utf8).write(to: input)
        try Data(signature).write(to: signatureFile)
        do {
            let output = try await runText(["openssl", "dgst", "-sha256", "-verify", publicKeyPath, "-signature", signatureFile.path, input.path])
            return output == "Verified OK"
        } catch {
            return false
        }
    }
}

/// Two key pairs shared by all tests (generating RSA keys takes a moment).
let sharedKeys = Task { try await (RSAKeyPair.generate(), RSAKeyPair.generate()) }

/// Builds a JWT with Python's standard library (hmac, base64, json), independently of the code under test.
/// `alg` other than HS256 gets an empty signature.
func pythonJWT(header: String, claims: String, secret: String) async throws -> String {
    let script = """
        import sys, json, hmac, hashlib, base64
        def b64(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
        header, claims, secret = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3].encode()
        signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
        signature = b64(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()) if header["alg"] == "HS256" else ""
        print(signing_input + "." + signature)
        """
    return try await runText(["python3", "-c", script, header, claims, secret])
}
