import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import StorefrontKit

/// The anonymous user a client acts for before sign-in (issue 33): created
/// once, kept, replaced after expiry, merged at `logIn` and forgotten, over
/// the `URLProtocol` stub with answers shaped as docs/web-first-contract.md says.
enum WebFirstFixtures {
    /// The n-th anonymous user's id (`anon_` and 32 hex).
    static func anonymousID(_ n: Int) -> String { "anon_" + String(repeating: String(n % 10), count: 32) }

    /// `POST /api/anonymous`'s answer for the n-th anonymous user.
    static func anonymous(_ n: Int, expiresAt: Date) -> String {
        let id = anonymousID(n)
        return #"{"success":true,"appUserId":"\#(id)","token":"\#(StubServer.jwt(subject: id))","expiresAt":"\#(WireDate.format(expiresAt))"}"#
    }

    static func alias(_ outcome: String) -> String { #"{"success":true,"outcome":"\#(outcome)","appUserId":"user-1"}"# }
}

/// An ``AnonymousIdentityStore`` that counts what the client asks of it.
final class RecordingIdentityStore: AnonymousIdentityStore {
    private let state = Mutex<(identity: AnonymousIdentity?, loads: Int, saves: Int, removes: Int)>((nil, 0, 0, 0))

    init(_ identity: AnonymousIdentity? = nil) { state.withLock { $0.identity = identity } }

    var identity: AnonymousIdentity? { state.withLock { $0.identity } }
    var loads: Int { state.withLock { $0.loads } }
    var saves: Int { state.withLock { $0.saves } }
    var removes: Int { state.withLock { $0.removes } }

    func load() -> AnonymousIdentity? {
        state.withLock { state in
            state.loads += 1
            return state.identity
        }
    }

    func save(_ identity: AnonymousIdentity) {
        state.withLock { state in
            state.saves += 1
            state.identity = identity
        }
    }

    func remove() {
        state.withLock { state in
            state.removes += 1
            state.identity = nil
        }
    }
}

extension StubServer {
    /// A client on this stub that starts anonymous, keeping its anonymous user in `store`.
    func anonymousClient(
        store: any AnonymousIdentityStore, clock: any StorefrontClock = .system, entitlementsDirectory: URL? = StubServer.temporaryFolder(),
        logs: Recorder<String>? = nil
    ) -> StorefrontClient {
        var options = StubServer.fastOptions(entitlementsDirectory: entitlementsDirectory, clock: clock)
        options.anonymousIdentityStore = store
        if let logs {
            options.logLevel = .debug
            options.logHandler = { _, message in logs.append(message) }
        }
        return StorefrontClient(baseURL: baseURL, session: Self.session(), options: options, appUser: .anonymous)
    }

