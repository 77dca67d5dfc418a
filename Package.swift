// swift-tools-version:6.2
// Storefront: one package, Swift 6 language mode, no outside Swift packages.
// C libraries enter through the system-library targets in Shared/Platform/C; each is
// imported by exactly one Swift module.
import PackageDescription
import Foundation

/// The checkout's root, so binaries can find the vendored librdkafka >= 2.2
/// (`scripts/install-deps.sh` puts it in `.vendor/lib`) without the user
/// setting `LD_LIBRARY_PATH`. Debian bookworm's librdkafka 2.0.2 cannot talk
/// to Tansu; see docs/architecture.md, "C libraries". Where that folder does not exist (the container
/// image, whose system librdkafka is new enough) the run path is harmless.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
let vendoredLibraries: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "\(packageRoot)/.vendor/lib"])
]

/// Language settings every target shares: `any` spelled out; a file sees only
/// the members of modules it imports itself. Nothing here touches warnings,
/// so they are safe in a target that apps build as a dependency.
let language: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]

/// The server, tool and test targets: the language settings, and every warning an error.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)] + language

/// A C library, in the platform layer's `C` folder; exactly one platform module imports each.
func system(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Shared/Platform/C/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// The platform layer (`Shared/Platform`): C wrappers, JSON, settings, telemetry, the service
/// runtime. It imports nothing of the domain (scripts/check_dependencies.py enforces the layers).
func platform(_ name: String, _ dependencies: [Target.Dependency] = [], linker: [LinkerSetting] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/Platform/\(name)", swiftSettings: strict, linkerSettings: linker)
}

/// The domain layer (`Shared/Domain`): billing values, webhooks, entitlements, the projection's
/// store, providers, catalog. It may import the platform, never a service or a tool.
func domain(_ name: String, _ dependencies: [Target.Dependency] = [], linker: [LinkerSetting] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/Domain/\(name)", swiftSettings: strict, linkerSettings: linker)
}

/// The providers, one folder each (`Shared/Domain/Providers/<Provider>`). A provider's
/// folder holds everything that knows it, in one subfolder per domain module it adds to:
/// `API` (Providers), `Configuration` (ProviderConfiguration), `Entitlements` and `Webhooks`.
let providerFolders = ["LemonSqueezy", "Paystack", "Stripe"]

/// A domain module built from its own folder and, from each provider's folder, the
/// subfolder `part` (see ``providerFolders``).
func domain(_ name: String, _ dependencies: [Target.Dependency] = [], own: [String]? = nil, providerPart part: String) -> Target {
    let sources = (own ?? [name]) + providerFolders.map { "Providers/\($0)/\(part)" }
    return .target(
        name: name, dependencies: dependencies, path: "Shared/Domain", exclude: untaken(in: "Shared/Domain", by: sources), sources: sources,
        swiftSettings: strict)
}

/// What under `root` none of `sources` (paths relative to it) takes: SwiftPM warns about every
/// file under a target's path that the target leaves out, so they are excluded by name.
func untaken(in root: String, by sources: [String], below prefix: String = "") -> [String] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "\(packageRoot)/\(root)/\(prefix)")) ?? []
    return entries.sorted().flatMap { entry -> [String] in
        let path = prefix + entry
        if sources.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { return [] }
        if sources.contains(where: { $0.hasPrefix(path + "/") }) { return untaken(in: root, by: sources, below: path + "/") }
        return [path]
    }
}

func tests(_ name: String, _ dependencies: [Target.Dependency], exclude: [String] = [], linker: [LinkerSetting] = []) -> Target {
    .testTarget(name: name, dependencies: dependencies, path: "Tests/\(name)", exclude: exclude, swiftSettings: strict, linkerSettings: linker)
}

