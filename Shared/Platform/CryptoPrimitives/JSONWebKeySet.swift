import Foundation

/// One signature-verification key out of a JSON Web Key Set (RFC 7517).
public struct JSONWebKey: Sendable, CustomStringConvertible {
    /// The key's `kid`, if it has one.
    public let keyID: String?
    /// The key, and with it the one algorithm it verifies (RS256 or ES256).
    public let key: JWTVerificationKey

    public init(keyID: String?, key: JWTVerificationKey) {
        self.keyID = keyID
        self.key = key
    }

    /// The algorithm this key verifies.
    public var algorithm: JWTAlgorithm { key.algorithm }

    /// The algorithm and `kid`; never key material.
    public var description: String { "\(algorithm.rawValue) key \(keyID.map { "\"\($0.prefix(64))\"" } ?? "without kid")" }
}

/// The signature keys of a JWKS document (`{"keys":[…]}`), as an identity
/// provider publishes them.
///
/// Only public keys that can verify RS256 or ES256 are kept: `kty` `RSA`
/// (`n`, `e`; 2048 to 8192 bits) and `kty` `EC` with `crv` `P-256` (`x`, `y`;
/// a point on the curve). An entry is ignored, and the reason kept in
/// ``ignored``, when its `use` is not `sig`, its `key_ops` lack `verify`, its
/// `alg` is not the one its key type verifies here, its `kid` is not a short
/// string, it is a symmetric (`oct`) or other key type, or its values do not
/// make a valid key. Certificates (`x5c`), private members and anything else
/// are never read. A symmetric key is never taken from a key set: a JWKS
/// cannot make an HS256 token verify.
public struct JSONWebKeySet: Sendable {
    /// The most entries a document may have (identity providers publish two to five).
    public static let defaultMaximumKeys = 64

    /// The usable keys, in document order.
    public let keys: [JSONWebKey]
    /// Why each other entry was left out, one line each (no key material), for logs.
    public let ignored: [String]

    public init(keys: [JSONWebKey], ignored: [String] = []) {
        self.keys = keys
        self.ignored = ignored
    }

    /// The keys whose `kid` is `keyID`.
    public func keys(withID keyID: String) -> [JSONWebKey] {
        keys.filter { $0.keyID == keyID }
    }

    /// Reads a JWKS document.
    /// - Parameters:
    ///   - document: the JSON bytes.
    ///   - maximumKeys: the most entries accepted. Default ``defaultMaximumKeys``.
    /// - Returns: the usable keys (possibly none) and the reasons for the rest.
    /// - Throws: ``JWTError/invalidKey(_:)`` when the document is not a JSON
    ///   object with a `keys` array of at most `maximumKeys` entries.
    public static func parse(_ document: [UInt8], maximumKeys: Int = defaultMaximumKeys) throws(JWTError) -> JSONWebKeySet {
        guard let value = try? JSONDecoder().decode(JOSEValue.self, from: Data(document)), case .object(let object) = value else {
            throw .invalidKey("JWKS is not a JSON object")
        }
        guard case .array(let entries)? = object["keys"] else { throw .invalidKey("JWKS has no keys array") }
        guard entries.count <= maximumKeys else { throw .invalidKey("JWKS has more than \(maximumKeys) keys") }
        var keys: [JSONWebKey] = []
        var ignored: [String] = []
        for (index, entry) in entries.enumerated() {
            do {
                keys.append(try key(entry))
            } catch let problem {
                ignored.append("key \(index)\(label(entry)): \(problem.reason)")
            }
        }
        return JSONWebKeySet(keys: keys, ignored: ignored)
    }

    /// Why one entry is not used.
    struct Ignored: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func key(_ entry: JOSEValue) throws(Ignored) -> JSONWebKey {
        guard case .object(let jwk) = entry else { throw Ignored("not an object") }
        let keyID: String?
        switch jwk["kid"] {
        case nil: keyID = nil
        case .string(let kid)? where kid.utf8.count <= UnverifiedJWT.maximumKeyIDLength: keyID = kid
        default: throw Ignored("kid is not a string of at most \(UnverifiedJWT.maximumKeyIDLength) bytes")
        }
        if let use = jwk["use"] {
            guard use == .string("sig") else { throw Ignored("use is not sig") }
        }
        if let operations = jwk["key_ops"] {
            guard case .array(let list) = operations, list.contains(.string("verify")) else { throw Ignored("key_ops lack verify") }
        }
        guard case .string(let type)? = jwk["kty"] else { throw Ignored("no kty") }
        let algorithm: JWTAlgorithm
        switch type {
        case "RSA": algorithm = .rs256
        case "EC":
            guard jwk["crv"] == .string("P-256") else { throw Ignored("curve is not P-256") }
            algorithm = .es256
        case "oct": throw Ignored("symmetric keys are never taken from a key set")
        default: throw Ignored("kty \(type.prefix(16)) is not supported")
        }
        if let alg = jwk["alg"] {
            guard alg == .string(algorithm.rawValue) else { throw Ignored("alg is not \(algorithm.rawValue)") }
        }
        let key: JWTVerificationKey
        switch algorithm {
        case .rs256:
            let (modulus, exponent) = (try bytes(jwk, "n"), try bytes(jwk, "e"))
            key = try built { () throws(JWTError) in try .rs256(modulus: modulus, exponent: exponent) }
        case .es256:
            let (x, y) = (try bytes(jwk, "x"), try bytes(jwk, "y"))
            key = try built { () throws(JWTError) in try .es256(x: x, y: y) }
        case .hs256:
            throw Ignored("symmetric keys are never taken from a key set")
        }
        return JSONWebKey(keyID: keyID, key: key)
    }

    private static func built(_ make: () throws(JWTError) -> JWTVerificationKey) throws(Ignored) -> JWTVerificationKey {
        do {
            return try make()
        } catch {
            if case .invalidKey(let reason) = error { throw Ignored(reason) }
            throw Ignored(error.description)
        }
    }

    private static func bytes(_ jwk: [String: JOSEValue], _ member: String) throws(Ignored) -> [UInt8] {
        guard case .string(let text)? = jwk[member], text.utf8.count <= 4096, let bytes = Base64URL.decode(text) else {
            throw Ignored("\(member) is not base64url")
        }
        return bytes
    }

    private static func label(_ entry: JOSEValue) -> String {
        guard case .object(let jwk) = entry, case .string(let kid)? = jwk["kid"] else { return "" }
        return " (kid \"\(kid.prefix(64))\")"
    }
}