    func requests(to path: String) -> [RecordedRequest] { requests.filter { $0.url.path == path } }
}

@Suite struct AnonymousUserTests {
    @Test func createdOnceAndReusedAcrossCallsAndLaunches() async throws {
        let created = Mutex(0)
        let stub = StubServer { request, _ in
            if request.url.path == "/api/subscription/status" { return .json(200, Fixtures.noStatus) }
            guard request.url.path == "/api/anonymous" else { return .json(200, Fixtures.entitlements([])) }
            let n = created.withLock { count -> Int in
                count += 1
                return count
            }
            // Slow enough that the three calls below all wait on this one.
            return .delayed(seconds: 0.2, .json(200, WebFirstFixtures.anonymous(n, expiresAt: Date().addingTimeInterval(3600))))
        }
        defer { stub.unregister() }
        let store = RecordingIdentityStore()
        let logs = Recorder<String>()
        let client = stub.anonymousClient(store: store, logs: logs)
        #expect(await client.isAnonymous)
        #expect(await client.anonymousAppUserID == nil, "none until a request needs one")
        async let first = client.entitlements(cachePolicy: .reload)
        async let second = client.entitlements(cachePolicy: .reload)
        async let third = client.status(cachePolicy: .reload)
        _ = try await (first, second, third)
        #expect(stub.requests(to: "/api/anonymous").count == 1, "concurrent requests share one creation")
        let anonymous = try #require(stub.requests(to: "/api/anonymous").first)
        #expect(anonymous.method == "POST" && anonymous.header("Authorization") == nil)
        let token = StubServer.jwt(subject: WebFirstFixtures.anonymousID(1))
        #expect(stub.requests.filter { $0.url.path != "/api/anonymous" }.allSatisfy { $0.header("Authorization") == "Bearer \(token)" })
        #expect(await client.anonymousAppUserID == WebFirstFixtures.anonymousID(1))
        #expect(store.saves == 1 && store.identity?.token == token)
        #expect(!logs.all.contains { $0.contains("anon_") || $0.contains(token) }, "no id and no token in the log: \(logs.all)")

        // The app launched again: the kept user, no new one.
        let relaunched = stub.anonymousClient(store: store)
        _ = try await relaunched.entitlements(cachePolicy: .reload)
        #expect(stub.requests(to: "/api/anonymous").count == 1)
        #expect(stub.requests.last?.header("Authorization") == "Bearer \(token)")
        #expect(await relaunched.anonymousAppUserID == WebFirstFixtures.anonymousID(1))
    }

    @Test func anExpiredOneIsReplaced() async throws {
        let clock = ManualClock()
        let created = Mutex(0)
        let stub = StubServer { request, _ in
            guard request.url.path == "/api/anonymous" else { return .json(200, Fixtures.entitlements([])) }
            let n = created.withLock { count -> Int in
                count += 1
                return count
            }
            return .json(200, WebFirstFixtures.anonymous(n, expiresAt: clock.now.addingTimeInterval(3600)))
        }
        defer { stub.unregister() }
        let store = RecordingIdentityStore()
        let client = stub.anonymousClient(store: store, clock: clock)
        _ = try await client.entitlements(cachePolicy: .reload)
        clock.advance(by: .seconds(3000))
        _ = try await client.entitlements(cachePolicy: .reload)
        #expect(stub.requests(to: "/api/anonymous").count == 1, "still valid after 50 minutes")
        clock.advance(by: .seconds(560))
        _ = try await client.entitlements(cachePolicy: .reload)
        #expect(stub.requests(to: "/api/anonymous").count == 2, "replaced within a minute of its expiry")
        #expect(await client.anonymousAppUserID == WebFirstFixtures.anonymousID(2))
        #expect(store.identity?.appUserID == WebFirstFixtures.anonymousID(2))
        #expect(stub.requests.last?.header("Authorization") == "Bearer \(StubServer.jwt(subject: WebFirstFixtures.anonymousID(2)))")

        // One kept past its expiry is not sent either.
        let stale = RecordingIdentityStore(
            AnonymousIdentity(appUserID: "anon_old", token: StubServer.jwt(subject: "anon_old"), expiresAt: clock.now.addingTimeInterval(-1)))
        _ = try await stub.anonymousClient(store: stale, clock: clock).entitlements(cachePolicy: .reload)
        #expect(stub.requests(to: "/api/anonymous").count == 3)
        #expect(stale.identity?.appUserID == WebFirstFixtures.anonymousID(3))
        #expect(!stub.requests.contains { $0.header("Authorization") == "Bearer \(StubServer.jwt(subject: "anon_old"))" })
    }

