import CatalogService
import ServiceRuntime

/// The catalog sources this process serves, one per enabled provider, in the
/// order their products are listed.
///
/// - Throws: a `ConfigurationError` when a provider's settings are invalid.
func makeCatalogSources(environment: Environment) throws -> [any CatalogSource] {
    // TODO: adapt the Lemon Squeezy and Paystack API clients of the `Providers`
    // module to `CatalogSource` and return one per provider enabled in
    // `environment` (read with a `ConfigReader` and `finish()` it so every
    // problem is reported). Until then no source is configured and
    // `buildCatalogApplication` refuses to start, which is intended: the
    // catalog must never serve made-up products.
    _ = environment
    return []
}
