import Crypto
import Foundation
import ServiceRuntime

/// `storefront dev-token --sub ID --email E [--ttl SECONDS]`: mints an HS256
/// app-user token with the configured `AUTH_JWT_SECRET` (or `_FILE`), with
/// `AUTH_JWT_ISSUER` / `AUTH_JWT_AUDIENCE` when set, for local experiments.
public enum DevTokenCommand {
    public static func run(_ arguments: CommandLineArguments, environment: Environment, now: Date = Date()) throws -> String {
        let subject = try arguments.require("sub")
        let email = try arguments.require("email")
        guard let ttl = Int(arguments.options["ttl"] ?? "3600"), ttl > 0 else {
            throw CommandLineArguments.UsageError(description: "--ttl must be a positive number of seconds")
        }
        var reader = ConfigReader(environment)
        let secret = reader.required.secret("AUTH_JWT_SECRET")
        let issuer = reader.string("AUTH_JWT_ISSUER")
        let audience = reader.string("AUTH_JWT_AUDIENCE")
        try reader.finish()

        var claims: [String: JSONValue] = [
            "sub": .string(subject), "email": .string(email),
            "iat": .int(Int(now.timeIntervalSince1970)),
            "exp": .int(Int(now.timeIntervalSince1970) + ttl),
        ]
        if let issuer { claims["iss"] = .string(issuer) }
        if let audience { claims["aud"] = .string(audience) }
        return try JWTSigner(hs256Secret: Array(secret.reveal().utf8)).sign(claims)
    }
}