    @Test func aFailedCreationIsThrownAndTriedAgain() async throws {
        let limited = Flag()
        limited.set(true)
        let stub = StubServer { request, _ in
            guard request.url.path == "/api/anonymous" else { return .json(200, Fixtures.entitlements([])) }
            return limited.isOn
                ? .json(429, #"{"success":false,"code":"rate_limited","error":"Too many anonymous users"}"#, headers: ["Retry-After": "5"])
                : .json(200, WebFirstFixtures.anonymous(1, expiresAt: Date().addingTimeInterval(3600)))
        }
        defer { stub.unregister() }
        let store = RecordingIdentityStore()
        let client = stub.anonymousClient(store: store)
        await #expect(throws: StorefrontError.server(status: 429, message: "Too many anonymous users")) {
            try await client.entitlements(cachePolicy: .reload)
        }
        #expect(store.saves == 0 && stub.requests(to: "/api/entitlements").isEmpty)
        limited.set(false)
        _ = try await client.entitlements(cachePolicy: .reload)
        #expect(stub.requests(to: "/api/anonymous").count == 2 && store.saves == 1)
    }

    @Test func theFileStoreKeepsOneUserPerServerReadableByItsOwnerOnly() throws {
        let folder = StubServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileAnonymousIdentityStore(directory: folder, baseURL: URL(string: "https://shop.example.com")!)
        let other = FileAnonymousIdentityStore(directory: folder, baseURL: URL(string: "https://other.example.com")!)
        #expect(store.load() == nil)
        let identity = AnonymousIdentity(appUserID: "anon_1", token: "secret.token.value", expiresAt: WireDate.parse("2027-01-01T00:00:00.000Z")!)
        try store.save(identity)
        #expect(store.load() == identity && other.load() == nil)
        let permissions = try FileManager.default.attributesOfItem(atPath: store.file.path)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
        try store.remove()
        try store.remove()
        #expect(store.load() == nil && files(in: folder).isEmpty)
        #expect(!identity.description.contains("secret"), "the token stays out of descriptions")
    }
}

@Suite struct LogInTests {
    /// A server for one anonymous user who signs in as `user-1`: the alias
    /// route answers `alias`, and `user-1` has `premium`.
    static func server(alias: StubAnswer = .json(200, WebFirstFixtures.alias("merged"))) -> StubServer {
        StubServer { request, _ in
            switch request.url.path {
            case "/api/anonymous": .json(200, WebFirstFixtures.anonymous(1, expiresAt: Date().addingTimeInterval(3600)))
            case "/api/users/alias": alias
            default:
                .json(
                    200,
                    Fixtures.entitlements(
                        request.header("Authorization") == "Bearer \(StubServer.jwt(subject: "user-1"))" ? [Fixtures.entitlement()] : []))
            }
        }
    }

    static let userToken: StorefrontClient.TokenProvider = { StubServer.jwt(subject: "user-1") }

    @Test func theAnonymousUserIsMergedThenTheClientActsForTheSignedInUser() async throws {
        let stub = Self.server()
        defer { stub.unregister() }
        let folder = StubServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = RecordingIdentityStore()
        let client = stub.anonymousClient(store: store, entitlementsDirectory: folder)
        #expect(try await client.entitlements().isEmpty)
        let anonymousToken = StubServer.jwt(subject: WebFirstFixtures.anonymousID(1))
        let disk = EntitlementDiskCache(directory: folder, baseURL: stub.baseURL)
        #expect(disk.load(userKey: EntitlementDiskCache.userKey(subject: WebFirstFixtures.anonymousID(1))) != nil)
        var updates = await client.entitlementUpdates().makeAsyncIterator()
        #expect(await updates.next() == [])

        #expect(try await client.logIn(appUserID: "user-1", tokenProvider: Self.userToken) == .merged)
        let alias = try #require(stub.requests(to: "/api/users/alias").first)
        #expect(alias.method == "POST" && alias.header("Authorization") == "Bearer \(StubServer.jwt(subject: "user-1"))")
        #expect(alias.json?["anonymousToken"] as? String == anonymousToken)

        // Signed in: the anonymous user is forgotten, its cache dropped, observers see the merged purchase.
        #expect(await !client.isAnonymous)
        #expect(await client.anonymousAppUserID == nil)
        #expect(store.identity == nil && store.removes == 1)
        #expect(await updates.next()?.isActive("premium") == true)
        #expect(disk.load(userKey: EntitlementDiskCache.userKey(subject: WebFirstFixtures.anonymousID(1))) == nil)
        #expect(disk.load(userKey: EntitlementDiskCache.userKey(subject: "user-1")) != nil)
        _ = try await client.entitlements(cachePolicy: .reload)
        #expect(stub.requests.last?.header("Authorization") == "Bearer \(StubServer.jwt(subject: "user-1"))")
        #expect(stub.requests(to: "/api/anonymous").count == 1)

        // Signing out makes it anonymous again, as a new anonymous user.
        await client.logOut()
        #expect(await client.isAnonymous)
        #expect(try await client.entitlements().isEmpty)
        #expect(stub.requests(to: "/api/anonymous").count == 2)
    }

