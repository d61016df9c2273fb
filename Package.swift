// swift-tools-version: 6.0
// Quarry: a macro-free record and persistence layer for Swift services, over the system SQLite.

import PackageDescription

let package = Package(
    name: "Quarry",
    // Linux is what CI builds and tests. macOS 15 is the first with the
    // Synchronization module (Mutex) that Quarry uses; not built there yet.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Quarry", targets: ["Quarry"]),
        // The PostgreSQL backend. A separate product, so that users of
        // SQLite alone never build PostgresNIO.
        .library(name: "QuarryPostgres", targets: ["QuarryPostgres"]),
        // `migrate status | plan | apply` for an application's command line.
        // A separate product, so that the Quarry library does not depend on
        // swift-argument-parser.
        .library(name: "QuarryMigrateCommand", targets: ["QuarryMigrateCommand"]),
        .executable(name: "quarry-demo", targets: ["QuarryDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Opt-in observability: spans (Configuration.tracer) and metrics
        // (Configuration.metricsFactory).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation`: builds the DocC catalog (CI
        // checks it builds without warnings: scripts/docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // Property-based tests (test target only).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        // The PostgreSQL wire protocol, for the QuarryPostgres target only.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // PostgresNIO's own transport; named here because the PostgreSQL
        // tests' fault proxy (Tests/QuarryPostgresTests/Support) imports it.
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        // The system SQLite library (Debian: `apt-get install libsqlite3-dev`).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "Quarry",
            dependencies: [
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The PostgreSQL backend. Only this target (and its tests) depend on
        // PostgresNIO: the Quarry target must not.
        .target(
            name: "QuarryPostgres",
            dependencies: [
                "Quarry",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "QuarryMigrateCommand",
            dependencies: [
                "Quarry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "QuarryDemo",
            dependencies: [
                "Quarry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Demo"
        ),
        // Started as a separate process by the reliability tests (crash kills,
        // a second process on one file); not a product.
        .executableTarget(
            name: "QuarryProcessHelper",
            // CSQLite: the out-of-memory mode caps SQLite's heap.
            dependencies: ["Quarry", "CSQLite"],
            path: "Tests/ProcessHelper"
        ),
        // A fault-injecting SQLite VFS (counts I/O calls, fails chosen ones,
        // simulates power loss) for the reliability tests; not a product.
        .target(
            name: "CQuarryFaultVFS",
            dependencies: ["CSQLite"],
            path: "Tests/FaultVFS"
        ),
        // What the test targets share: the seeded generator and the run's
        // seed, the timing slack, observations with delivery times.
        .target(
            name: "QuarryTestSupport",
            dependencies: ["Quarry"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "QuarryTests",
            dependencies: [
                "QuarryTestSupport",
                // CSQLite: some tests set a connection limit through the C API.
                // QuarryPostgres: the shared suites also run on PostgreSQL (Support/TestBackends.swift).
                // CQuarryFaultVFS: the power-loss and I/O-error tests (Reliability/).
                "Quarry", "QuarryPostgres", "QuarryProcessHelper", "CSQLite", "CQuarryFaultVFS",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // Run against a real server when QUARRY_POSTGRES_URL is set
        // (scripts/postgres-server.sh); each suite skips with a printed reason otherwise.
        // Started as separate processes by the PostgreSQL tests (replicas
        // racing the migrator); not a product.
        .executableTarget(
            name: "QuarryPostgresProcessHelper",
            dependencies: ["Quarry", "QuarryPostgres"],
            path: "Tests/PostgresProcessHelper"
        ),
        .testTarget(
            name: "QuarryMigrateCommandTests",
            dependencies: [
                "Quarry", "QuarryPostgres", "QuarryMigrateCommand",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "QuarryPostgresTests",
            dependencies: [
                "Quarry", "QuarryPostgres", "QuarryPostgresProcessHelper", "QuarryTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // The fault proxy of Support/FaultProxy.swift.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The generators of the URL secret property test.
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
