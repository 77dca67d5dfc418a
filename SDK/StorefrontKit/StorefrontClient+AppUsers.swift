import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension StorefrontClient {
    // MARK: - Signing in and out

    /// Whether the client acts for a Storefront anonymous user (started with
    /// ``AppUser/anonymous``, or after ``logOut()``) rather than a signed-in one.
    public var isAnonymous: Bool {
        if case .anonymous = appUser { true } else { false }
    }

    /// The anonymous user's id (`anon_<32 hex>`), e.g. for a support screen
    /// or to tag analytics; nil while the client is signed in, and until the
    /// first request that needs a token creates the anonymous user (or a
    /// kept one is read back). It changes when an expired one is replaced.
    public var anonymousAppUserID: String? {
        guard case .anonymous = appUser else { return nil }
        return keptAnonymousIdentity()?.appUserID
    }

    /// Signs the app's user in: the anonymous user's purchases move to them
    /// (`POST /api/users/alias`, with the user's token as the bearer and the
    /// anonymous token in the body), then the client acts for the signed-in
    /// user — the anonymous user's cached entitlements, status and checkouts
    /// are dropped as on any change of user, the anonymous user is forgotten
    /// (in ``Options/anonymousIdentityStore`` too), and the entitlements are
    /// refreshed so observers see what the user now has.
    ///
    /// ```swift
    /// let user = try await auth.signIn()
    /// try await storefront.logIn(appUserID: user.id) { try await auth.idToken() }
    /// ```
    ///
    /// Safe to call again after a failure: the server merges a pair once and
    /// answers `already_merged` after. On a client that is signed in
    /// already, it only switches to the new token provider.
    /// - Parameters:
    ///   - appUserID: the signed-in user's id, the `sub` of their tokens.
    ///     When the token provider's token says another `sub` (a token of the
    ///     previous user still cached by the app), nothing is merged and
    ///     ``StorefrontError/unauthorized(message:)`` is thrown, so no
    ///     purchase goes to the wrong account.
    ///   - tokenProvider: the signed-in user's tokens from now on, as in ``init(baseURL:session:options:tokenProvider:)``.
    /// - Returns: what became of the anonymous user's purchases; the client is signed in whichever it is.
    /// - Throws: the token provider's failure, a network or server error
    ///   (400 when the anonymous token is not one the server accepts; 400
    ///   `not_signed_in` when `tokenProvider` returned an anonymous token);
    ///   the client then stays as it was.
    @discardableResult
    public func logIn(appUserID: String, tokenProvider: @escaping TokenProvider) async throws(StorefrontError) -> LogInOutcome {
        let token = try await providedToken(tokenProvider)
        if let subject = TokenSubject.of(token), subject != appUserID {
            let failure = StorefrontError.unauthorized(message: "The token provider's token is for another user than the one signing in")
            log(.error, "log in: \(failure)")
            throw failure
        }
        var outcome = LogInOutcome.nothingToMerge
        if case .anonymous = appUser, keptAnonymousIdentity() == nil, let creation = anonymousCreation {
            // A request is creating the anonymous user (and may buy as it): merge that one.
            _ = await creation.value
        }
        if case .anonymous = appUser, let anonymous = keptAnonymousIdentity() {
            remember(token: anonymous.token)
            let body = try Self.encode(AliasRequestBody(anonymousToken: anonymous.token))
            let reply = try await send("POST", "api/users/alias", body: body, bearer: token, accepting: [409])
            do throws(StorefrontError) {
                outcome = try Self.logInOutcome(status: reply.response.statusCode, data: reply.data)
            } catch {
                log(.warning, "POST /api/users/alias failed: \(error)")
                throw error
            }
        }
        log(.info, "logged in: the anonymous user's purchases: \(outcome)")
        appUser = .signedIn(tokenProvider)
        forgetAnonymousIdentity()
        adoptOwner(of: token)
        await refresh(reason: "logged in")
        return outcome
    }

    /// `POST /api/users/alias`'s answer as an outcome; a 409 counts only with
    /// the code `already_merged_elsewhere`.
    static func logInOutcome(status: Int, data: Data) throws(StorefrontError) -> LogInOutcome {
        switch status {
        case 200..<300:
            let answer = try decode(AliasAnswer.self, data, what: "alias")
            switch answer.outcome {
            case "merged": return .merged
            case "already_merged": return .alreadyMerged
            default: throw .invalidResponse(message: "The alias answer could not be read: outcome \(answer.outcome ?? "missing")")
            }
        case 409 where (try? JSONDecoder().decode(AliasAnswer.self, from: data))?.code == "already_merged_elsewhere":
            return .alreadyMergedElsewhere
        default:
            throw StorefrontError.from(status: status, body: data, retryAfter: nil)
        }
    }

    /// Signs the app's user out and makes the client anonymous again: what
    /// ``reset()`` does (caches dropped, observers told nobody is signed in),
    /// and the next request that needs a token creates a new anonymous
    /// user. The purchases stay with the signed-in user. On a client that is
    /// anonymous already it is ``reset()`` alone: the anonymous user, and what
    /// they bought, are kept.
    public func logOut() {
        if case .signedIn = appUser {
            appUser = .anonymous
            forgetAnonymousIdentity()
        }
        reset()
    }

    // MARK: - The anonymous user

    /// How long before its expiry an anonymous token is replaced: a request
    /// must not leave with a token that lapses on its way.
    static let anonymousRenewalMargin: Duration = .seconds(60)

    /// The anonymous user in memory, else the one in the store (read once).
    func keptAnonymousIdentity() -> AnonymousIdentity? {
        if anonymousIdentity == nil, !anonymousStoreRead {
            anonymousStoreRead = true
            anonymousIdentity = anonymousStore.load()
        }
        return anonymousIdentity
    }

    /// The anonymous user to send requests as: the kept one, or a new one
    /// (`POST /api/anonymous`) when none is kept or it expired (by
    /// ``Options/clock``). Concurrent callers share one creation.
    func currentAnonymousIdentity() async throws(StorefrontError) -> AnonymousIdentity {
        if let identity = keptAnonymousIdentity(), !identity.isExpired(at: options.clock.now, margin: Self.anonymousRenewalMargin) {
            return identity
        }
        let creation: Task<Result<AnonymousIdentity, StorefrontError>, Never>
        if let running = anonymousCreation {
            creation = running
        } else {
            let generation = anonymousGeneration
            creation = Task { await self.createAnonymousIdentity(generation: generation) }
            anonymousCreation = creation
        }
        switch await creation.value {
        case .success(let identity): return identity
        case .failure(let error): throw error
        }
    }

    /// `POST /api/anonymous` (no token), kept in memory and in the store
    /// unless the anonymous user was forgotten meanwhile (signed in or out).
    private func createAnonymousIdentity(generation: Int) async -> Result<AnonymousIdentity, StorefrontError> {
        let result: Result<AnonymousIdentity, StorefrontError>
        do throws(StorefrontError) {
            let reply = try await send("POST", "api/anonymous", authenticated: false)
            result = .success(try decode(AnonymousIdentity.self, reply.data, what: "anonymous user"))
        } catch {
            result = .failure(error)
        }
        guard generation == anonymousGeneration else { return result }
        anonymousCreation = nil
        if case .success(let identity) = result {
            let replaced = anonymousIdentity != nil
            anonymousIdentity = identity
            anonymousStoreRead = true
            remember(token: identity.token)
            log(.info, replaced ? "a new anonymous user replaced the expired one" : "an anonymous user was created")
            do {
                try anonymousStore.save(identity)
            } catch {
                log(.warning, "the anonymous user could not be kept (it lasts until the app quits): \(error)")
            }
        }
        return result
    }

    /// Forgets the anonymous user, in memory and in the store; a creation
    /// under way is not kept.
    func forgetAnonymousIdentity() {
        anonymousGeneration += 1
        anonymousCreation = nil
        anonymousIdentity = nil
        anonymousStoreRead = true
        do {
            try anonymousStore.remove()
        } catch {
            log(.warning, "the kept anonymous user could not be removed: \(error)")
        }
    }
}