let package = Package(
    name: "Storefront",
    // iOS: for apps that add StorefrontKit (the server targets never build there).
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        // The one product for apps. Its target closure (StorefrontKit alone)
        // has no unsafeFlags, so SwiftPM accepts it as a remote dependency.
        .library(name: "StorefrontKit", targets: ["StorefrontKit"])
    ],
    targets: [
        // MARK: - C libraries (one importer each)
        system("CLibPQ", pkgConfig: "libpq", apt: "libpq-dev"),
        system("CRdKafka", pkgConfig: "rdkafka", apt: "librdkafka-dev"),
        system("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        system("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        system("CCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),

        // MARK: - Platform layer (Shared/Platform; imports nothing of the domain)
        // Durations in seconds and milliseconds, and backoff schedules; no dependencies.
        platform("Timing"),
        // Reading settings from the environment: typed values, secrets (and their `_FILE`
        // variants), every problem reported at once.
        platform("ServiceSettings", []),
        // The byte-level JSON reader (one pass over a webhook body) and JSON text writing.
        platform("JSONCodec"),
        platform("Telemetry", ["JSONCodec"]),
        platform("Postgres", ["CLibPQ", "ServiceSettings", "Timing"]),
        platform("Kafka", ["Timing", "ServiceSettings", "CRdKafka", "ServiceRuntime", "Telemetry"], linker: vendoredLibraries),
        // HTTP header fields and methods, shared by the server and the client.
        platform("HTTPPrimitives"),
        platform("HTTPClient", ["Timing", "CCurl", "HTTPPrimitives"]),
        // Digests, HMAC, signature verification and constant-time comparison over libcrypto.
        platform("CryptoPrimitives", ["Timing", "CCrypto"]),
        // App tokens: static keys and JWKS key sets (fetched over HTTPClient, cached per
        // Cache-Control, refreshed in the background, refetched on an unknown kid, rate-limited).
        platform("TokenVerification", ["Timing", "CryptoPrimitives", "HTTPClient", "ServiceRuntime", "Telemetry"]),
        platform("ServiceRuntime", ["Timing", "ServiceSettings", "Telemetry"]),
        platform("HTTPServer", ["Timing", "ServiceSettings", "CMicroHTTPD", "JSONCodec", "ServiceRuntime", "Telemetry", "HTTPPrimitives"]),
        // Pruning in bounded batches (RetentionJob): each service that owns a table declares its rules.
        platform("Retention", ["Postgres", "ServiceRuntime", "ServiceSettings", "Telemetry"]),

        // MARK: - Domain layer (Shared/Domain; may import the platform)
        // The values every service shares: providers, billing events, snapshots, commands, topics, API records.
        domain("BillingModel", ["JSONCodec"], providerPart: "Model"),
        // Webhook verification and parsing (one parse into one value); no HTTP client, so the
        // receiver does not link libcurl.
        domain("Webhooks", ["BillingModel", "CryptoPrimitives", "JSONCodec", "ServiceSettings", "Timing"], providerPart: "Webhooks"),
        // The providers' settings read from the environment (ProvidersConfiguration.fromEnvironment).
        domain("ProviderConfiguration", ["ServiceSettings", "BillingModel", "Webhooks", "Timing"], providerPart: "Configuration"),
        // The one catalog cache both the catalog and the checkout service keep: the `CatalogSource`
        // seam, last good items per provider, lookups, the refresher with its backoff. No provider
        // client (so no libcurl): `Providers.ProviderCatalogSource` adapts a client to the seam.
        domain("Catalog", ["Timing", "BillingModel", "ServiceRuntime", "Telemetry"]),
        // The providers' API clients, and their adapter to `Catalog.CatalogSource`.
        domain(
            "Providers",
            [
                "Timing", "ServiceSettings", "Catalog", "BillingModel", "HTTPClient", "CryptoPrimitives", "JSONCodec", "Webhooks",
                "ProviderConfiguration",
            ], own: ["Providers/Core", "Providers/Transport"], providerPart: "API"),
        // What a purchase grants: the pure subscription fold, its state, money back, the access
        // rules and the entitlements file. No SQL.
        domain("Entitlements", ["ServiceSettings", "BillingModel", "ServiceRuntime", "Timing"], providerPart: "Entitlements"),
        // The projection in PostgreSQL: schema, migrations and the readers the API answers from.
        domain("ProjectionStore", ["BillingModel", "Postgres", "Entitlements"]),
        // One provider API limit shared by every service and replica: a ledger in PostgreSQL
        // (ten-second windows, per-class ceilings, 429 pauses) behind `Providers.ProviderRequestBudget`.
        domain("ProviderBudget", ["BillingModel", "Postgres", "Providers", "ProviderConfiguration", "Telemetry", "ServiceSettings", "Timing"]),
        // The projector's signature on each entitlement change (a Kafka header): its signer, the
        // consumers' verifier (public keys only) and the gate that counts and passes over the rest.
        domain("EntitlementSigning", ["CryptoPrimitives", "Kafka", "ServiceSettings", "Telemetry"], linker: vendoredLibraries),
        // Reports to Apple's External Purchase Server API: the App Store Connect key's ES256 tokens, the
        // report's values, the pure plan of what to report next for a token, and the client that sends one.
        domain("AppStoreReports", ["BillingModel", "CryptoPrimitives", "HTTPClient"]),

        // MARK: - App client (Foundation only; no unsafeFlags: apps depend on it remotely)
        // Only the language settings, no `.treatAllWarnings(as: .error)`: SwiftPM's
        // `swiftbuild` build system (Xcode's engine, the default from SwiftPM 6.4)
        // and Xcode compile a package dependency with `-suppress-warnings`, and the
        // driver rejects it beside `-warnings-as-errors` ("conflicting options"), so
        // with the setting no app could build the kit (the native build system drops
        // it for dependencies; swiftlang/swift-package-manager#9517, #10192). A
        // manifest cannot tell whether it is the root package (an environment switch
        // could stand in, but builds with and without it would compile the kit
        // differently and undo each other's work), so no condition is used; the kit
        // stays warning-free because `make lint` (and so `make test`)
        // compiles it alone with `-warnings-as-errors` (scripts/lint.sh), and
        // `make test` builds an app against it with both build systems
        // (scripts/check-kit-consumer.sh).
        .target(name: "StorefrontKit", path: "SDK/StorefrontKit", swiftSettings: language),

        // MARK: - Services (logic in a library, a thin executable each)
        .target(
            name: "CatalogService",
            dependencies: [
                "ServiceSettings", "Catalog", "BillingModel", "HTTPServer", "ServiceRuntime", "Telemetry", "ProviderConfiguration", "Timing",
            ],
            path: "Services/catalog/CatalogService", swiftSettings: strict),
        .executableTarget(
            name: "catalog",
            dependencies: [
                "Timing", "ServiceSettings", "Catalog", "CatalogService", "Providers", "ProviderConfiguration", "HTTPClient", "BillingModel",
                "HTTPServer", "ServiceRuntime",
                "Telemetry",
            ],
            path: "Services/catalog/main", swiftSettings: strict),
        .target(
            name: "WebhookReceiverService",
            dependencies: [
                "Timing", "ServiceSettings", "BillingModel", "Webhooks", "ProviderConfiguration", "Kafka", "HTTPServer", "ServiceRuntime",
                "Telemetry",
            ],
            path: "Services/webhook-receiver/WebhookReceiverService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "webhook-receiver",
            dependencies: [
                "Timing", "WebhookReceiverService", "Webhooks", "ProviderConfiguration", "Kafka", "BillingModel", "HTTPServer", "ServiceRuntime",
                "Telemetry",
            ],
            path: "Services/webhook-receiver/main", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .target(
            name: "ProjectorService",
            dependencies: [
                "Timing", "ServiceSettings", "BillingModel", "Webhooks", "ProjectionStore", "Entitlements", "Postgres", "Retention", "Kafka",
                "HTTPServer", "ServiceRuntime", "Telemetry", "EntitlementSigning",
            ],
            path: "Services/subscription-projector/ProjectorService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "subscription-projector",
            dependencies: [
                "ProjectorService", "HTTPServer", "ServiceRuntime", "Telemetry", "Kafka", "Postgres", "EntitlementSigning", "ServiceSettings",
            ],
            path: "Services/subscription-projector/main", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .target(
            name: "CheckoutService",
            dependencies: [
                "Timing", "ServiceSettings", "Catalog", "BillingModel", "Providers", "ProviderBudget", "ProjectionStore", "Entitlements", "Postgres",
                "Retention",
                "Kafka", "CryptoPrimitives", "HTTPServer", "ServiceRuntime", "Telemetry", "TokenVerification", "Webhooks", "ProviderConfiguration",
                "JSONCodec", "EntitlementSigning",
            ],
            path: "Services/checkout/CheckoutService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "checkout",
            dependencies: [
                "ServiceSettings", "Catalog", "CheckoutService", "Entitlements", "ProviderBudget", "Providers", "ProviderConfiguration", "Kafka",
                "Postgres", "HTTPClient", "BillingModel", "HTTPServer", "ServiceRuntime", "Telemetry", "Webhooks", "EntitlementSigning",
            ],
            path: "Services/checkout/main", swiftSettings: strict, linkerSettings: vendoredLibraries),

        .target(
            name: "ReconcilerService",
            dependencies: [
                "Timing", "ServiceSettings", "BillingModel", "Providers", "ProviderBudget", "ProviderConfiguration", "Webhooks", "HTTPClient",
                "Postgres", "Kafka", "HTTPServer", "ServiceRuntime", "Telemetry", "JSONCodec", "Catalog", "Entitlements", "ProjectionStore",
            ],
            path: "Services/reconciler/ReconcilerService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "reconciler",
            dependencies: [
                "Timing", "ServiceSettings", "ReconcilerService", "ProviderConfiguration", "HTTPServer", "ServiceRuntime", "Telemetry", "Kafka",
                "BillingModel", "Postgres",
            ],
            path: "Services/reconciler/main", swiftSettings: strict, linkerSettings: vendoredLibraries),

        // Webhooks out: queues storefront.entitlements.v1 and storefront.purchase-events.v1 per registered endpoint and sends each
        // record signed (Standard Webhooks); and the reports of external purchase tokens to Apple (AppStoreReports).
        .target(
            name: "WebhookSenderService",
            dependencies: [
                "Timing", "ServiceSettings", "CryptoPrimitives", "HTTPClient", "HTTPServer", "Kafka", "BillingModel", "Postgres", "Retention",
                "ServiceRuntime", "Telemetry", "EntitlementSigning", "AppStoreReports",
            ],
            path: "Services/webhook-sender/WebhookSenderService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "webhook-sender",
            dependencies: [
                "WebhookSenderService", "HTTPServer", "Kafka", "Postgres", "ServiceRuntime", "Telemetry", "EntitlementSigning", "ServiceSettings",
            ],
            path: "Services/webhook-sender/main", swiftSettings: strict, linkerSettings: vendoredLibraries),

        // MARK: - Tools
        .target(name: "SandboxKit", dependencies: [], path: "Tools/SandboxKit", swiftSettings: strict),
        .target(
            name: "SandboxServer",
            dependencies: ["SandboxKit", "HTTPServer", "HTTPClient", "CryptoPrimitives", "ServiceRuntime", "Telemetry", "ServiceSettings", "Timing"],
            path: "Tools/SandboxServer", swiftSettings: strict),
        .executableTarget(
            name: "provider-sandbox", dependencies: ["SandboxServer", "ServiceRuntime", "Telemetry", "SandboxKit"],
            path: "Tools/provider-sandbox", swiftSettings: strict),
        .target(
            name: "StorefrontCLI",
            dependencies: [
                "Timing", "ServiceSettings", "CheckoutService", "CryptoPrimitives", "HTTPClient", "Kafka", "BillingModel", "Postgres",
                "ProjectionStore", "Entitlements", "ProviderConfiguration", "Providers", "ReconcilerService", "ServiceRuntime", "Telemetry",
                "ProviderBudget", "WebhookSenderService",
            ],
            path: "Tools/StorefrontCLI", swiftSettings: strict),
        .executableTarget(
            name: "storefront", dependencies: ["StorefrontCLI", "ServiceRuntime", "Telemetry", "ServiceSettings"],
            path: "Tools/storefront", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "scale-demo",
            dependencies: [
                "Timing", "ServiceSettings", "CryptoPrimitives", "HTTPClient", "Kafka", "BillingModel", "Postgres", "Webhooks", "JSONCodec",
            ],
            path: "Tools/scale-demo", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "http-bench-server", dependencies: ["HTTPServer", "Telemetry"], path: "Tools/http-bench-server", swiftSettings: strict),
        // `make bench`'s helpers: delivery plans, an open/closed-loop webhook sender, the projector's backlog, topic counts.
        .executableTarget(
            name: "storefront-bench",
            dependencies: ["Timing", "ServiceSettings", "CryptoPrimitives", "Kafka", "BillingModel", "Postgres", "Webhooks"],
            path: "Tools/storefront-bench", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "webhook-cpu-bench", dependencies: ["Timing", "ServiceSettings", "CryptoPrimitives", "BillingModel", "Webhooks", "JSONCodec"],
            path: "Tools/webhook-cpu-bench",
            swiftSettings: strict, linkerSettings: vendoredLibraries),
        // libFuzzer targets (`make fuzz`, scripts/fuzz.sh builds them with -sanitize=fuzzer,address
        // in .build/fuzz). Each has an ordinary @main (FuzzEntry): with libFuzzer linked it runs
        // libFuzzer's driver, in the normal build it replays input files, so they build everywhere.
        .target(
            name: "FuzzSupport", dependencies: ["ServiceSettings", "CryptoPrimitives", "BillingModel", "Webhooks", "JSONCodec"],
            path: "Tools/fuzz/FuzzSupport", swiftSettings: strict),
        .executableTarget(
            name: "fuzz-lemonsqueezy-webhook", dependencies: ["FuzzSupport", "BillingModel"], path: "Tools/fuzz/fuzz-lemonsqueezy-webhook",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-paystack-webhook", dependencies: ["FuzzSupport", "BillingModel"], path: "Tools/fuzz/fuzz-paystack-webhook",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-stripe-webhook", dependencies: ["FuzzSupport"], path: "Tools/fuzz/fuzz-stripe-webhook", swiftSettings: strict),
        .executableTarget(name: "fuzz-jwt", dependencies: ["FuzzSupport"], path: "Tools/fuzz/fuzz-jwt", swiftSettings: strict),

        // MARK: - Tests
        // `<Module>Tests` are unit targets: no server, run by `make unit` (scripts/unit-tests.sh)
        // with DATABASE_URL, KAFKA_BROKERS and STOREFRONT_SCRIPTS unset. `<Module>IntegrationTests`
        // need PostgreSQL, the broker or a server process of their own; `…EndToEndTests` start whole
        // stacks. Both run in `make test` after it starts the servers (docs/architecture.md, "Tests").
        // The provider payloads are kept once, in Tests/Fixtures (outside every target), read through
        // TestSupport's `Fixture`. TestSupport also holds the fresh databases (`FreshDatabase.with`,
        // dropped afterwards), the topic reader (`TopicReader`) the integration targets share, and a
        // stand-in for an identity provider's JWKS endpoint (`LocalJWKSServer`).
        .target(
            name: "TestSupport",
            dependencies: [
                "ServiceSettings", "CryptoPrimitives", "Kafka", "BillingModel", "Postgres", "HTTPClient", "HTTPServer", "Telemetry", "Webhooks",
                "EntitlementSigning",
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict, linkerSettings: vendoredLibraries),
        .target(name: "SeedModels", path: "Tests/SeedModels", swiftSettings: strict),
        // The webhook receiver's test secrets and signed bodies, shared by its unit and integration targets.
        .target(
            name: "WebhookReceiverTestSupport",
            dependencies: ["ServiceSettings", "CryptoPrimitives", "BillingModel", "Telemetry", "TestSupport", "Webhooks"],
            path: "Tests/WebhookReceiverTestSupport", swiftSettings: strict),

        // Unit
        tests("TimingTests", ["Timing"]),
        tests("ServiceSettingsTests", ["ServiceSettings"]),
        tests("TelemetryTests", ["Telemetry"]),
        tests("BillingModelTests", ["SeedModels", "BillingModel", "JSONCodec"]),
        tests("ProviderBudgetTests", ["BillingModel", "ProviderBudget", "Providers", "Telemetry"]),
        tests("EntitlementsTests", ["ServiceSettings", "ProjectionStore", "Entitlements", "BillingModel", "ServiceRuntime"]),
        tests("SandboxKitTests", ["SandboxKit"]),
        // The plan and the client of the reports to Apple; the client against the sandbox's emulated Apple, in process.
        tests(
            "AppStoreReportsTests",
            [
                "AppStoreReports", "CryptoPrimitives", "HTTPClient", "SandboxKit", "SandboxServer", "Telemetry", "TestSupport",
            ]),
        // Stripe's events, signatures, statuses and traits (its folder's Webhooks, Entitlements
        // and Model parts) against written payloads, and against the sandbox's emulated Stripe.
        tests(
            "StripeWebhookTests",
            [
                "Webhooks", "Providers", "TestSupport", "ServiceSettings", "Entitlements", "SandboxKit", "CryptoPrimitives", "BillingModel",
                "JSONCodec",
            ]),
        // The Stripe client over a fake transport, and against the sandbox's emulated Stripe served in process.
        tests(
            "StripeAPIClientTests",
            [
                "ProviderConfiguration", "Webhooks", "Providers", "BillingModel", "HTTPClient", "HTTPServer", "JSONCodec", "ServiceSettings",
                "SandboxKit",
                "SandboxServer",
                "Telemetry",
            ]),
        tests("CryptoPrimitivesTests", ["CryptoPrimitives", "TestSupport"]),
        tests(
            "EntitlementSigningTests", ["EntitlementSigning", "CryptoPrimitives", "Kafka", "ServiceSettings", "Telemetry", "TestSupport"],
            linker: vendoredLibraries),
        // The JWKS key sets against a fake fetcher, and against a local JWKS server (TestSupport.LocalJWKSServer).
        tests(
            "TokenVerificationTests",
            ["Timing", "ServiceSettings", "CryptoPrimitives", "HTTPClient", "TestSupport", "TokenVerification", "Telemetry"]),
        tests("HTTPClientTests", ["HTTPClient"]),
        tests("HTTPServerTests", ["HTTPServer", "Telemetry", "TestSupport"]),
        tests("ServiceRuntimeTests", ["ServiceSettings", "ServiceRuntime", "Telemetry", "TestSupport", "Timing"]),
        tests("PostgresTests", ["ServiceSettings", "Postgres"]),
        tests("RetentionTests", ["ServiceSettings", "Retention"]),
        // CRdKafka: librdkafka's mock cluster injects broker errors into a producer, with no server.
        tests("KafkaTests", ["ServiceSettings", "CRdKafka", "Kafka", "ServiceRuntime", "Telemetry"], linker: vendoredLibraries),
        tests(
            "WebhooksTests",
            [
                "ServiceSettings", "Webhooks", "ProviderConfiguration", "BillingModel", "HTTPPrimitives", "TestSupport", "JSONCodec",
                "CryptoPrimitives",
            ]),
        tests(
            "ProvidersTests",
            [
                "ServiceSettings", "Providers", "ServiceRuntime", "BillingModel", "HTTPClient", "SandboxServer", "SandboxKit", "Telemetry",
                "TestSupport", "ProviderConfiguration", "Webhooks", "JSONCodec", "Entitlements",
            ]),
        tests(
            "CatalogServiceTests",
            [
                "ServiceSettings", "Catalog", "SeedModels", "TestSupport", "CatalogService", "BillingModel", "HTTPServer", "HTTPClient",
                "ServiceRuntime", "Telemetry",
            ]),
        tests(
            "CheckoutServiceTests",
            [
                "ServiceSettings", "Catalog", "CheckoutService", "CryptoPrimitives", "HTTPServer", "BillingModel", "Postgres", "ProjectionStore",
                "Entitlements", "ProviderConfiguration", "Providers", "ServiceRuntime", "Telemetry", "TestSupport", "TokenVerification", "Webhooks",
            ],
            linker: vendoredLibraries),
        tests(
            "ReconcilerServiceTests",
            [
                "Timing", "ProjectionStore", "Catalog", "ServiceSettings", "TestSupport", "ReconcilerService", "BillingModel", "Providers", "Kafka",
                "HTTPClient", "SandboxServer",
                "SandboxKit", "ServiceRuntime", "Telemetry", "ProviderConfiguration", "Webhooks", "JSONCodec", "Entitlements",
            ],
            linker: vendoredLibraries),
        tests(
            "WebhookReceiverServiceTests",
            [
                "WebhookReceiverTestSupport", "ServiceSettings", "HTTPServer", "HTTPClient", "ServiceRuntime", "WebhookReceiverService", "Kafka",
                "BillingModel", "Telemetry", "Webhooks",
            ],
            linker: vendoredLibraries),
        tests(
            "StorefrontCLITests",
            [
                "ServiceSettings", "CryptoPrimitives", "BillingModel", "Entitlements", "ServiceRuntime", "StorefrontCLI", "CheckoutService",
                "HTTPClient",
            ],
            linker: vendoredLibraries),
        // The kit's own tests, plus the server's completion page (CheckoutService; a test
        // target's linker flags never reach the StorefrontKit product).
        tests(
            "StorefrontKitTests", ["ServiceSettings", "StorefrontKit", "CheckoutService", "HTTPServer", "ServiceRuntime"], linker: vendoredLibraries),
        tests("ProjectorServiceTests", ["Kafka", "BillingModel", "ProjectorService", "Telemetry"], linker: vendoredLibraries),
        tests(
            "WebhookSenderServiceTests",
            ["AppStoreReports", "CryptoPrimitives", "HTTPClient", "BillingModel", "WebhookSenderService", "ServiceSettings", "Telemetry", "Timing"],
            linker: vendoredLibraries),
        // docs/settings.json against every executable's declared settings (scripts/settings-docs.sh regenerates it).
        tests(
            "SettingsDocsTests",
            [
                "ServiceSettings", "CatalogService", "CheckoutService", "HTTPServer", "Kafka", "Postgres", "ProjectorService", "ProviderBudget",
                "ProviderConfiguration", "ReconcilerService", "SandboxServer", "ServiceRuntime", "StorefrontCLI", "Telemetry",
                "WebhookReceiverService", "Entitlements", "WebhookSenderService",
            ], linker: vendoredLibraries),

        // Integration
        tests("PostgresIntegrationTests", ["Postgres", "TestSupport"]),
        tests("KafkaIntegrationTests", ["Kafka", "TestSupport"], linker: vendoredLibraries),
        tests("HTTPClientIntegrationTests", ["HTTPClient", "TestSupport"], exclude: ["test_server.py"]),
        tests(
            "ProjectorServiceIntegrationTests",
            [
                "ServiceSettings", "TestSupport", "ProjectorService", "ProjectionStore", "Entitlements", "BillingModel", "Postgres", "Kafka",
                "CryptoPrimitives", "ServiceRuntime", "Telemetry", "HTTPServer", "Webhooks", "JSONCodec", "Retention", "CheckoutService",
                "WebhookSenderService", "EntitlementSigning",
            ],
            linker: vendoredLibraries),
        tests(
            "CheckoutServiceIntegrationTests",
            [
                "ServiceSettings", "Catalog", "SeedModels", "TestSupport", "CheckoutService", "BillingModel", "Providers", "ProviderBudget",
                "ProjectionStore", "Postgres", "Kafka", "CryptoPrimitives", "HTTPServer", "HTTPClient", "ServiceRuntime", "Telemetry",
                "SandboxServer", "SandboxKit", "ProviderConfiguration", "Webhooks", "JSONCodec", "Retention", "EntitlementSigning",
            ], linker: vendoredLibraries),
        // A provider declared in the test target alone (TestPay), flowing from its webhook to
        // the entitlement answer through the real receiver, broker, projector and database.
        tests(
            "ProviderSeamIntegrationTests",
            [
                "TestSupport", "BillingModel", "Webhooks", "Entitlements", "ProviderConfiguration", "Providers", "ProjectionStore",
                "ProjectorService", "WebhookReceiverService", "Kafka", "Postgres", "HTTPServer", "HTTPClient", "ServiceRuntime",
                "ServiceSettings", "Telemetry", "CryptoPrimitives", "JSONCodec",
            ],
            linker: vendoredLibraries),
        tests(
            "WebhookReceiverServiceIntegrationTests",
            [
                "WebhookReceiverTestSupport", "Timing", "ServiceSettings", "TestSupport", "WebhookReceiverService", "BillingModel", "Providers",
                "CryptoPrimitives", "Kafka", "HTTPServer", "HTTPClient", "SandboxServer", "SandboxKit", "ServiceRuntime", "Telemetry",
                "ProviderConfiguration", "Webhooks", "JSONCodec",
            ], linker: vendoredLibraries),
        tests(
            "WebhookSenderServiceIntegrationTests",
            [
                "CryptoPrimitives", "Kafka", "BillingModel", "Postgres", "ServiceRuntime", "Telemetry", "TestSupport", "WebhookSenderService",
                "Retention", "EntitlementSigning",
            ],
            linker: vendoredLibraries),
        tests(
            "StorefrontCLIIntegrationTests",
            [
                "ServiceSettings", "StorefrontCLI", "CheckoutService", "ReconcilerService", "TestSupport", "CryptoPrimitives", "Kafka",
                "BillingModel", "Postgres", "ProjectionStore", "Entitlements", "ProviderBudget", "ServiceRuntime", "Telemetry",
                "WebhookSenderService", "Catalog", "Retention", "ProjectorService",
            ], linker: vendoredLibraries),

        // End-to-end
        tests("EndToEndTests", ["SeedModels", "TestSupport", "HTTPClient", "Postgres", "CryptoPrimitives", "HTTPPrimitives"]),
        tests("StorefrontKitEndToEndTests", ["StorefrontKit", "TestSupport", "HTTPClient"]),
        tests("ScaleDemoEndToEndTests", ["TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
