import Foundation

#if canImport(Security)
    import Security
#endif

/// Where a ``StorefrontClient`` keeps its anonymous user between launches
/// (``StorefrontClient/Options/anonymousIdentityStore``). Losing it loses
/// what the anonymous user bought until sign-in, so it belongs where the
/// platform keeps secrets: ``KeychainAnonymousIdentityStore`` on Apple
/// platforms. ``FileAnonymousIdentityStore`` and
/// ``InMemoryAnonymousIdentityStore`` serve elsewhere and in tests.
///
/// The client calls it on its actor, one call at a time, and reads it once
/// per launch; calls should be quick.
public protocol AnonymousIdentityStore: Sendable {
    /// The stored identity; nil when there is none or it cannot be read.
    func load() -> AnonymousIdentity?
    /// Stores `identity`, replacing any other.
    func save(_ identity: AnonymousIdentity) throws
    /// Forgets the stored identity; nothing stored is no error.
    func remove() throws
}

extension StorefrontClient {
    /// The store ``Options/anonymousIdentityStore`` nil stands for: the
    /// keychain where it exists, else a file in `directory`, else memory.
    static func defaultAnonymousIdentityStore(baseURL: URL, directory: URL?) -> any AnonymousIdentityStore {
        #if canImport(Security)
            KeychainAnonymousIdentityStore(baseURL: baseURL)
        #else
            if let directory { FileAnonymousIdentityStore(directory: directory, baseURL: baseURL) } else { InMemoryAnonymousIdentityStore() }
        #endif
    }
}

/// Keeps the anonymous user in memory only: gone when the app quits. For
/// tests, previews, and apps that do not want it kept.
public final class InMemoryAnonymousIdentityStore: AnonymousIdentityStore, @unchecked Sendable {
    // @unchecked: `identity` is only touched under `lock` (Mutex needs iOS 18).
    private let lock = NSLock()
    private var identity: AnonymousIdentity?

    /// An empty store, or one holding `identity`.
    public init(_ identity: AnonymousIdentity? = nil) { self.identity = identity }

    /// The identity held, if any.
    public func load() -> AnonymousIdentity? { lock.withLock { identity } }

    /// Holds `identity`.
    public func save(_ identity: AnonymousIdentity) { lock.withLock { self.identity = identity } }

    /// Drops the identity.
    public func remove() { lock.withLock { identity = nil } }
}

/// Keeps the anonymous user in a JSON file readable by its owner only:
/// `storefront-anonymous-<16 hex of SHA-256(base URL)>.json` in `directory`
/// (one per server). The default where the keychain does not exist (Linux).
public struct FileAnonymousIdentityStore: AnonymousIdentityStore {
    /// The file.
    public let file: URL

    /// The store for the server at `baseURL`, in `directory` (created when missing).
    public init(directory: URL, baseURL: URL) {
        file = directory.appendingPathComponent("storefront-anonymous-\(SHA256.hex(baseURL.absoluteString).prefix(16)).json")
    }

    /// The stored identity, if the file is there and readable.
    public func load() -> AnonymousIdentity? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(AnonymousIdentity.self, from: data)
    }

    /// Writes the file (atomically), then makes it readable by its owner only (the token is a credential).
    public func save(_ identity: AnonymousIdentity) throws {
        let data = try JSONEncoder().encode(identity)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }

    /// Removes the file.
    public func remove() throws {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        try FileManager.default.removeItem(at: file)
    }
}

#if canImport(Security)
    /// Keeps the anonymous user in the keychain, as a generic password
    /// (service ``service``, account ``account``) holding the identity's
    /// JSON. Accessible after the first unlock, so a background refresh can
    /// read it; not limited to this device, so an encrypted backup restored
    /// to a new phone brings the anonymous user (and what they bought) along.
    public struct KeychainAnonymousIdentityStore: AnonymousIdentityStore {
        /// The item's service (`kSecAttrService`).
        public let service: String
        /// The item's account (`kSecAttrAccount`).
        public let account: String
        /// The keychain access group to share the item with app extensions; nil: the app's default.
        public let accessGroup: String?

        /// An item of your naming.
        public init(service: String = "StorefrontKit", account: String, accessGroup: String? = nil) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
        }

        /// The item for the server at `baseURL`: account `anonymous-<16 hex of SHA-256(base URL)>`.
        public init(baseURL: URL, accessGroup: String? = nil) {
            self.init(account: "anonymous-\(SHA256.hex(baseURL.absoluteString).prefix(16))", accessGroup: accessGroup)
        }

        /// What names the item.
        private var query: [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// The stored identity, if the item is there and readable.
        public func load() -> AnonymousIdentity? {
            var request = query
            request[kSecReturnData as String] = true
            request[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            guard SecItemCopyMatching(request as CFDictionary, &item) == errSecSuccess, let data = item as? Data else { return nil }
            return try? JSONDecoder().decode(AnonymousIdentity.self, from: data)
        }

        /// Updates the item, or adds it.
        public func save(_ identity: AnonymousIdentity) throws {
            let data = try JSONEncoder().encode(identity)
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            ]
            var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                let item = query.merging(attributes) { _, new in new }
                status = SecItemAdd(item as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw KeychainStatus(status: status, action: "save") }
        }

        /// Deletes the item.
        public func remove() throws {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainStatus(status: status, action: "remove") }
        }
    }

    /// A keychain call that failed, with its `OSStatus`.
    struct KeychainStatus: Error, CustomStringConvertible {
        var status: OSStatus
        var action: String

        var description: String { "the keychain could not \(action) the anonymous user (OSStatus \(status))" }
    }
#endif
