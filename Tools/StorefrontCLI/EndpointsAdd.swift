import CryptoPrimitives
import Foundation
import WebhookSenderService

/// `storefront endpoints add`: the endpoint its options describe, checked.
enum EndpointsAdd {
    /// The endpoint `add` describes: a URL the ``EndpointURLPolicy`` takes,
    /// known types, a valid secret (from standard input with
    /// `--secret-stdin`: never from the command line, where the process list
    /// and the shell's history would show it).
    /// - Returns: the endpoint, and notes to print (a host that does not resolve yet).
    static func newEndpoint(
        _ arguments: CommandLineArguments, liveMode: Bool, input: () -> String?, resolver: any HostResolver
    ) async throws -> (WebhookEndpoint, [String]) {
        guard arguments.options["secret"] == nil else {
            throw CommandLineArguments.UsageError(
                description: "--secret is not taken on the command line (ps and shell history show it); "
                    + "pipe it instead: printf '%s\\n' \"$SECRET\" | storefront endpoints add --url URL --secret-stdin")
        }
        let url = try arguments.require("url")
        let allowPrivate = try flag(arguments, "allow-private")
        let policy = EndpointURLPolicy(liveMode: liveMode, allowPrivate: allowPrivate)
        var notes: [String] = []
        do {
            let host = try policy.host(of: url)
            if case .unresolved(let reason) = try await policy.check(host: host, resolver: resolver) {
                notes.append("note: \(reason); it is checked again before each send")
            }
        } catch {
            throw CommandLineArguments.UsageError(description: error.description)
        }
        var types = Set<String>()
        let known = WebhookEndpoint.knownEventTypes
        for name in (arguments.options["types"] ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard known.contains(name) else {
                throw CommandLineArguments.UsageError(description: "unknown type \(name); the types are \(known.joined(separator: ", "))")
            }
            types.insert(name)
        }
        let secret: String
        if try flag(arguments, "secret-stdin") {
            guard let line = input()?.trimmingCharacters(in: .whitespacesAndNewlines), !line.isEmpty else {
                throw CommandLineArguments.UsageError(description: "--secret-stdin: no secret on standard input")
            }
            secret = line
        } else {
            secret = try StandardWebhookSignature.generateSecret()
        }
        do {
            _ = try StandardWebhookSignature.key(of: secret)
        } catch {
            throw CommandLineArguments.UsageError(description: "the secret must be whsec_ and base64 of 24 to 64 bytes: \(error)")
        }
        let endpoint = WebhookEndpoint(
            id: "ep_" + UUID().uuidString.lowercased(), url: url, secret: secret, eventTypes: types, allowPrivateTargets: allowPrivate)
        return (endpoint, notes)
    }

    /// A flag: given alone (`--allow-private`) or as `--name=true`; `--name=false` or absent: off.
    static func flag(_ arguments: CommandLineArguments, _ name: String) throws(CommandLineArguments.UsageError) -> Bool {
        switch arguments.options[name] {
        case nil, "false"?: return false
        case "true"?: return true
        case let other?: throw CommandLineArguments.UsageError(description: "--\(name) takes no value (got \(other))")
        }
    }
}
