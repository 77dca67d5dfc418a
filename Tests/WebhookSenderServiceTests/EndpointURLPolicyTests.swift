import Testing
@testable import WebhookSenderService

/// Which URLs may receive webhooks, with a resolver that answers from a table.
@Suite struct EndpointURLPolicyTests {
    struct TableResolver: HostResolver {
        let table: [String: [String]]
        func addresses(of host: String) async throws -> [String] {
            guard let found = table[host] else { throw HostResolutionError(host: host, reason: "unknown") }
            return found
        }
    }

    static let resolver = TableResolver(table: [
        "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
        "inside.example.com": ["93.184.216.34", "10.1.2.3"], "rebound.example.com": ["::ffff:127.0.0.1"],
    ])

    @Test(arguments: [
        ("127.0.0.1", TargetAddress.Kind.loopback), ("127.255.0.9", .loopback), ("::1", .loopback), ("[::1]", .loopback),
        ("10.0.0.1", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.1.1", .private), ("100.64.0.1", .private),
        ("fd12:3456::1", .private), ("fc00::1", .private), ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("fe80::1%eth0", .linkLocal),
        ("0.0.0.0", .unspecified), ("::", .unspecified), ("::ffff:10.0.0.1", .private), ("::ffff:8.8.8.8", .public),
        ("64:ff9b::a00:1", .private), ("2002:c0a8:101::1", .private), ("224.0.0.1", .reserved), ("255.255.255.255", .reserved),
        ("ff02::1", .reserved), ("8.8.8.8", .public), ("172.32.0.1", .public), ("2606:4700::1111", .public),
    ])
    func addressesAreClassified(_ address: String, _ kind: TargetAddress.Kind) {
        #expect(TargetAddress.kind(of: address) == kind, "\(address)")
    }

    @Test func aHostNameIsNotAnAddress() {
        #expect(TargetAddress.kind(of: "hooks.example.com") == nil)
        #expect(TargetAddress.kind(of: "127.1") == nil, "a short form goes through the resolver, which reads it as 127.0.0.1")
    }

    @Test func publicHttpsTargetsPassAndHttpOnlyOutsideLiveMode() async throws {
        let live = EndpointURLPolicy(liveMode: true, allowPrivate: false), test = EndpointURLPolicy(liveMode: false, allowPrivate: false)
        #expect(try live.host(of: "https://hooks.example.com/x") == "hooks.example.com")
        #expect(
            try await live.check(host: "hooks.example.com", resolver: Self.resolver) == .allowed(addresses: Self.resolver.table["hooks.example.com"]!)
        )
        #expect(throws: EndpointURLPolicy.Refusal.self) { try live.host(of: "http://hooks.example.com/x") }
        #expect(try test.host(of: "http://hooks.example.com/x") == "hooks.example.com")
        for bad in ["ftp://hooks.example.com/x", "not a url", "https://", "https://user:pw@hooks.example.com/x", "/relative"] {
            #expect(throws: EndpointURLPolicy.Refusal.self, "\(bad)") { try test.host(of: bad) }
        }
    }

    @Test func privateTargetsAreRefusedUnlessAllowed() async throws {
        let strict = EndpointURLPolicy(liveMode: true, allowPrivate: false), lenient = EndpointURLPolicy(liveMode: true, allowPrivate: true)
        for url in [
            "https://127.0.0.1/x", "https://[::1]:8443/x", "https://10.0.0.7/x", "https://169.254.169.254/latest", "https://[fd00::1]/x",
            "https://0.0.0.0/x", "https://localhost/x", "https://api.localhost/x", "https://inside.example.com/x", "https://rebound.example.com/x",
        ] {
            let host = try strict.host(of: url)
            await #expect(throws: EndpointURLPolicy.Refusal.self, "\(url)") { _ = try await strict.check(host: host, resolver: Self.resolver) }
            _ = try await lenient.check(host: host, resolver: Self.resolver)
        }
    }

    @Test func aNameThatDoesNotResolveIsNotJudgedYet() async throws {
        let policy = EndpointURLPolicy(liveMode: true, allowPrivate: false)
        guard case .unresolved = try await policy.check(host: "nowhere.example", resolver: Self.resolver) else {
            Issue.record("an unresolved name is reported, not allowed")
            return
        }
    }

    @Test func theCheckBeforeASendRefusesAPrivateAddressUnlessTheEndpointAllowsIt() async throws {
        let check = ResolvingTargetCheck(resolver: Self.resolver)
        var endpoint = WebhookEndpoint(id: "ep", url: "https://inside.example.com/h", secret: "whsec_x", eventTypes: [])
        await #expect(throws: EndpointURLPolicy.Refusal.self) { try await check.check(endpoint) }
        endpoint.allowPrivateTargets = true
        try await check.check(endpoint)
        try await check.check(WebhookEndpoint(id: "ep2", url: "https://hooks.example.com/h", secret: "whsec_x", eventTypes: []))
    }
}
