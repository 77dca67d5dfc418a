import Foundation
import TestSupport
import Testing

/// A client with its own source address: curl bound to a loopback address
/// (all of 127.0.0.0/8 is local on Linux), trusting the front's certificate
/// when it talks to the front.
struct EdgeClient {
    let stack: LiveStack
    let address: String
    let certificate: String?

    init(_ stack: LiveStack, address: String, trusting certificate: String? = nil) {
        self.stack = stack
        self.address = address
        self.certificate = certificate
    }

    /// The status of each of `count` GETs of `url`, sent one after another on one connection.
    func statuses(_ url: String, count: Int) async throws -> [Int] {
        let output = try await curl(
            ["--write-out", "%{http_code}\\n"] + Array(repeating: [url, "--output", "/dev/null"], count: count).flatMap { $0 })
        return output.split(separator: "\n").compactMap { Int($0) }
    }

    /// One request; a body makes it a POST. `maxTime`: seconds before curl gives up (a long poll needs more than 10).
    func send(
        _ url: String, body: [UInt8]? = nil, headers: [(String, String)] = [], maxTime: Int = 10
    ) async throws -> (status: Int, body: String) {
        let scratch = stack.state + "/curl-\(UUID().uuidString.prefix(8))"
        var arguments = ["--output", scratch + ".body", "--write-out", "%{http_code}"]
        for (name, value) in headers { arguments += ["--header", "\(name): \(value)"] }
        if let body {
            try Data(body).write(to: URL(fileURLWithPath: scratch + ".request"))
            arguments += ["--data-binary", "@" + scratch + ".request"]
        }
        let status = try await curl(arguments + [url], maxTime: maxTime)
        let answer = (try? String(contentsOfFile: scratch + ".body", encoding: .utf8)) ?? ""
        return (try #require(Int(status.trimmingCharacters(in: .whitespacesAndNewlines)), "curl wrote no status: \(status)"), answer)
    }

    /// One request's status and response headers (names lowercased); `method` as curl's `--request`.
    func head(_ url: String, method: String = "GET") async throws -> (status: Int, headers: [String: String]) {
        let scratch = stack.state + "/curl-\(UUID().uuidString.prefix(8))"
        let status = try await curl(
            ["--request", method, "--dump-header", scratch + ".headers", "--output", "/dev/null", "--write-out", "%{http_code}", url])
        var headers: [String: String] = [:]
        for line in ((try? String(contentsOfFile: scratch + ".headers", encoding: .utf8)) ?? "").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (try #require(Int(status.trimmingCharacters(in: .whitespacesAndNewlines)), "curl wrote no status: \(status)"), headers)
    }

    private func curl(_ arguments: [String], maxTime: Int = 10) async throws -> String {
        let output = stack.state + "/curl-\(UUID().uuidString.prefix(8)).out"
        try await ScriptRunner.run(
            "/usr/bin/env",
            ["curl", "--silent", "--show-error", "--max-time", String(maxTime), "--interface", address]
                + (certificate.map { ["--cacert", $0] } ?? [])
                + arguments,
            outputFile: output)
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}
