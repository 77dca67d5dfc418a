import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension StorefrontClient {
    // MARK: - Redemption links

    /// Claims the purchase a redemption link names for the user the client
    /// acts for (`POST /api/redeem`): a buyer who paid on the web with no
    /// account opens `https://<host>/redeem/<token>` (the completion page's
    /// "Open in the app", or the email) and the purchase becomes theirs.
    /// An anonymous client redeems for its anonymous user, whose purchases
    /// move along at ``logIn(appUserID:tokenProvider:)``.
    ///
    /// After ``RedemptionOutcome/redeemed(_:)`` or
    /// ``RedemptionOutcome/alreadyYours(_:)`` the entitlements are refreshed
    /// before it returns, so observers see the new access (a failed refresh
    /// is logged, not thrown: the redemption happened).
    ///
    /// ```swift
    /// switch try await storefront.redeem(url) {
    /// case .redeemed, .alreadyYours: showThanks()
    /// case .belongsToAnotherUser: show("Sign in with the account that redeemed this purchase")
    /// case .expired: offerNewLink()               // POST /api/redeem/resend with the buyer's email
    /// case .unknown: show("This link is not valid")
    /// }
    /// ```
    /// - Parameter url: the link, `…/redeem/<token>`; any other URL answers
    ///   ``RedemptionOutcome/unknown`` without a request. Its host is not
    ///   checked (``handleUniversalLink(_:)`` does that for links the system hands the app).
    /// - Throws: 429 (guessing links is rate-limited; ``StorefrontError/isRetryable``)
    ///   as ``StorefrontError/server(status:message:)``, and the usual errors.
    public func redeem(_ url: URL) async throws(StorefrontError) -> RedemptionOutcome {
        guard let token = Self.redemptionToken(in: url) else {
            log(.info, "redeem: not a redemption link")
            return .unknown
        }
        return try await redeemToken(token)
    }

    /// ``redeem(_:)`` with the link's token, or the whole link as text (a
    /// buyer pasting it from the email). Blank text answers
    /// ``RedemptionOutcome/unknown`` without a request.
    public func redeem(token: String) async throws(StorefrontError) -> RedemptionOutcome {
        let text = token.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.contains("/") {
            guard let url = URL(string: text) else { return .unknown }
            return try await redeem(url)
        }
        guard !text.isEmpty else { return .unknown }
        return try await redeemToken(text)
    }

    /// The token of a link whose path ends `redeem/<token>`; nil for any other.
    static func redemptionToken(in url: URL) -> String? {
        let segments = url.path.split(separator: "/")
        guard segments.count >= 2, segments[segments.count - 2] == "redeem", let token = segments.last, !token.isEmpty else { return nil }
        return String(token)
    }

    func redeemToken(_ token: String) async throws(StorefrontError) -> RedemptionOutcome {
        try await redeem(body: RedeemRequestBody(token: token))
    }

    /// Redeems the purchase of an anonymous checkout by its id: what the
    /// completion page's universal link carries when it opens the app instead
    /// of the page (the page would show that checkout's link). While the
    /// purchase is not projected yet the server answers 202; this waits as it
    /// asks (`Retry-After`), at most `timeout`, then answers
    /// ``RedemptionOutcome/unknown``.
    public func redeem(checkoutID: String, timeout: Duration = .seconds(60)) async throws(StorefrontError) -> RedemptionOutcome {
        // Counted in asks, not read off a clock, so a test's manual clock bounds it too.
        let pause = Duration.seconds(2)
        var asksLeft = max(1, Int(timeout / pause))
        while true {
            if let outcome = try await redeem(body: RedeemRequestBody(checkoutID: checkoutID), pendingAllowed: true) { return outcome }
            asksLeft -= 1
            guard asksLeft > 0 else { return .unknown }
            do {
                try await options.clock.sleep(for: pause)
            } catch {
                throw .cancelled
            }
        }
    }

    private func redeem(body: RedeemRequestBody) async throws(StorefrontError) -> RedemptionOutcome {
        // Without pending allowed, a 202 is not an answer this call can give.
        guard let outcome = try await redeem(body: body, pendingAllowed: false) else {
            throw .invalidResponse(message: "The server answered a redemption as pending")
        }
        return outcome
    }

    /// nil: pending (202), only when `pendingAllowed`.
    private func redeem(body: RedeemRequestBody, pendingAllowed: Bool) async throws(StorefrontError) -> RedemptionOutcome? {
        let body = try Self.encode(body)
        let reply = try await send("POST", "api/redeem", body: body, accepting: [404, 409, 410])
        if pendingAllowed, reply.response.statusCode == 202 { return nil }
        let outcome: RedemptionOutcome
        do throws(StorefrontError) {
            outcome = try Self.redemptionOutcome(
                status: reply.response.statusCode, data: reply.data, retryAfter: reply.response.value(forHTTPHeaderField: "Retry-After"))
        } catch {
            log(.warning, "POST /api/redeem failed: \(error)")
            throw error
        }
        log(.info, "redeem: \(outcome)")
        if outcome.purchase != nil {
            invalidateUserReads()
            await refresh(reason: "purchase redeemed")
        }
        return outcome
    }

    /// `POST /api/redeem`'s answer as an outcome. A 404 or 409 counts only
    /// with the contract's `outcome` (or `code`): a bare 404 is a server
    /// without the route, thrown as ``StorefrontError/notFound(message:)``.
    static func redemptionOutcome(status: Int, data: Data, retryAfter: String?) throws(StorefrontError) -> RedemptionOutcome {
        let failure = try? JSONDecoder().decode(RedeemAnswer.self, from: data)
        let word = failure?.outcome ?? failure?.code
        switch status {
        case 200..<300:
            let answer = try decode(RedeemAnswer.self, data, what: "redemption")
            switch (answer.outcome, answer.purchase) {
            case ("redeemed", let purchase?): return .redeemed(purchase)
            case ("already_yours", let purchase?): return .alreadyYours(purchase)
            default:
                let purchase = answer.purchase == nil ? "no purchase" : "a purchase"
                throw .invalidResponse(message: "The redemption answer could not be read: outcome \(answer.outcome ?? "missing") with \(purchase)")
            }
        case 409 where word == "belongs_to_another_user": return .belongsToAnotherUser
        case 410 where word == nil || word == "expired": return .expired
        case 404 where word == "unknown": return .unknown
        default: throw StorefrontError.from(status: status, body: data, retryAfter: retryAfter)
        }
    }

    // MARK: - Restoring purchases

    /// Claims the purchases paid with the signed-in user's verified email that
    /// have no owner yet — bought on the web before the user had an account,
    /// a lost redemption link — (`POST /api/restore`), and answers them with
    /// the entitlements afterwards, which replace the cached ones and reach
    /// observers. Never claims a purchase someone owns.
    /// - Throws: ``StorefrontError/unauthorized(message:)`` without a request
    ///   while the client is anonymous (the claim goes by the identity
    ///   provider's verified email); 429 as ``StorefrontError/server(status:message:)``.
    public func restorePurchases() async throws(StorefrontError) -> RestoreResult {
        guard case .signedIn = appUser else {
            throw .unauthorized(message: "Restoring purchases needs a signed-in user: they are found by the account's verified email")
        }
        let reply = try await send("POST", "api/restore")
        let answer = try decode(RestoreAnswer.self, reply.data, what: "restore")
        log(.info, "restore: \(answer.claimed.count) purchase(s) claimed")
        // The status cached before the claim no longer holds.
        invalidateUserReads()
        store(entitlements: answer.entitlements, reply: reply)
        return RestoreResult(claimed: answer.claimed, entitlements: answer.entitlements)
    }

    // MARK: - Universal links

    /// Handles a link the system opened the app with, when it is Storefront's:
    /// a redemption link (`https://<host>/redeem/<token>`) is redeemed
    /// (``redeem(_:)``), and the checkout's completion page
    /// (`https://<host>/checkout/complete?checkout_id=…`) is a return from a
    /// checkout (``handleRedirect(_:)``). Storefront's links are those on the
    /// host of ``baseURL`` (its path, if any, first); everything else —
    /// another host, another path, a custom scheme — answers nil at once, so
    /// the app's other handlers get it.
    ///
    /// ```swift
    /// .onOpenURL { url in
    ///     Task {
    ///         if let result = await storefront.handleUniversalLink(url) { show(result) }
    ///         else if !storefront.handleRedirect(url) { router.open(url) }
    ///     }
    /// }
    /// ```
    /// The host's `/.well-known/apple-app-site-association` lists both paths
    /// (the server serves it from `APPLE_APP_IDS`); the app adds
    /// `applinks:<host>` to its Associated Domains.
    /// - Returns: what was done, with a redemption's error inside the result; nil when the link is not Storefront's.
    public func handleUniversalLink(_ url: URL) async -> UniversalLinkResult? {
        guard let link = storefrontLink(url) else { return nil }
        switch link {
        case .redemption(let token):
            do throws(StorefrontError) {
                return .redemption(.success(try await redeemToken(token)))
            } catch {
                return .redemption(.failure(error))
            }
        case .checkoutComplete(let checkoutID):
            let isKnown = checkoutID.map { checkouts[$0] != nil || waiting.contains($0) } ?? false
            await checkoutReturned()
            // A checkout this app did not open here: a purchase on the web paywall, whose
            // completion page opened the app instead of showing its redemption link.
            if !isKnown, let checkoutID {
                do throws(StorefrontError) {
                    let outcome = try await redeem(checkoutID: checkoutID)
                    if outcome != .unknown { return .redemption(.success(outcome)) }
                } catch {
                    return .redemption(.failure(error))
                }
            }
            return .checkoutReturn(checkoutID: checkoutID, isKnown: isKnown)
        }
    }

    /// A link of Storefront's that the app handles.
    enum StorefrontLink: Hashable, Sendable {
        case redemption(token: String)
        case checkoutComplete(checkoutID: String?)
    }

    /// What `url` is, when it is on ``baseURL``'s host (any port, `http` or
    /// `https`) under its path: `redeem/<token>` or `checkout/complete`;
    /// nil for anything else.
    nonisolated func storefrontLink(_ url: URL) -> StorefrontLink? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host?.lowercased(), !host.isEmpty, host == baseURL.host?.lowercased()
        else { return nil }
        let root = baseURL.path.split(separator: "/")
        let segments = url.path.split(separator: "/")
        guard segments.starts(with: root) else { return nil }
        let route = segments.dropFirst(root.count).map(String.init)
        switch route.count {
        case 2 where route[0] == "redeem":
            return .redemption(token: route[1])
        case 2 where route == ["checkout", "complete"]:
            let checkoutID = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "checkout_id" }?.value.flatMap { $0.isEmpty ? nil : $0 }
            return .checkoutComplete(checkoutID: checkoutID)
        default:
            return nil
        }
    }
}
