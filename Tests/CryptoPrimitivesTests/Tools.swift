import CryptoPrimitives
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

/// A P-256 key pair made by the `openssl` command, with what a JWK needs read
/// back by openssl too (never by the code under test).
struct P256KeyPair: Sendable {
    let directory: URL
    let privateKeyPath: String
    let publicKeyPath: String
    let privateKeyPEM: String
    /// The point's coordinates, from the last 64 bytes of openssl's DER SubjectPublicKeyInfo (`04 || x || y`).
    let x: [UInt8]
    let y: [UInt8]

    static func generate() async throws -> P256KeyPair {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crypto-tests-ec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let privatePath = directory.appendingPathComponent("private.pem").path
        let publicPath = directory.appendingPathComponent("public.pem").path
        _ = try await run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", privatePath])
        _ = try await run(["openssl", "pkey", "-in", privatePath, "-pubout", "-out", publicPath])
        let spki = try await run(["openssl", "pkey", "-in", privatePath, "-pubout", "-outform", "DER"])
        guard spki.count == 91, spki[spki.count - 65] == 0x04 else { throw ToolError(description: "unexpected P-256 SubjectPublicKeyInfo") }
        let point = Array(spki.suffix(64))
        return P256KeyPair(
            directory: directory, privateKeyPath: privatePath, publicKeyPath: publicPath,
            privateKeyPEM: try String(contentsOfFile: privatePath, encoding: .utf8), x: Array(point.prefix(32)), y: Array(point.suffix(32)))
    }

    /// Signs `message` with `openssl dgst -sha256 -sign` (a DER signature).
    func opensslSignDER(_ message: String) async throws -> [UInt8] {
        let input = directory.appendingPathComponent("input-\(UUID().uuidString)")
        try Data(message.utf8).write(to: input)
        return try await run(["openssl", "dgst", "-sha256", "-sign", privateKeyPath, input.path])
    }

    /// Checks a DER `signature` over `message` with `openssl dgst -sha256 -verify`.
    func opensslVerifyDER(_ message: String, signature: [UInt8]) async throws -> Bool {
        let input = directory.appendingPathComponent("input-\(UUID().uuidString)")
        let signatureFile = directory.appendingPathComponent("sig-\(UUID().uuidString)")
        try Data(message.utf8).write(to: input)
        try Data(signature).write(to: signatureFile)
        do {
            return try await runText(["openssl", "dgst", "-sha256", "-verify", publicKeyPath, "-signature", signatureFile.path, input.path])
                == "Verified OK"
        } catch {
            return false
        }
    }

    /// `R || S` of a DER signature as `openssl asn1parse` reads it: the two
    /// INTEGER values, left-padded to 32 bytes.
    func opensslRawSignature(_ der: [UInt8]) async throws -> [UInt8] {
        let file = directory.appendingPathComponent("der-\(UUID().uuidString)")
        try Data(der).write(to: file)
        let dump = try await runText(["openssl", "asn1parse", "-inform", "DER", "-in", file.path])
        let integers = dump.split(separator: "\n").filter { $0.contains("INTEGER") }.compactMap { line -> [UInt8]? in
            guard let colon = line.lastIndex(of: ":") else { return nil }
            return Hex.decode(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        guard integers.count == 2, integers.allSatisfy({ $0.count <= 32 }) else {
            throw ToolError(description: "unexpected asn1parse output:\n\(dump)")
        }
        return integers.flatMap { [UInt8](repeating: 0, count: 32 - $0.count) + $0 }
    }
}

/// One P-256 key pair shared by the ES256 tests.
let sharedP256Keys = Task { try await P256KeyPair.generate() }

/// The modulus of an RSA public key as `openssl rsa -modulus` prints it.
func opensslModulus(publicKeyPath: String) async throws -> [UInt8] {
    let line = try await runText(["openssl", "rsa", "-pubin", "-in", publicKeyPath, "-modulus", "-noout"])
    guard line.hasPrefix("Modulus="), let modulus = Hex.decode(line.dropFirst("Modulus=".count)) else {
        throw ToolError(description: "unexpected openssl -modulus output")
    }
    return modulus
}
