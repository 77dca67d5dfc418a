import CheckoutService
import Foundation
import Synchronization
import Testing

@testable import StorefrontCLI

/// `storefront api-keys create --scope … --expires-in …` over a store in memory
/// (`APIKeysCommandTests` runs the command against PostgreSQL).
@Suite struct APIKeysCreateTests {
    final class MemoryKeyStore: APIKeyStore {
        let records = Mutex<[APIKeyRecord]>([])
        func insert(_ record: APIKeyRecord) async throws { records.withLock { $0.append(record) } }
        func find(keyID: String) async throws -> APIKeyRecord? { records.withLock { $0.first { $0.keyID == keyID } } }
        func list() async throws -> [APIKeyRecord] { records.withLock { $0 } }
        func revoke(keyID: String, at date: Date) async throws -> Bool { false }
        func markUsed(keyID: String, at date: Date) async throws {}
    }

    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func callAsFunction(_ line: String) { lines.withLock { $0.append(line) } }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func create(_ options: [String], store: MemoryKeyStore, mode: DeploymentMode = .test) async throws -> [String] {
        let output = Lines()
        try await APIKeysCommand.perform(
            try CommandLineArguments(["api-keys", "create", "--name", "backend"] + options), store: store, mode: mode, now: now
        ) { output($0) }
        return output.lines.withLock { $0 }
    }

    @Test func expiresInSetsTheExpiryAndListShowsIt() async throws {
        let store = MemoryKeyStore()
        let lines = try await Self.create(["--scope", "entitlements:read", "--expires-in", "90d"], store: store)
        let record = try #require(try await store.list().first)
        #expect(record.expiresAt == Self.now.addingTimeInterval(90 * 86_400))
        #expect(lines[1].contains("expires 2027-04-15T"), "\(lines)")
        #expect(APIKeysCommand.line(record).contains("expires=2027-04-15T"))
        #expect(record.isExpired(at: Self.now.addingTimeInterval(90 * 86_400)) && !record.isExpired(at: Self.now.addingTimeInterval(89 * 86_400)))

        _ = try await Self.create(["--scope", "entitlements:read", "--expires-in", "12h"], store: store)
        #expect(try await store.list().last?.expiresAt == Self.now.addingTimeInterval(12 * 3600))
        _ = try await Self.create(["--scope", "entitlements:read"], store: store)
        let forever = try #require(try await store.list().last)
        #expect(forever.expiresAt == nil && APIKeysCommand.line(forever).contains("expires=never"))
    }

    @Test func badLifetimesAreRefusedBeforeAnythingIsStored() async throws {
        let store = MemoryKeyStore()
        for lifetime in ["90", "0d", "-1d", "1.5d", "3651d", "d", "90 days", "true"] {
            await #expect(throws: CommandLineArguments.UsageError.self, "\(lifetime)") {
                _ = try await Self.create(["--scope", "entitlements:read", "--expires-in", lifetime], store: store)
            }
        }
        #expect(try await store.list().isEmpty)
    }

    @Test func theManageScopeIsKnownAndTheKeyFollowsTheMode() async throws {
        let store = MemoryKeyStore()
        let lines = try await Self.create(["--scope", "subscriptions:manage,entitlements:read"], store: store, mode: .live)
        #expect(lines[0].hasPrefix("sfk_live_") && lines[1].contains("scopes entitlements:read,subscriptions:manage"))
        #expect(try await store.list().first?.scopes == [.entitlementsRead, .subscriptionsManage])
    }
}