    @Test func aRepeatedOrElsewhereMergeStillSignsIn() async throws {
        let again = Self.server(alias: .json(200, WebFirstFixtures.alias("already_merged")))
        defer { again.unregister() }
        let client = again.anonymousClient(store: RecordingIdentityStore())
        _ = try await client.entitlements()
        #expect(try await client.logIn(appUserID: "user-1", tokenProvider: Self.userToken) == .alreadyMerged)
        #expect(await !client.isAnonymous)

        let elsewhere = Self.server(
            alias: .json(409, #"{"success":false,"code":"already_merged_elsewhere","error":"That anonymous user went to another account"}"#))
        defer { elsewhere.unregister() }
        let store = RecordingIdentityStore()
        let other = elsewhere.anonymousClient(store: store)
        _ = try await other.entitlements()
        #expect(try await other.logIn(appUserID: "user-1", tokenProvider: Self.userToken) == .alreadyMergedElsewhere)
        #expect(await !other.isAnonymous && store.identity == nil)
        #expect(try await other.isEntitled(to: "premium"), "acting for the signed-in user")
    }

    @Test func aRefusedMergeLeavesTheClientAnonymous() async throws {
        let stub = Self.server(alias: .json(400, #"{"success":false,"code":"not_signed_in","error":"The bearer token is an anonymous token"}"#))
        defer { stub.unregister() }
        let store = RecordingIdentityStore()
        let client = stub.anonymousClient(store: store)
        _ = try await client.entitlements()
        await #expect(throws: StorefrontError.server(status: 400, message: "The bearer token is an anonymous token")) {
            try await client.logIn(appUserID: "user-1", tokenProvider: Self.userToken)
        }
        #expect(await client.isAnonymous)
        #expect(await client.anonymousAppUserID == WebFirstFixtures.anonymousID(1) && store.identity != nil)

        // A token for someone else than the user signing in: nothing is sent.
        let wrongUser = await #expect(throws: StorefrontError.self) {
            try await client.logIn(appUserID: "user-2", tokenProvider: Self.userToken)
        }
        guard case .unauthorized = wrongUser else {
            Issue.record("expected unauthorized, got \(String(describing: wrongUser))")
            return
        }
        #expect(stub.requests(to: "/api/users/alias").count == 1)
        #expect(await client.isAnonymous)
    }

    @Test func withNoAnonymousUserThereIsNothingToMerge() async throws {
        let stub = Self.server()
        defer { stub.unregister() }
        let client = stub.anonymousClient(store: RecordingIdentityStore())
        #expect(try await client.logIn(appUserID: "user-1", tokenProvider: Self.userToken) == .nothingToMerge)
        #expect(stub.requests(to: "/api/anonymous").isEmpty && stub.requests(to: "/api/users/alias").isEmpty)
        #expect(try await client.isEntitled(to: "premium"))

        // Signed in from the start: logIn switches the token provider, merging nothing.
        let signedIn = stub.client(token: { StubServer.jwt(subject: "user-0") })
        #expect(try await signedIn.logIn(appUserID: "user-1", tokenProvider: Self.userToken) == .nothingToMerge)
        #expect(await signedIn.anonymousAppUserID == nil)
        #expect(stub.requests(to: "/api/users/alias").isEmpty)
    }
}
