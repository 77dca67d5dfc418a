import Foundation

/// The last entitlements answer per user, on disk, so a paying user who
/// opens the app offline is still let in.
///
/// One JSON file per server and user:
/// `storefront-entitlements-<16 hex of SHA-256(base URL)>-<32 hex of the user key>.json`,
/// where the user key is the SHA-256 of the token's `sub`. The file holds the
/// full user key (checked on reading), the time of the answer and the list;
/// never the token, never the user id. Only one user's file is kept per
/// server: establishing a user removes every other user's (the client does).
/// Failures to read or write are ignored (and logged by the client): the
/// cache only saves a request.
struct EntitlementDiskCache: Sendable {
    let directory: URL
    /// `storefront-entitlements-<server hash>-`.
    let prefix: String

    init(directory: URL, baseURL: URL) {
        self.directory = directory
        prefix = "storefront-entitlements-\(SHA256.hex(baseURL.absoluteString).prefix(16))-"
    }

    /// The key a user's answers are filed under: the SHA-256 of their id.
    static func userKey(subject: String) -> String { SHA256.hex("storefront-user:" + subject) }

    func file(for userKey: String) -> URL {
        directory.appendingPathComponent("\(prefix)\(userKey.prefix(32)).json")
    }

    /// The answer stored for `userKey`, if its file is there, readable and that user's.
    func load(userKey: String) -> CachedEntitlements? {
        read(file(for: userKey)).flatMap { $0.userKey == userKey ? $0 : nil }
    }

    /// The one user's answer stored for this server, when exactly one is:
    /// who was signed in last (``StorefrontClient/reset()`` removes it on sign-out).
    func loadOnly() -> CachedEntitlements? {
        let files = storedFiles()
        guard files.count == 1, let entry = read(files[0]), let key = entry.userKey, file(for: key).lastPathComponent == files[0].lastPathComponent
        else { return nil }
        return entry
    }

    /// Writes `entry` (which must have a user key). Returns the error, if any.
    @discardableResult
    func save(_ entry: CachedEntitlements) -> (any Error)? {
        guard let key = entry.userKey else { return nil }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let data = try encoder.encode(entry)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: file(for: key), options: .atomic)
            return nil
        } catch {
            return error
        }
    }

    /// Removes this server's files of every user but `userKey` (all when nil).
    func removeAll(except userKey: String? = nil) {
        let keep = userKey.map { file(for: $0).lastPathComponent }
        for file in storedFiles() where file.lastPathComponent != keep {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// This server's entitlement files.
    func storedFiles() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0) }
    }

    private func read(_ file: URL) -> CachedEntitlements? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(CachedEntitlements.self, from: data)
    }
}
