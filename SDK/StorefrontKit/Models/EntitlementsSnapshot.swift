import Foundation

/// The user's entitlements as one answer gave them: the list, where it came
/// from (the server or the cache), when the server said it and how old it is,
/// and, for a cached answer standing in for a failed request, that failure.
/// The answer of ``StorefrontClient/entitlementsSnapshot(fetchPolicy:)`` and of
/// ``StorefrontClient/entitlementSnapshots()``.
///
/// ```swift
/// let snapshot = try await storefront.entitlementsSnapshot()
/// if snapshot.isActive("premium") { unlock() } else { showPaywall() }
/// if snapshot.isFromCache { banner("Offline — purchases as of \(snapshot.fetchedAt.formatted())") }
/// ```
///
/// ## Cached answers
/// A cached answer younger than ``StorefrontClient/Options/entitlementsLifetime``
/// (30 s) is the server's, `is_active` as it said. An older one (``isStale``:
/// an answer read from disk after a relaunch, or served because the server
/// could not be reached) is re-evaluated conservatively: an entitlement
/// grants only when the server said `is_active` **and** its `expires_at` is
/// nil (lifetime) or still ahead of the later of the device's clock and the
/// time the server answered. The server keeps a renewing subscription active
/// for a renewal grace after its period end (its `ENTITLEMENT_RENEWAL_GRACE`,
/// while it waits for news of the charge); the cache never extends that
/// grace, so a cached entitlement whose `expires_at` passed does not grant
/// until the server says so again. A cached answer never grants more than
/// the server said.
public struct EntitlementsSnapshot: Hashable, Sendable {
    /// Where an answer came from.
    public enum Source: Hashable, Sendable {
        /// The server answered this request.
        case server
        /// The client's cache (memory or disk) answered.
        case cache
        /// No answer: no user is signed in (after ``StorefrontClient/reset()``
        /// or a change of user), or nothing could be loaded and nothing is
        /// cached (then ``EntitlementsSnapshot/error`` says why).
        case unknown
    }

    /// Every entitlement the user holds or held, active first, with
    /// ``EntitlementInfo/isActive`` as it stands now (see "Cached answers").
    public var entitlements: [EntitlementInfo]
    /// Where this answer came from.
    public var source: Source
    /// When the server gave the answer (the device's clock at the time).
    public var fetchedAt: Date
    /// How old the answer was when it was served.
    public var age: Duration
    /// Older than ``StorefrontClient/Options/entitlementsLifetime``, so
    /// re-evaluated against `expires_at` rather than taken as the server's.
    public var isStale: Bool
    /// For a cached answer that stands in for a failed request: the failure
    /// (offline, timed out, provider unavailable…). Nil otherwise.
    public var error: StorefrontError?

    /// Creates a snapshot, e.g. for previews and tests.
    public init(
        entitlements: [EntitlementInfo], source: Source, fetchedAt: Date, age: Duration = .zero, isStale: Bool = false,
        error: StorefrontError? = nil
    ) {
        self.entitlements = entitlements
        self.source = source
        self.fetchedAt = fetchedAt
        self.age = age
        self.isStale = isStale
        self.error = error
    }

    /// Whether the cache answered (``source`` is ``Source/cache``).
    public var isFromCache: Bool { source == .cache }
    /// The entitlements that grant access.
    public var active: [EntitlementInfo] { entitlements.active }
    /// Whether the entitlement named `identifier` grants access.
    public func isActive(_ identifier: String) -> Bool { entitlements.isActive(identifier) }
    /// The entitlement named `identifier`, if the user holds or held it.
    public subscript(identifier: String) -> EntitlementInfo? { entitlements.first { $0.identifier == identifier } }

    /// The snapshot of no one (signed out).
    static func nobody(at now: Date) -> EntitlementsSnapshot {
        EntitlementsSnapshot(entitlements: [], source: .unknown, fetchedAt: now)
    }
}

/// The last entitlements answer the server gave for one user, as kept in
/// memory and on disk: the list exactly as the server said it.
struct CachedEntitlements: Codable, Hashable, Sendable {
    /// The SHA-256 of the user's id (the token's `sub`); nil when the token
    /// had none (such an answer is kept in memory only).
    var userKey: String?
    /// The device's clock when the answer arrived.
    var fetchedAt: Date
    /// The server's clock (its `Date` header), if it sent one.
    var serverDate: Date?
    /// The list as the server sent it.
    var entitlements: [EntitlementInfo]

    enum CodingKeys: String, CodingKey {
        case userKey = "user_key", fetchedAt = "fetched_at", serverDate = "server_date", entitlements
    }

    init(userKey: String?, fetchedAt: Date, serverDate: Date?, entitlements: [EntitlementInfo]) {
        self.userKey = userKey
        self.fetchedAt = fetchedAt
        self.serverDate = serverDate
        self.entitlements = entitlements
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        userKey = try c.decodeIfPresent(String.self, forKey: .userKey)
        fetchedAt = try c.decodeRequiredDate(forKey: .fetchedAt)
        serverDate = try c.decodeDate(forKey: .serverDate)
        entitlements = try c.decode([EntitlementInfo].self, forKey: .entitlements)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userKey, forKey: .userKey)
        try c.encodeDate(fetchedAt, forKey: .fetchedAt)
        try c.encodeDate(serverDate, forKey: .serverDate)
        try c.encode(entitlements, forKey: .entitlements)
    }

    /// How old the answer is at `now`; negative when the device's clock went back.
    func age(at now: Date) -> TimeInterval { now.timeIntervalSince(fetchedAt) }

    /// Younger than `lifetime` at `now` (a clock that went back makes it stale).
    func isFresh(at now: Date, lifetime: Duration) -> Bool {
        let age = age(at: now)
        return age >= 0 && age < lifetime.timeInterval
    }

    /// The answer as it stands at `now` (see ``EntitlementsSnapshot``, "Cached answers").
    func snapshot(at now: Date, lifetime: Duration, source: EntitlementsSnapshot.Source, error: StorefrontError? = nil) -> EntitlementsSnapshot {
        let fresh = isFresh(at: now, lifetime: lifetime)
        let list = fresh ? entitlements : Self.reevaluated(entitlements, at: referenceTime(now: now))
        return EntitlementsSnapshot(
            entitlements: list, source: source, fetchedAt: fetchedAt, age: .seconds(max(0, age(at: now))), isStale: !fresh, error: error)
    }

    /// The instant a stale answer is judged at: the latest of the device's
    /// clock, the time it was fetched and the server's clock then, so winding
    /// the device's clock back does not bring an entitlement back to life.
    func referenceTime(now: Date) -> Date {
        max(now, fetchedAt, serverDate ?? .distantPast)
    }

    /// `list` with every entitlement whose `expires_at` is not after
    /// `reference` inactive (and not renewing), active ones still first.
    static func reevaluated(_ list: [EntitlementInfo], at reference: Date) -> [EntitlementInfo] {
        let judged = list.map { entitlement in
            guard entitlement.isActive, let expiresAt = entitlement.expiresAt, expiresAt <= reference else { return entitlement }
            var ended = entitlement
            ended.isActive = false
            ended.willRenew = false
            return ended
        }
        return judged.filter(\.isActive) + judged.filter { !$0.isActive }
    }
}
