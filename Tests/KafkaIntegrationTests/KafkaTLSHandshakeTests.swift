import Foundation
import Kafka
import Synchronization
import TestSupport
import Testing

/// TLS as librdkafka does it with these settings, against `openssl s_server`
/// holding a certificate from a CA of the test's own: with that CA in
/// `ssl.ca.location` the handshake succeeds and the broker side receives the
/// client's first Kafka request (which names its `client.id`); with another
/// CA the certificate is refused and nothing reaches it. (A TLS endpoint,
/// not a broker: SASL itself needs a real broker, which Tansu is not.)
@Suite(.serialized) struct KafkaTLSHandshakeTests {
    /// A CA bundle every Debian machine has (package ca-certificates), not the test's CA.
    static let systemCAFile = "/etc/ssl/certs/ca-certificates.crt"

    static func openssl(_ arguments: [String]) async throws {
        _ = try await ChildProcess.run(["openssl"] + arguments)
    }

    /// A CA and a server certificate for `localhost`, signed by it.
    static func certificates(in folder: String) async throws {
        try await openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA",
            "-keyout", folder + "/ca.key", "-out", folder + "/ca.pem",
        ])
        try await openssl([
            "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
            "-keyout", folder + "/server.key", "-out", folder + "/server.csr",
        ])
        try "subjectAltName=DNS:localhost\n".write(toFile: folder + "/server.ext", atomically: true, encoding: .utf8)
        try await openssl([
            "x509", "-req", "-in", folder + "/server.csr", "-CA", folder + "/ca.pem", "-CAkey", folder + "/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", folder + "/server.ext", "-out", folder + "/server.pem",
        ])
    }

    /// What the TLS endpoint received (decrypted) while a client with `security` tried to reach it.
    /// - Parameter done: when the client's log shows the outcome (it is asked again until then, at most 30 s);
    ///   nil: one request, given 10 s.
    static func received(
        by folder: String, security: KafkaSecurity, clientID: String, done: (@Sendable ([String]) -> Bool)? = nil
    ) async throws -> (bytes: String, logged: [String]) {
        let port = String(decoding: try await ChildProcess.run([try ScriptRunner.scriptsFolder() + "/free-port.sh"]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ChildProcess.spawn(
            [
                "openssl", "s_server", "-quiet", "-accept", "127.0.0.1:" + port,
                "-cert", folder + "/server.pem", "-key", folder + "/server.key",
            ], mergeStandardError: true)
        async let output = ChildProcess.readAll(server.standardOutput)
        // Listening, not a fixed pause: on a loaded machine openssl takes its time to start.
        _ = try await ChildProcess.run([
            "bash", "-c", "for _ in $(seq 1 200); do (exec 3<>/dev/tcp/127.0.0.1/\(port)) 2>/dev/null && exit 0; sleep 0.1; done; exit 1",
        ])
        let logged = Mutex<[String]>([])
        let client = KafkaClientConfiguration(
            bootstrapServers: ["localhost:" + port], clientID: clientID,
            logHandler: { _, line in logged.withLock { $0.append(line) } }, security: security)
        let admin = try KafkaAdmin(configuration: client)
        if let done {
            let deadline = ContinuousClock.now.advanced(by: .seconds(30))
            repeat {
                _ = try? await admin.partitionCount(topic: "t", timeout: .seconds(3))
            } while !logged.withLock({ done($0) }) && ContinuousClock.now < deadline
        } else {
            _ = try? await admin.partitionCount(topic: "t", timeout: .seconds(10))
        }
        // SIGKILL: a child of the test process inherits SIGTERM ignored.
        server.signal(SIGKILL)
        _ = await server.wait()
        return (String(decoding: await output, as: UTF8.self), logged.withLock { $0 })
    }

    @Test func theHandshakeSucceedsWithTheRightCAAndFailsWithAnother() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kafka-tls-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Self.certificates(in: folder)

        let trusted = try await Self.received(
            by: folder, security: KafkaSecurity(securityProtocol: .ssl, tls: .init(caLocation: folder + "/ca.pem")),
            clientID: "tls-trusted-client")
        #expect(
            trusted.bytes.contains("tls-trusted-client"), "the Kafka request did not arrive over TLS: \(trusted.bytes.suffix(300)) \(trusted.logged)")

        let other = try await Self.received(
            by: folder, security: KafkaSecurity(securityProtocol: .ssl, tls: .init(caLocation: Self.systemCAFile)),
            clientID: "tls-untrusted-client", done: { lines in lines.contains { $0.contains("certificate verify failed") } })
        #expect(!other.bytes.contains("tls-untrusted-client"), "a certificate from an untrusted CA was accepted")
        #expect(other.logged.contains { $0.contains("certificate verify failed") }, "\(other.logged)")
    }
}
