// swift-tools-version: 6.0
// Quarry's benchmarks: raw SQLite C code, GRDB and Quarry, side by side.
// A separate package, so that Quarry itself never depends on GRDB.

import PackageDescription

let package = Package(
    name: "QuarryBenchmarks",
    dependencies: [
        .package(name: "Quarry", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // For the quarry-instrumented contender's no-op tracer and metrics.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        // The PostgreSQL mode's hand-written contender (raw-postgresnio); the
        // same package and version range as Quarry's QuarryPostgres target.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // The Fluent contenders (fluent, fluent-postgres): Vapor's ORM over
        // its SQLite and PostgreSQL drivers.
        .package(url: "https://github.com/vapor/fluent-kit", from: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", from: "2.14.0"),
        // Their event loops and thread pool (already resolved through postgres-nio).
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
    ],
    targets: [
        // The system SQLite, for the hand-written C-API contender.
        .systemLibrary(name: "CSQLiteBench", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Counts heap allocations (--count-allocations): defines malloc & co.
        // in the quarry-bench executable, forwarding to the C library's.
        .target(
            name: "CMallocCounter",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        .executableTarget(
            name: "quarry-bench",
            dependencies: [
                "CSQLiteBench",
                "CMallocCounter",
                .product(name: "Quarry", package: "Quarry"),
                .product(name: "QuarryPostgres", package: "Quarry"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // What one short access costs on PostgreSQL, per way of reaching the
        // server (Benchmarks/README.md, "PostgreSQL: the cost of an access").
        .executableTarget(
            name: "postgres-access",
            dependencies: [
                .product(name: "Quarry", package: "Quarry"),
                .product(name: "QuarryPostgres", package: "Quarry"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The WAL growth measurement of the "Operating a database in
        // production" article (Quarry alone).
        .executableTarget(
            name: "wal-growth",
            dependencies: [.product(name: "Quarry", package: "Quarry")]
        ),
        // What transaction observers cost a commit (Benchmarks/README.md,
        // "Cost of change observation").
        .executableTarget(
            name: "observer-latency",
            dependencies: [
                "CSQLiteBench",
                .product(name: "Quarry", package: "Quarry"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // What watching for other processes' commits costs, and how soon
        // they reach an observation (the article "Observing changes").
        .executableTarget(
            name: "foreign-observation",
            dependencies: [
                "CSQLiteBench",
                .product(name: "Quarry", package: "Quarry"),
                .product(name: "QuarryPostgres", package: "Quarry"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
