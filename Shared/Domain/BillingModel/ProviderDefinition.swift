/// Everything one provider declares, in parts: this protocol is the part every
/// module below the providers' own code needs (its name and traits); each
/// domain module that does something per provider declares the part it needs
/// as a protocol refining this one (`WebhookProviding` in Webhooks,
/// `EntitlementProviding` in Entitlements, `ConfigurationProviding` in
/// ProviderConfiguration, `APIProviding` in Providers), and each provider's
/// folder conforms its one definition type to every part.
///
/// Nothing decides by a provider's name: code asks the provider's definition
/// (``ProviderDirectory/part(_:of:)``). A new provider is a folder with a
/// definition, and one line in ``ProviderDirectory``'s built-in list.
public protocol ProviderDefinition: Sendable {
    /// The provider's identifier, declared in its folder.
    var provider: Provider { get }
    /// The provider's name as people write it ("Lemon Squeezy"), for messages and docs.
    var displayName: String { get }
    /// What the provider's events and API say or leave unsaid.
    var traits: ProviderTraits { get }
    /// The topic key of a snapshot of one of this provider's objects: the key
    /// its webhooks about that object use, so both stay in one order.
    func snapshotKey(entity: ProviderSnapshot.Entity, entityID: String, customerID: String?) -> String
}
