import Synchronization

/// The registered providers: the built-in list, and any a process adds
/// before it serves (a plug-in, or a test's own provider).
///
/// Registration is process-wide, like a logging backend: lookups read it on
/// every use, so a provider registered later is seen by everything after.
public enum ProviderDirectory {
    /// The providers Storefront ships, in the order every list shows them.
    /// This is the one place a provider is registered.
    static let builtIn: [any ProviderDefinition] = [LemonSqueezyProvider(), PaystackProvider(), StripeProvider()]

    private static let registered = Mutex<[any ProviderDefinition]>(builtIn)

    /// Adds a provider. Registering a name again keeps the first definition,
    /// so registering from several places (tests) is harmless.
    /// - Returns: false when the name was already registered.
    @discardableResult
    public static func register(_ definition: any ProviderDefinition) -> Bool {
        registered.withLock { definitions in
            guard !definitions.contains(where: { $0.provider.rawValue == definition.provider.rawValue }) else { return false }
            definitions.append(definition)
            return true
        }
    }

    /// The registered providers, in registration order.
    public static var providers: [Provider] {
        registered.withLock { $0.map(\.provider) }
    }

    /// The definition registered under `name`, if any.
    public static func definition(named name: String) -> (any ProviderDefinition)? {
        registered.withLock { definitions in definitions.first { $0.provider.rawValue == name } }
    }

    /// The definition of `provider`. A `Provider` value comes from a
    /// registered name or from a definition's own declaration, so a missing
    /// one means a definition was used without being registered: stopped here.
    public static func definition(of provider: Provider) -> any ProviderDefinition {
        guard let definition = definition(named: provider.rawValue) else {
            preconditionFailure("provider \"\(provider.rawValue)\" is used but not registered in ProviderDirectory")
        }
        return definition
    }

    /// The part of `provider`'s definition that a module declares as `Part`
    /// (a protocol refining ``ProviderDefinition``). A provider registered
    /// without a part some module needs is a programming error, stopped here
    /// with both names; `ProviderDirectoryTests` checks every built-in has every part.
    public static func part<Part>(_ part: Part.Type, of provider: Provider) -> Part {
        guard let found = definition(of: provider) as? Part else {
            preconditionFailure("provider \"\(provider.rawValue)\" is registered without its \(Part.self) part")
        }
        return found
    }
}
