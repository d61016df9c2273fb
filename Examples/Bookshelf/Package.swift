// swift-tools-version: 6.1
// 6.1: package traits (swift-otel with its OTLP/HTTP exporter only).
// Bookshelf: an example Hummingbird 2 HTTP service whose model layer is Quarry.
// A separate package, so that Quarry itself never depends on a web framework.

import PackageDescription

let package = Package(
    name: "Bookshelf",
    products: [
        .executable(name: "bookshelf", targets: ["bookshelf"]),
        .library(name: "BookshelfService", targets: ["BookshelfService"]),
    ],
    dependencies: [
        // `name:` matters: the clone's folder name varies.
        .package(name: "Quarry", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),  // LogHandler.log(event:)
        // Already Quarry's (Configuration.tracer, .metricsFactory): the pool's
        // spans and metrics; the tests use their in-memory backends.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        // `bookshelf serve --otel`: the OpenTelemetry exporter, for the
        // executable only (not BookshelfService, not the tests). OTLP/HTTP
        // only: the OTLPGRPC trait would add gRPC and HTTP/2.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .target(
            name: "BookshelfService",
            dependencies: [
                .product(name: "Quarry", package: "Quarry"),
                // The PostgreSQL backend: `--database postgres://…`.
                .product(name: "QuarryPostgres", package: "Quarry"),
                // `bookshelf migrate status | plan | apply`.
                .product(name: "QuarryMigrateCommand", package: "Quarry"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "bookshelf",
            dependencies: [
                "BookshelfService",
                .product(name: "QuarryMigrateCommand", package: "Quarry"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "OTel", package: "swift-otel"),
            ]
        ),
        .testTarget(
            name: "BookshelfTests",
            dependencies: [
                "BookshelfService",
                .product(name: "Quarry", package: "Quarry"),
                // A separate admin session creates and drops each test's schema.
                .product(name: "QuarryPostgres", package: "Quarry"),
                .product(name: "QuarryMigrateCommand", package: "Quarry"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
