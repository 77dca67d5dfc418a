import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension StorefrontClient {
    // MARK: - Entitlements

    /// What the user may use (`GET /api/entitlements`), active entitlements
    /// first: the list of ``entitlementsSnapshot(fetchPolicy:)``.
    /// - Parameter cachePolicy: ``CachePolicy/returnCacheIfFresh`` (default)
    ///   is ``FetchPolicy/cachedOrFetched``: the cache while younger than
    ///   ``Options/entitlementsLifetime``, else the server, else — offline —
    ///   the last answer kept in memory or on disk, re-evaluated against
    ///   `expires_at`. ``CachePolicy/reload`` is ``FetchPolicy/fetchCurrent``.
    public func entitlements(cachePolicy: CachePolicy = .returnCacheIfFresh) async throws(StorefrontError) -> [EntitlementInfo] {
        try await entitlementsSnapshot(fetchPolicy: Self.fetchPolicy(cachePolicy)).entitlements
    }

    /// Whether the entitlement `identifier` (e.g. `premium`) is active; reads ``entitlements(cachePolicy:)``.
    public func isEntitled(to identifier: String, cachePolicy: CachePolicy = .returnCacheIfFresh) async throws(StorefrontError) -> Bool {
        try await entitlements(cachePolicy: cachePolicy).isActive(identifier)
    }

    /// The user's entitlements with where they came from and how old they are.
    ///
    /// With the default ``FetchPolicy/cachedOrFetched``, a paying user is let
    /// in offline: when the server cannot be reached, the last answer (kept
    /// on disk per user, across launches) answers, with
    /// ``EntitlementsSnapshot/isFromCache`` set, its ``EntitlementsSnapshot/age``
    /// and the failure in ``EntitlementsSnapshot/error``; an entitlement whose
    /// `expires_at` passed does not grant from the cache (see
    /// ``EntitlementsSnapshot``, "Cached answers"). Every answer is also
    /// published to ``entitlementSnapshots()`` and ``entitlementUpdates()``.
    /// - Throws: what the request threw when nothing is cached (or for a 401
    ///   or 403); ``StorefrontError/notFound(message:)`` for
    ///   ``FetchPolicy/fromCacheOnly`` with nothing cached.
    public func entitlementsSnapshot(fetchPolicy: FetchPolicy = .cachedOrFetched) async throws(StorefrontError) -> EntitlementsSnapshot {
        switch fetchPolicy {
        case .fetchCurrent:
            return try await fetchEntitlements()
        case .fromCacheOnly:
            do throws(StorefrontError) {
                _ = try await currentToken() // whose cache: another user's token drops it
            } catch {
                guard Self.cacheAnswers(after: error) else { throw error }
            }
            guard let entry = cachedEntitlements() else {
                throw .notFound(message: "No entitlements are cached for the signed-in user")
            }
            let snapshot = entry.snapshot(at: options.clock.now, lifetime: options.entitlementsLifetime, source: .cache)
            publish(snapshot)
            return snapshot
        case .cachedOrFetched:
            do throws(StorefrontError) {
                _ = try await currentToken()
            } catch {
                return try answerFromCache(after: error)
            }
            let now = options.clock.now
            if !entitlementsNeedReload, let entry = entitlementsEntry, entry.isFresh(at: now, lifetime: options.entitlementsLifetime) {
                log(.debug, "entitlements: answered from the cache (\(Int(entry.age(at: now))) s old)")
                let snapshot = entry.snapshot(at: now, lifetime: options.entitlementsLifetime, source: .cache)
                publish(snapshot)
                return snapshot
            }
            return try await fetchOrCached()
        }
    }

    static func fetchPolicy(_ cachePolicy: CachePolicy) -> FetchPolicy {
        cachePolicy == .reload ? .fetchCurrent : .cachedOrFetched
    }

    /// The server's answer, stored and published.
    func fetchEntitlements() async throws(StorefrontError) -> EntitlementsSnapshot {
        let reply = try await send("GET", "api/entitlements")
        let list = try decode(EntitlementsBody.self, reply.data, what: "entitlements").entitlements
        let entry = store(entitlements: list, reply: reply)
        return entry.snapshot(at: options.clock.now, lifetime: options.entitlementsLifetime, source: .server)
    }

    /// The server's answer, or the cache's when the server cannot be reached.
    func fetchOrCached() async throws(StorefrontError) -> EntitlementsSnapshot {
        do throws(StorefrontError) {
            return try await fetchEntitlements()
        } catch {
            return try answerFromCache(after: error)
        }
    }

    /// The cached answer standing in for a failed request; the failure when
    /// it is not one a cache may paper over, or nothing is cached.
    func answerFromCache(after error: StorefrontError) throws(StorefrontError) -> EntitlementsSnapshot {
        guard Self.cacheAnswers(after: error), let entry = cachedEntitlements() else { throw error }
        let snapshot = entry.snapshot(at: options.clock.now, lifetime: options.entitlementsLifetime, source: .cache, error: error)
        log(
            .info,
            "entitlements: answered from the cache (\(Int(snapshot.age.timeInterval)) s old\(snapshot.isStale ? ", judged by expires_at" : "")) after: \(error)"
        )
        publish(snapshot)
        return snapshot
    }

    /// Failures after which a cached answer may stand in: the server was not
    /// reached, could not serve (5xx, 429, 408) or sent something unreadable
    /// (a captive portal's page). Not a 401 or 403, which say something about
    /// the user, nor a cancellation.
    static func cacheAnswers(after error: StorefrontError) -> Bool {
        switch error {
        case .network, .providerUnavailable, .invalidResponse: true
        case .server(let status, _): status >= 500 || status == 429 || status == 408
        case .unauthorized, .forbidden, .notFound, .cancelled: false
        }
    }

    /// The signed-in user's last answer: in memory, else from disk. With no
    /// user known yet (the token provider failed offline at launch), the one
    /// user whose answer is on disk — the last one signed in, since
    /// ``reset()`` removes it on sign-out.
    func cachedEntitlements() -> CachedEntitlements? {
        if let entry = entitlementsEntry { return entry }
        guard let disk = entitlementsDisk else { return nil }
        let entry: CachedEntitlements?
        if owner == nil {
            entry = disk.loadOnly()
        } else if let ownerKey {
            entry = disk.load(userKey: ownerKey)
        } else {
            entry = nil // a token without `sub`: memory only
        }
        if let entry {
            log(.debug, "entitlements: read the cached answer from disk")
            entitlementsEntry = entry
        }
        return entry
    }

    /// After the owner changed: drops a cached answer of someone else, removes
    /// other users' files, and reads the owner's from disk.
    func adoptCache(announcingChange: Bool) {
        var changed = announcingChange
        if let entry = entitlementsEntry, entry.userKey != ownerKey || ownerKey == nil {
            entitlementsEntry = nil
            changed = true
        }
        entitlementsDisk?.removeAll(except: ownerKey)
        if entitlementsEntry == nil, let ownerKey, let entry = entitlementsDisk?.load(userKey: ownerKey) {
            entitlementsEntry = entry
        }
        if changed, publishedSnapshot != nil || published != nil {
            // Observers must not keep showing the previous user's entitlements.
            publish(
                entitlementsEntry?.snapshot(at: options.clock.now, lifetime: options.entitlementsLifetime, source: .cache)
                    ?? .nobody(at: options.clock.now))
        }
    }

    /// Keeps an answer (in memory and on disk) and publishes it, unless the
    /// user changed while it was on its way.
    @discardableResult
    func store(entitlements list: [EntitlementInfo], reply: Reply) -> CachedEntitlements {
        let entry = CachedEntitlements(
            userKey: ownerKey, fetchedAt: options.clock.now, serverDate: Self.serverDate(reply.response), entitlements: list)
        guard reply.generation == userGeneration else { return entry }
        entitlementsEntry = entry
        entitlementsNeedReload = false
        if entry.userKey != nil, let failure = entitlementsDisk?.save(entry) {
            log(.warning, "entitlements: could not write the cache file: \(failure.localizedDescription)")
        }
        publish(entry.snapshot(at: options.clock.now, lifetime: options.entitlementsLifetime, source: .server))
        return entry
    }

    // MARK: - Observing

    /// Every entitlement list that differs from the previous one, starting
    /// with the current list when one is known. Lists arrive from any call
    /// that reads them (``entitlements(cachePolicy:)``, ``status(cachePolicy:)``,
    /// ``awaitCheckout(_:timeout:)``, ``handleRedirect(_:)``), from a refresh
    /// every ``Options/refreshInterval`` while a stream is open, and when the
    /// app returns to the foreground. A slow reader sees the newest list.
    /// The stream ends when the task iterating it is cancelled.
    /// ``entitlementSnapshots()`` tells also where each list came from.
    public func entitlementUpdates() -> AsyncStream<[EntitlementInfo]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [EntitlementInfo].self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        if let published { continuation.yield(published) }
        observersChanged()
        return stream
    }

    /// Every ``EntitlementsSnapshot`` whose list differs from the previous
    /// one's, or that switches between a server answer and a cached one
    /// standing in for a failure (so the app can show "offline"). Starts with
    /// the current snapshot; when none is known, with the cached one (memory
    /// or disk) if there is one, then what ``FetchPolicy/cachedOrFetched``
    /// loads; when that fails with nothing cached, the first
    /// snapshot is an empty one with ``EntitlementsSnapshot/Source/unknown`` and
    /// the failure.
    ///
    /// While at least one stream (of these or ``entitlementUpdates()``) is
    /// open, the client refreshes every ``Options/refreshInterval`` (5
    /// minutes): offline, that re-evaluates the cached answer, so an
    /// entitlement ends on time. The stream ends when the task iterating it is cancelled.
    public func entitlementSnapshots() -> AsyncStream<EntitlementsSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: EntitlementsSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        snapshotObservers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        if let publishedSnapshot {
            continuation.yield(publishedSnapshot)
        } else {
            Task { [weak self] in await self?.loadFirstSnapshot() }
        }
        observersChanged()
        return stream
    }

    /// The cached answer at once when there is one (so a paying user is let
    /// in without waiting for a slow network), then the server's.
    private func loadFirstSnapshot() async {
        if publishedSnapshot == nil, owner != nil || entitlementsDisk != nil {
            _ = try? await entitlementsSnapshot(fetchPolicy: .fromCacheOnly)
        }
        do throws(StorefrontError) {
            _ = try await entitlementsSnapshot(fetchPolicy: .cachedOrFetched)
        } catch {
            log(.warning, "entitlements: no first answer for the stream: \(error)")
            if publishedSnapshot == nil {
                publish(EntitlementsSnapshot(entitlements: [], source: .unknown, fetchedAt: options.clock.now, error: error))
            }
        }
    }

    func removeObserver(_ id: UUID) {
        observers[id] = nil
        snapshotObservers[id] = nil
        observersChanged()
    }

    /// Starts the periodic refresh with the first stream and stops it with the last.
    private func observersChanged() {
        let observed = !observers.isEmpty || !snapshotObservers.isEmpty
        if observed, refreshTask == nil, let interval = options.refreshInterval {
            let clock = options.clock
            log(.debug, "entitlements: refreshing every \(interval) while observed")
            refreshTask = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: interval) } catch { return }
                    guard let self else { return }
                    await self.refresh(reason: "periodic refresh")
                }
            }
        } else if !observed, let task = refreshTask {
            task.cancel()
            refreshTask = nil
        }
        liveChangesNeeded()
    }

    /// Asks the server (the cache answering when it cannot be reached) and
    /// publishes; failures are logged, not thrown.
    func refresh(reason: String) async {
        log(.debug, "entitlements: \(reason)")
        do {
            _ = try await fetchOrCached()
        } catch {
            log(.warning, "entitlements: \(reason) failed: \(error)")
        }
    }

    /// Publishes `snapshot` to the streams that have not seen its like.
    func publish(_ snapshot: EntitlementsSnapshot) {
        let nothingKnownAfterFailure = snapshot.source == .unknown && snapshot.error != nil
        if !nothingKnownAfterFailure, published != snapshot.entitlements {
            published = snapshot.entitlements
            for observer in observers.values { observer.yield(snapshot.entitlements) }
        }
        if publishedSnapshot.map(Self.PublishKey.init) != Self.PublishKey(snapshot) {
            publishedSnapshot = snapshot
            for observer in snapshotObservers.values { observer.yield(snapshot) }
        }
    }

    /// What makes a snapshot news: its list, whether it stands in for a
    /// failure, whether anyone is signed in.
    struct PublishKey: Hashable {
        var entitlements: [EntitlementInfo]
        var afterFailure: Bool
        var nobody: Bool

        init(_ snapshot: EntitlementsSnapshot) {
            entitlements = snapshot.entitlements
            afterFailure = snapshot.error != nil
            nobody = snapshot.source == .unknown
        }
    }

    // MARK: - Foreground

    /// Call when the app returns to the foreground; on UIKit and AppKit
    /// platforms the client does it itself (``Options/refreshesOnForeground``).
    /// Cuts the pause of a running ``awaitCheckout(_:timeout:)`` short (the
    /// buyer may be back from the hosted page), and refreshes the
    /// entitlements when the cached answer is older than
    /// ``Options/entitlementsLifetime`` and someone is signed in or observing.
    public func applicationWillEnterForeground() async {
        wakeAll()
        let observed = !observers.isEmpty || !snapshotObservers.isEmpty
        guard owner != nil || entitlementsEntry != nil || observed else { return }
        if !entitlementsNeedReload, let entry = entitlementsEntry, entry.isFresh(at: options.clock.now, lifetime: options.entitlementsLifetime) {
            log(.debug, "entitlements: foreground, cache still fresh")
            return
        }
        await refresh(reason: "foreground refresh")
    }

    // MARK: - Logging

    /// Hands `message`, scrubbed of tokens, to the app's log hook.
    func log(_ level: StorefrontLogLevel, _ message: @autoclosure () -> String) {
        guard let handler = options.logHandler, level >= options.logLevel else { return }
        handler(level, LogRedactor.redact(message(), secrets: recentTokens))
    }
}
