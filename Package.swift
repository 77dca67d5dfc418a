// swift-tools-version:6.2
// Storefront: one package, Swift 6 language mode, no outside Swift packages.
// C libraries enter through the system-library targets in Shared/C*; each is
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

func system(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Shared/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

func library(_ name: String, _ dependencies: [Target.Dependency] = [], linker: [LinkerSetting] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/\(name)", swiftSettings: strict, linkerSettings: linker)
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

        // MARK: - Shared libraries
        // Conversions every module needs (Duration in seconds and milliseconds); no dependencies.
        library("Basics"),
        library("Telemetry", ["Models"]),
        library("Postgres", ["Basics", "CLibPQ"]),
        library("Kafka", ["Basics", "CRdKafka", "ServiceRuntime", "Telemetry"], linker: vendoredLibraries),
        library("HTTPTypes"),
        library("HTTPClient", ["Basics", "CCurl", "HTTPTypes"]),
        library("Crypto", ["Basics", "CCrypto"]),
        // App tokens: static keys and JWKS key sets (fetched over HTTPClient, cached per
        // Cache-Control, refreshed in the background, refetched on an unknown kid, rate-limited).
        library("TokenVerification", ["Basics", "Crypto", "HTTPClient", "ServiceRuntime", "Telemetry"]),
        library("Models"),
        // Webhook verification and parsing (one parse into one value), and the byte-level JSON
        // reader the API clients share; no HTTP client, so the receiver does not link libcurl.
        library("Webhooks", ["Basics", "Models", "Crypto"]),
        // The providers' settings read from the environment (ProvidersConfiguration.fromEnvironment).
        library("ProviderConfiguration", ["Basics", "Models", "Webhooks"]),
        // The one catalog cache both the catalog and the checkout service keep: the `CatalogSource`
        // seam, last good items per provider, lookups, the refresher with its backoff. No provider
        // client (so no libcurl): `Providers.ProviderCatalogSource` adapts a client to the seam.
        library("Catalog", ["Basics", "Models", "ServiceRuntime", "Telemetry"]),
        // The providers' API clients, and their adapter to `Catalog.CatalogSource`.
        library("Providers", ["Basics", "Catalog", "Models", "HTTPClient", "Crypto", "Webhooks", "ProviderConfiguration"]),
        library("ServiceRuntime", ["Basics", "Telemetry"]),
        library("HTTPServer", ["Basics", "CMicroHTTPD", "HTTPTypes", "Models", "ServiceRuntime", "Telemetry"]),
        library("Projection", ["Basics", "Models", "Postgres", "ServiceRuntime"]),
        // One provider API limit shared by every service and replica: a ledger in PostgreSQL
        // (ten-second windows, per-class ceilings, 429 pauses) behind `Providers.ProviderRequestBudget`.
        library("ProviderBudget", ["Basics", "Models", "Postgres", "Providers", "Telemetry"]),

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
        .target(name: "StorefrontKit", path: "Shared/StorefrontKit", swiftSettings: language),

        // MARK: - Services (logic in a library, a thin executable each)
        .target(
            name: "CatalogService", dependencies: ["Basics", "Catalog", "Models", "HTTPServer", "ServiceRuntime", "Telemetry"],
            path: "Services/catalog/CatalogService", swiftSettings: strict),
        .executableTarget(
            name: "catalog",
            dependencies: [
                "Basics", "Catalog", "CatalogService", "Providers", "ProviderConfiguration", "HTTPClient", "Models", "HTTPServer", "ServiceRuntime",
                "Telemetry",
            ],
            path: "Services/catalog/main", swiftSettings: strict),
        .target(
            name: "WebhookReceiverService",
            dependencies: ["Basics", "Models", "Webhooks", "ProviderConfiguration", "Kafka", "HTTPServer", "ServiceRuntime", "Telemetry"],
            path: "Services/webhook-receiver/WebhookReceiverService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "webhook-receiver",
            dependencies: [
                "Basics", "WebhookReceiverService", "Webhooks", "ProviderConfiguration", "Kafka", "Models", "HTTPServer", "ServiceRuntime",
                "Telemetry",
            ],
            path: "Services/webhook-receiver/main", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .target(
            name: "ProjectorService",
            dependencies: ["Basics", "Models", "Webhooks", "Projection", "Postgres", "Kafka", "HTTPServer", "ServiceRuntime", "Telemetry"],
            path: "Services/subscription-projector/ProjectorService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "subscription-projector", dependencies: ["ProjectorService", "HTTPServer", "ServiceRuntime", "Telemetry", "Kafka", "Postgres"],
            path: "Services/subscription-projector/main", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .target(
            name: "CheckoutService",
            dependencies: [
                "Basics", "Catalog", "Models", "Providers", "ProviderBudget", "Projection", "Postgres", "Kafka", "Crypto", "HTTPServer",
                "ServiceRuntime", "Telemetry", "TokenVerification", "Webhooks",
            ],
            path: "Services/checkout/CheckoutService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "checkout",
            dependencies: [
                "Basics", "Catalog", "CheckoutService", "Projection", "ProviderBudget", "Providers", "ProviderConfiguration", "Kafka", "Postgres",
                "HTTPClient", "Models", "HTTPServer", "ServiceRuntime", "Telemetry", "Webhooks",
            ],
            path: "Services/checkout/main", swiftSettings: strict, linkerSettings: vendoredLibraries),

        .target(
            name: "ReconcilerService",
            dependencies: [
                "Basics", "Models", "Providers", "ProviderBudget", "ProviderConfiguration", "Webhooks", "HTTPClient", "Postgres", "Kafka",
                "HTTPServer", "ServiceRuntime", "Telemetry",
            ],
            path: "Services/reconciler/ReconcilerService", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "reconciler",
            dependencies: [
                "Basics", "ReconcilerService", "ProviderConfiguration", "HTTPServer", "ServiceRuntime", "Telemetry", "Kafka", "Models", "Postgres",
            ],
            path: "Services/reconciler/main", swiftSettings: strict, linkerSettings: vendoredLibraries),

        // MARK: - Tools
        .target(name: "SandboxKit", dependencies: [], path: "Tools/SandboxKit", swiftSettings: strict),
        .target(
            name: "SandboxServer", dependencies: ["SandboxKit", "HTTPServer", "HTTPClient", "Crypto", "ServiceRuntime", "Telemetry", "Basics"],
            path: "Tools/SandboxServer", swiftSettings: strict),
        .executableTarget(
            name: "provider-sandbox", dependencies: ["SandboxServer", "ServiceRuntime", "Telemetry", "SandboxKit"],
            path: "Tools/provider-sandbox", swiftSettings: strict),
        .target(
            name: "StorefrontCLI",
            dependencies: [
                "Basics", "CheckoutService", "Crypto", "HTTPClient", "Kafka", "Models", "Postgres", "Projection", "ProviderConfiguration",
                "Providers", "ReconcilerService", "ServiceRuntime", "Telemetry",
            ],
            path: "Tools/StorefrontCLI", swiftSettings: strict),
        .executableTarget(
            name: "storefront", dependencies: ["StorefrontCLI", "ServiceRuntime", "Telemetry", "Basics"],
            path: "Tools/storefront", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "scale-demo", dependencies: ["Basics", "Crypto", "HTTPClient", "Kafka", "Models", "Postgres", "Webhooks"],
            path: "Tools/scale-demo", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "http-bench-server", dependencies: ["HTTPServer", "Telemetry"], path: "Tools/http-bench-server", swiftSettings: strict),
        // `make bench`'s helpers: delivery plans, an open/closed-loop webhook sender, the projector's backlog, topic counts.
        .executableTarget(
            name: "storefront-bench", dependencies: ["Basics", "Crypto", "Kafka", "Models", "Postgres", "Webhooks"],
            path: "Tools/storefront-bench", swiftSettings: strict, linkerSettings: vendoredLibraries),
        .executableTarget(
            name: "webhook-cpu-bench", dependencies: ["Basics", "Crypto", "Models", "Webhooks"], path: "Tools/webhook-cpu-bench",
            swiftSettings: strict, linkerSettings: vendoredLibraries),
        // libFuzzer targets (`make fuzz`, scripts/fuzz.sh builds them with -sanitize=fuzzer,address
        // in .build/fuzz). Each has an ordinary @main (FuzzEntry): with libFuzzer linked it runs
        // libFuzzer's driver, in the normal build it replays input files, so they build everywhere.
        .target(
            name: "FuzzSupport", dependencies: ["Basics", "Crypto", "Models", "Webhooks"], path: "Tools/fuzz/FuzzSupport", swiftSettings: strict),
        .executableTarget(
            name: "fuzz-lemonsqueezy-webhook", dependencies: ["FuzzSupport", "Models"], path: "Tools/fuzz/fuzz-lemonsqueezy-webhook",
            swiftSettings: strict),
        .executableTarget(
            name: "fuzz-paystack-webhook", dependencies: ["FuzzSupport", "Models"], path: "Tools/fuzz/fuzz-paystack-webhook",
            swiftSettings: strict),
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
            dependencies: ["Basics", "Crypto", "Kafka", "Models", "Postgres", "HTTPClient", "HTTPServer", "Telemetry", "Webhooks"],
            path: "Tests/TestSupport",
            swiftSettings: strict, linkerSettings: vendoredLibraries),
        .target(name: "SeedModels", path: "Tests/SeedModels", swiftSettings: strict),
        // The webhook receiver's test secrets and signed bodies, shared by its unit and integration targets.
        .target(
            name: "WebhookReceiverTestSupport", dependencies: ["Basics", "Crypto", "Models", "Telemetry", "TestSupport", "Webhooks"],
            path: "Tests/WebhookReceiverTestSupport", swiftSettings: strict),

        // Unit
        tests("BasicsTests", ["Basics"]),
        tests("TelemetryTests", ["Telemetry"]),
        tests("ModelsTests", ["SeedModels", "Models"]),
        tests("ProviderBudgetTests", ["Models", "ProviderBudget", "Providers", "Telemetry"]),
        tests("ProjectionTests", ["Basics", "Projection", "Models", "ServiceRuntime"]),
        tests("SandboxKitTests", ["SandboxKit"]),
        tests("CryptoTests", ["Crypto", "TestSupport"]),
        // The JWKS key sets against a fake fetcher, and against a local JWKS server (TestSupport.LocalJWKSServer).
        tests("TokenVerificationTests", ["Basics", "Crypto", "HTTPClient", "TestSupport", "TokenVerification", "Telemetry"]),
        tests("HTTPClientTests", ["HTTPClient"]),
        tests("HTTPServerTests", ["HTTPServer", "Telemetry", "TestSupport"]),
        tests("ServiceRuntimeTests", ["Basics", "ServiceRuntime", "Telemetry", "TestSupport"]),
        tests("PostgresTests", ["Basics", "Postgres"]),
        // CRdKafka: librdkafka's mock cluster injects broker errors into a producer, with no server.
        tests("KafkaTests", ["Basics", "CRdKafka", "Kafka", "ServiceRuntime", "Telemetry"], linker: vendoredLibraries),
        tests("WebhooksTests", ["Basics", "Webhooks", "ProviderConfiguration", "Models", "HTTPTypes", "TestSupport"]),
        tests(
            "ProvidersTests",
            [
                "Basics", "Providers", "ServiceRuntime", "Models", "HTTPClient", "SandboxServer", "SandboxKit", "Telemetry", "TestSupport",
                "ProviderConfiguration", "Webhooks",
            ]),
        tests(
            "CatalogServiceTests",
            ["Basics", "Catalog", "SeedModels", "TestSupport", "CatalogService", "Models", "HTTPServer", "HTTPClient", "ServiceRuntime", "Telemetry"]),
        tests(
            "CheckoutServiceTests",
            [
                "Basics", "Catalog", "CheckoutService", "Crypto", "HTTPServer", "Models", "Postgres", "Projection", "Providers", "ServiceRuntime",
                "Telemetry", "TestSupport", "TokenVerification",
            ],
            linker: vendoredLibraries),
        tests(
            "ReconcilerServiceTests",
            [
                "Basics", "TestSupport", "ReconcilerService", "Models", "Providers", "Kafka", "HTTPClient", "SandboxServer", "SandboxKit",
                "ServiceRuntime", "Telemetry", "ProviderConfiguration", "Webhooks",
            ],
            linker: vendoredLibraries),
        tests(
            "WebhookReceiverServiceTests",
            [
                "WebhookReceiverTestSupport", "Basics", "HTTPServer", "ServiceRuntime", "WebhookReceiverService", "Kafka", "Models", "Telemetry",
                "Webhooks",
            ],
            linker: vendoredLibraries),
        tests("StorefrontCLITests", ["Basics", "Crypto", "ServiceRuntime", "StorefrontCLI"], linker: vendoredLibraries),
        // The kit's own tests, plus the server's completion page (CheckoutService; a test
        // target's linker flags never reach the StorefrontKit product).
        tests("StorefrontKitTests", ["Basics", "StorefrontKit", "CheckoutService", "HTTPServer", "ServiceRuntime"], linker: vendoredLibraries),
        tests("ProjectorServiceTests", ["Kafka", "Models", "ProjectorService", "Telemetry"], linker: vendoredLibraries),

        // Integration
        tests("PostgresIntegrationTests", ["Postgres", "TestSupport"]),
        tests("KafkaIntegrationTests", ["Kafka", "TestSupport"], linker: vendoredLibraries),
        tests("HTTPClientIntegrationTests", ["HTTPClient", "TestSupport"], exclude: ["test_server.py"]),
        tests(
            "ProjectorServiceIntegrationTests",
            [
                "Basics", "TestSupport", "ProjectorService", "Projection", "Models", "Postgres", "Kafka", "Crypto", "ServiceRuntime", "Telemetry",
                "HTTPServer", "Webhooks",
            ],
            linker: vendoredLibraries),
        tests(
            "CheckoutServiceIntegrationTests",
            [
                "Basics", "Catalog", "SeedModels", "TestSupport", "CheckoutService", "Models", "Providers", "ProviderBudget", "Projection",
                "Postgres", "Kafka", "Crypto", "HTTPServer", "HTTPClient", "ServiceRuntime", "Telemetry", "SandboxServer", "SandboxKit",
                "ProviderConfiguration", "Webhooks",
            ], linker: vendoredLibraries),
        tests(
            "WebhookReceiverServiceIntegrationTests",
            [
                "WebhookReceiverTestSupport", "Basics", "TestSupport", "WebhookReceiverService", "Models", "Providers", "Crypto", "Kafka",
                "HTTPServer", "HTTPClient", "SandboxServer", "SandboxKit", "ServiceRuntime", "Telemetry", "ProviderConfiguration", "Webhooks",
            ], linker: vendoredLibraries),
        tests(
            "StorefrontCLIIntegrationTests",
            [
                "Basics", "StorefrontCLI", "CheckoutService", "ReconcilerService", "TestSupport", "Crypto", "Kafka", "Models", "Postgres",
                "Projection", "ProviderBudget", "ServiceRuntime", "Telemetry",
            ], linker: vendoredLibraries),

        // End-to-end
        tests("EndToEndTests", ["SeedModels", "TestSupport", "HTTPClient", "Postgres", "Crypto", "HTTPTypes"]),
        // Kafka: the live-stream test publishes the entitlement change the projector's outbox will.
        tests("StorefrontKitEndToEndTests", ["StorefrontKit", "TestSupport", "HTTPClient", "Kafka"], linker: vendoredLibraries),
        tests("ScaleDemoEndToEndTests", ["TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
