import CheckoutService
import CryptoPrimitives
import Foundation
import ServiceRuntime
import ServiceSettings

/// `storefront dev-token --sub ID [--email E] [--ttl SECONDS] [--iss ISSUER]
/// [--aud AUDIENCE] [--email-verified [true|false]]`: mints an HS256 app-user
/// token with the configured `AUTH_JWT_SECRET` (or `_FILE`), for local
/// experiments. Without `--email` the token has no email claim (as from an
/// identity provider that signs users in by phone).
///
/// `iss` is `--iss`, else `AUTH_JWT_ISSUER`, else ``defaultIssuer``; `aud` is
/// `--aud`, else `AUTH_JWT_AUDIENCE`, else ``defaultAudience`` (the defaults
/// are what `scripts/stack.sh` configures, so tokens work against `make run`
/// and the end-to-end stacks). An empty `--iss=` / `--aud=` leaves the claim
/// out. `--email-verified` adds `email_verified: true` (without it the claim
/// is `false`, and the checkout does not use the email to link purchases).
///
/// With `STOREFRONT_MODE=live` it refuses to mint anything: whoever holds a
/// live deployment's HS256 secret could otherwise make a token for any user
/// of a shop that takes real money, and a live shop's tokens come from its
/// identity provider. The checkout refuses `AUTH_DISABLED` in live mode for
/// the same reason.
public enum DevTokenCommand {
    /// The issuer local stacks accept (`scripts/stack.sh`).
    public static let defaultIssuer = "storefront-dev"
    /// The audience local stacks accept (`scripts/stack.sh`).
    public static let defaultAudience = "storefront-app"

    /// One line for the CLI's help.
    public static let usage = "dev-token --sub ID [--email E] [--ttl SECONDS] [--iss ISSUER] [--aud AUDIENCE] [--email-verified]"

    public static func run(_ arguments: CommandLineArguments, environment: Environment, now: Date = Date()) throws -> String {
        let subject = try arguments.require("sub")
        let email = arguments.options["email"]
        guard let ttl = Int(arguments.options["ttl"] ?? "3600"), ttl > 0 else {
            throw CommandLineArguments.UsageError(description: "--ttl must be a positive number of seconds")
        }
        let emailVerified: Bool
        switch arguments.options["email-verified"]?.lowercased() {
        case nil, "false", "0", "no": emailVerified = false
        case "true", "1", "yes": emailVerified = true
        default: throw CommandLineArguments.UsageError(description: "--email-verified takes no value, or true or false")
        }
        var reader = ConfigReader(environment, declared: StorefrontCLIBinary.devToken)
        let mode = reader.enumeration(.devTokenMode, as: DeploymentMode.self) ?? .test
        if mode.isLive {
            reader.report(.devTokenMode, "is live: dev-token mints test tokens only; a live deployment's tokens come from its identity provider")
        }
        let secret = reader.required.secret(.devTokenSecret)
        let issuer = arguments.options["iss"] ?? reader.string(.devTokenIssuer) ?? defaultIssuer
        let audience = arguments.options["aud"] ?? reader.string(.devTokenAudience) ?? defaultAudience
        try reader.finish()

        var claims: [String: JOSEValue] = [
            "sub": .string(subject),
            "iat": .int(Int(now.timeIntervalSince1970)),
            "exp": .int(Int(now.timeIntervalSince1970) + ttl),
        ]
        if let email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(emailVerified)
        }
        if !issuer.isEmpty { claims["iss"] = .string(issuer) }
        if !audience.isEmpty { claims["aud"] = .string(audience) }
        return try JWTSigner(hs256Secret: Array(secret.reveal().utf8)).sign(claims)
    }
}
