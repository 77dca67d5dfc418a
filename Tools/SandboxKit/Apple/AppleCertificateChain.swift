import Foundation

/// A root, intermediate and leaf shaped like Apple's App Store signing chain
/// (P-256 keys, the marker OIDs Apple's verifier looks for), made with the
/// `openssl` command: the sandbox signs its App Store notifications with it,
/// and tests make good and broken chains with it.
///
/// Made fresh each time (a temporary folder, removed afterwards): nothing
/// secret is committed, and a stack's root is its own.
public struct AppleCertificateChain: Sendable {
    /// The root certificate, PEM: what the receiver must be told to trust.
    public var rootPEM: String
    /// `x5c`: leaf, intermediate, root; each the standard base64 of its DER.
    public var x5c: [String]
    /// The leaf's P-256 private key, PEM (SEC 1): what signs.
    public var leafKeyPEM: String

    /// How the chain is made; the defaults are Apple's shape.
    public struct Options: Sendable {
        /// Common-name prefix of the three subjects.
        public var name = "Storefront Sandbox Apple"
        /// Whether the leaf carries 1.2.840.113635.100.6.11.1.
        public var leafMarker = true
        /// Whether the intermediate carries 1.2.840.113635.100.6.2.1.
        public var intermediateMarker = true
        /// The leaf's validity from now, in days (the CAs get ten years).
        public var leafDays = 3650

        public init() {}
    }

    /// Why a chain could not be made.
    public struct GenerationError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Makes a chain with `openssl` (found on `PATH`).
    /// - Throws: ``GenerationError`` when `openssl` is missing or fails.
    public static func generate(_ options: Options = Options()) throws -> AppleCertificateChain {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apple-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func write(_ name: String, _ lines: [String]) throws {
            try (lines.joined(separator: "\n") + "\n").write(toFile: path(name), atomically: true, encoding: .utf8)
        }

        for key in ["root", "intermediate", "leaf"] {
            try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path("\(key).key")])
        }
        try openssl([
            "req", "-x509", "-new", "-key", path("root.key"), "-subj", "/CN=\(options.name) Root CA", "-days", "3650", "-sha256",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", path("root.pem"),
        ])
        try write(
            "intermediate.ext",
            ["basicConstraints=critical,CA:TRUE,pathlen:0", "keyUsage=critical,keyCertSign,cRLSign"]
                + (options.intermediateMarker ? ["1.2.840.113635.100.6.2.1=ASN1:NULL"] : []))
        try write(
            "leaf.ext",
            ["basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature"]
                + (options.leafMarker ? ["1.2.840.113635.100.6.11.1=ASN1:NULL"] : []))
        try issue("intermediate", by: "root", name: "\(options.name) Intermediate CA", days: 3650, serial: 2, in: path)
        try issue("leaf", by: "intermediate", name: "\(options.name) Signing", days: options.leafDays, serial: 3, in: path)

        func read(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }
        return AppleCertificateChain(
            rootPEM: try read("root.pem"), x5c: try ["leaf.pem", "intermediate.pem", "root.pem"].map { base64DER(pem: try read($0)) },
            leafKeyPEM: try read("leaf.key"))
    }

    /// Signs `subject`'s request with `issuer`'s key, with `subject.ext`'s extensions.
    private static func issue(_ subject: String, by issuer: String, name: String, days: Int, serial: Int, in path: (String) -> String) throws {
        try openssl(["req", "-new", "-key", path("\(subject).key"), "-subj", "/CN=\(name)", "-out", path("\(subject).csr")])
        try openssl([
            "x509", "-req", "-in", path("\(subject).csr"), "-CA", path("\(issuer).pem"), "-CAkey", path("\(issuer).key"),
            "-set_serial", String(serial), "-days", String(days), "-sha256", "-extfile", path("\(subject).ext"), "-out", path("\(subject).pem"),
        ])
    }

    /// The base64 body of a one-certificate PEM: its DER, as `x5c` wants it.
    static func base64DER(pem: String) -> String {
        pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw GenerationError(description: "cannot run openssl: \(error)")
        }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw GenerationError(
                description: "openssl \(arguments.first ?? "") failed: \(String(decoding: output, as: UTF8.self).prefix(300))")
        }
    }
}
