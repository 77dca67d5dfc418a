import ServiceSettings

extension OwnershipProof {
    /// The proof maker for a key a service read with
    /// `reader.required.secret(.ownershipProofKey)` (the variable, or the
    /// file named by `OWNERSHIP_PROOF_KEY_FILE`), with the optional
    /// `OWNERSHIP_PROOF_KEY_ID` and `OWNERSHIP_PROOF_PREVIOUS_KEYS` read here.
    /// The required read stays in each service's configuration, spelled out,
    /// because `scripts/check_compose.py` learns which binaries require a
    /// variable from their source, and every binary links this module. Every
    /// service that makes or checks proofs (checkout, subscription-projector)
    /// must be given the same keys.
    ///
    /// `OWNERSHIP_PROOF_PREVIOUS_KEYS` lists the keys rotated out, separated
    /// by commas, each `<id>:<key>` or, for a key that had no id, the key
    /// alone (hex keys contain neither character).
    ///
    /// A key under ``minimumKeyBytes`` bytes, a bad or repeated id is
    /// reported to `reader` (no key is ever echoed); an empty current key is
    /// not reported again (unset, or an unreadable file: the read did).
    /// - Returns: the proof maker; after a problem (the reader's `finish()`
    ///   then throws), a placeholder that makes no proof and accepts none.
    public static func configured(key: Secret, reader: inout ConfigReader) -> OwnershipProof {
        let id = reader.string(.ownershipProofKeyID).flatMap { $0.isEmpty ? nil : $0 }
        let previous = reader.secret(.ownershipProofPreviousKeys)
        guard !key.isEmpty else { return OwnershipProof() }
        let current: Key
        do {
            current = try Key(id: id, secret: key)
        } catch {
            reader.report(keyVariable, error.description)
            return OwnershipProof()
        }
        var older: [Key] = []
        let listed: [(id: String?, secret: Secret)] = previous.map { Self.entries($0) } ?? []
        for (index, entry) in listed.enumerated() {
            do {
                older.append(try Key(id: entry.id, secret: entry.secret))
            } catch {
                reader.report(.ownershipProofPreviousKeys, "entry \(index + 1): \(error.description)")
                return OwnershipProof()
            }
        }
        do {
            return try OwnershipProof(current: current, previous: older)
        } catch {
            reader.report(.ownershipProofPreviousKeys, error.description)
            return OwnershipProof()
        }
    }

    /// The comma-separated entries of `OWNERSHIP_PROOF_PREVIOUS_KEYS`, blanks skipped.
    static func entries(_ list: Secret) -> [(id: String?, secret: Secret)] {
        list.reveal().split(separator: ",").compactMap { raw in
            // Spaces around entries are layout (no key or id has one).
            let text = String(raw.filter { $0 != " " })
            guard !text.isEmpty else { return nil }
            guard let colon = text.firstIndex(of: ":") else { return (nil, Secret(text)) }
            return (String(text[..<colon]), Secret(String(text[text.index(after: colon)...])))
        }
    }
}
