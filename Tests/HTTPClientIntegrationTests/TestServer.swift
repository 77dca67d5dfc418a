import Foundation
import TestSupport

/// The Python test server (`test_server.py`, next to this file), started once
/// per test process and shared by every test; each test uses its own keys.
final class TestServer: Sendable {
    let port: Int
    // Held only so its stdin stays open: the server exits when its stdin
    // closes, that is when this test process ends.
    private let process: ChildProcess

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    static func start() async throws -> TestServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("test_server.py")
        let process: ChildProcess
        do {
            process = try ChildProcess.spawn(["python3", script.path])
        } catch {
            throw TestServerError("cannot start python3 \(script.path): \(error)")
        }
        let line = await readLine(process.standardOutput)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestServerError("test_server.py did not print its port (got \(line.debugDescription)); is python3 installed?")
        }
        return TestServer(port: port, process: process)
    }

    /// Reads up to the first newline on a dispatch thread: blocking reads stay off the cooperative pool.
    private static func readLine(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes.append(contentsOf: chunk)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}

struct TestServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Started on first use, shared by all tests in the process.
let sharedServer = Task { try await TestServer.start() }

/// A TCP port on 127.0.0.1 that nothing listens on: bound to port 0, then closed.
func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestServerError("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
        }
    }
    guard bound else { throw TestServerError("bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}
