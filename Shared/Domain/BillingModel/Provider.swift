/// A payment provider Storefront sells through, by its lowercase name.
///
/// The name is what topic keys, envelopes, the status API (`"provider"`) and
/// webhook routes (`/api/webhooks/{provider}`) carry. The identifier is open:
/// each provider declares its own in its folder (`Provider.lemonsqueezy` in
/// `Shared/Domain/Providers/LemonSqueezy/Model/`) and is known once its
/// definition is registered in ``ProviderDirectory``. A name no registered
/// provider has is not a provider: ``init(rawValue:)`` answers nil and
/// decoding fails, as they did when the providers were a closed enum.
public struct Provider: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    public let rawValue: String

    /// The registered provider with this name; nil for any other name.
    public init?(rawValue: String) {
        guard ProviderDirectory.definition(named: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// Declares a provider's identifier, for its definition (``ProviderDefinition/provider``).
    /// It names a provider only once that definition is registered.
    public init(declaring name: String) {
        rawValue = name
    }

    /// The registered providers, in registration order (the built-in list first).
    public static var allCases: [Provider] { ProviderDirectory.providers }

    public var description: String { rawValue }

    /// Everything this provider declares; see ``ProviderDirectory``.
    public var definition: any ProviderDefinition { ProviderDirectory.definition(of: self) }

    /// What this provider's events and API say (its folder declares them:
    /// `Shared/Domain/Providers/<Provider>/Model/`).
    public var traits: ProviderTraits { definition.traits }

    /// The short prefix of opaque catalog ids (`ls_123`, `ps_PLN_x`); see ``CatalogID``.
    public var catalogPrefix: String { traits.catalogPrefix }
}

extension Provider: Codable {
    /// Decodes a registered provider's name; any other name is an error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let provider = Provider(rawValue: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown provider \"\(name.prefix(64))\"")
        }
        self = provider
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension Provider {
    /// The registered providers' names as people write them, for messages
    /// that ask for one ("Lemon Squeezy, Paystack or Stripe"): services name
    /// no provider themselves, so a new provider appears here by registering.
    public static var displayNames: String {
        let names = allCases.map(\.definition.displayName)
        guard let last = names.last, names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
