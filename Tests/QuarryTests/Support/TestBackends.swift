// The backends of the shared suites: the record, query-interface and
// migration tests that make sense on SQLite and on PostgreSQL run, unchanged,
// on a DatabaseQueue, a DatabasePool and — when QUARRY_POSTGRES_URL names a
// server (scripts/postgres-server.sh) — a PostgresDatabasePool whose
// connections use a new schema of their own, dropped afterwards.
//
// A test is shared by taking a `Backend` argument, `@Test(arguments:
// Backend.all)`, and opening its database with `backend.withWriter`. Each
// test case counts itself, and the counts per backend are printed when the
// test process exits, so that CI shows how much runs on each.

import Foundation
@testable import Quarry
import QuarryPostgres
import Synchronization
import Testing

enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqliteMemory = "in-memory DatabaseQueue"
    case sqliteQueue = "DatabaseQueue"
    case sqlitePool = "DatabasePool"
    case postgres = "PostgreSQL"

    var testDescription: String { rawValue }

    /// The server of the PostgreSQL backend, or nil (then it is left out).
    static let postgresURL: String? = {
        guard let url = ProcessInfo.processInfo.environment["QUARRY_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }()

    /// The backends shared tests run on: PostgreSQL only when a server is configured.
    static let all: [Backend] = postgresURL == nil ? [.sqliteQueue, .sqlitePool] : [.sqliteQueue, .sqlitePool, .postgres]

    /// The SQLite backends only: for tests of SQLite's own behaviour (its
    /// collations, its LIKE, its error messages, untyped columns), which the
    /// comment of each such test names.
    static let sqlite: [Backend] = [.sqliteQueue, .sqlitePool]

    /// `all`, and an in-memory DatabaseQueue first: for the record tests,
    /// which ran on the three SQLite writers before they were shared.
    static let allWithMemory: [Backend] = [.sqliteMemory] + all

    /// The three SQLite writers: record tests of SQLite's own behaviour.
    static let sqliteWithMemory: [Backend] = [.sqliteMemory, .sqliteQueue, .sqlitePool]

    var isPostgreSQL: Bool { self == .postgres }

    /// Opens a writer on a new, empty database that lives as long as
    /// `directory`: a file in it, or a PostgreSQL schema dropped when the
    /// directory is deleted.
    func make(in directory: TemporaryDirectory, configuration: Configuration = Configuration()) throws -> any DatabaseWriter {
        SharedSuiteTally.count(self)
        switch self {
        case .sqliteMemory: return try DatabaseQueue(configuration: configuration)
        case .sqliteQueue: return try DatabaseQueue(path: directory.path(), configuration: configuration)
        case .sqlitePool: return try DatabasePool(path: directory.path(), configuration: configuration)
        case .postgres:
            let schema = try PostgresSchema(configuration: configuration)
            directory.onDelete { schema.drop() }
            return schema.pool
        }
    }

    /// Runs `body` with a writer on a new, empty database.
    func withWriter<T>(configuration: Configuration = Configuration(), _ body: (any DatabaseWriter) throws -> T) throws -> T {
        SharedSuiteTally.count(self)
        switch self {
        case .sqliteMemory:
            return try body(DatabaseQueue(configuration: configuration))
        case .sqliteQueue, .sqlitePool:
            let directory = try TemporaryDirectory()
            let writer: any DatabaseWriter = self == .sqliteQueue
                ? try DatabaseQueue(path: directory.path(), configuration: configuration)
                : try DatabasePool(path: directory.path(), configuration: configuration)
            return try withExtendedLifetime(directory) { try body(writer) }
        case .postgres:
            let schema = try PostgresSchema(configuration: configuration)
            defer { schema.drop() }
            return try body(schema.pool)
        }
    }

    /// The async variant of `withWriter(configuration:_:)`.
    func withWriter<T>(
        configuration: Configuration = Configuration(), _ body: (any DatabaseWriter) async throws -> T
    ) async throws -> T {
        SharedSuiteTally.count(self)
        switch self {
        case .sqliteMemory:
            return try await body(DatabaseQueue(configuration: configuration))
        case .sqliteQueue, .sqlitePool:
            let directory = try TemporaryDirectory()
            let writer: any DatabaseWriter = self == .sqliteQueue
                ? try DatabaseQueue(path: directory.path(), configuration: configuration)
                : try DatabasePool(path: directory.path(), configuration: configuration)
            let result = try await body(writer)
            withExtendedLifetime(directory) {}
            return result
        case .postgres:
            let schema = try PostgresSchema(configuration: configuration)
            defer { schema.drop() }
            return try await body(schema.pool)
        }
    }

    /// Runs `body` with a function that opens writers of this backend on one
    /// new, empty database: the same file (a DatabaseQueue on
    /// `.sqliteMemory`), or pools on the same PostgreSQL schema. For tests of
    /// several connections or processes on one database, such as migrators
    /// started together.
    func withSharedDatabase<T>(
        _ body: (_ open: (Configuration) throws -> any DatabaseWriter) async throws -> T
    ) async throws -> T {
        SharedSuiteTally.count(self)
        switch self {
        case .sqliteMemory, .sqliteQueue, .sqlitePool:
            let directory = try TemporaryDirectory()
            let path = directory.path("db.sqlite")
            let result = try await body { configuration -> any DatabaseWriter in
                if self == .sqlitePool { return try DatabasePool(path: path, configuration: configuration) }
                return try DatabaseQueue(path: path, configuration: configuration)
            }
            withExtendedLifetime(directory) {}
            return result
        case .postgres:
            let schema = try PostgresSchema(configuration: Configuration())
            defer { schema.drop() }
            return try await body { configuration in try schema.openPool(configuration: configuration) }
        }
    }

    /// The synchronous variant of `withSharedDatabase(_:)`.
    func withSharedDatabase<T>(_ body: (_ open: (Configuration) throws -> any DatabaseWriter) throws -> T) throws -> T {
        SharedSuiteTally.count(self)
        switch self {
        case .sqliteMemory, .sqliteQueue, .sqlitePool:
            let directory = try TemporaryDirectory()
            let path = directory.path("db.sqlite")
            return try withExtendedLifetime(directory) {
                try body { configuration -> any DatabaseWriter in
                    if self == .sqlitePool { return try DatabasePool(path: path, configuration: configuration) }
                    return try DatabaseQueue(path: path, configuration: configuration)
                }
            }
        case .postgres:
            let schema = try PostgresSchema(configuration: Configuration())
            defer { schema.drop() }
            return try body { configuration in try schema.openPool(configuration: configuration) }
        }
    }

    /// Runs `body` with a writer on a new database that holds the query
    /// fixtures (QueryFixtures.swift).
    func withQueryFixtures<T>(_ body: (any DatabaseWriter) throws -> T) throws -> T {
        try withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            return try body(writer)
        }
    }
}

/// A schema of its own on the PostgreSQL test server, and a pool whose
/// connections use it.
private final class PostgresSchema {
    /// One pool for every schema's creation and removal: the test cases run
    /// in parallel, and each PostgreSQL connection is a server process.
    private static let admin = Result { try PostgresDatabasePool(url: Backend.postgresURL ?? "", maximumConnectionCount: 2) }

    let name = "quarry_shared_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
    let pool: PostgresDatabasePool

    /// The other pools on this schema (openPool(configuration:)).
    private let otherPools = Mutex<[PostgresDatabasePool]>([])

    init(configuration: Configuration) throws {
        let name = self.name
        try Self.admin.get().writeWithoutTransaction { db in try db.execute(sql: "CREATE SCHEMA \(name.quotedDatabaseIdentifier)") }
        pool = try Self.makePool(schema: name, configuration: configuration)
    }

    /// A pool whose connections use `schema`.
    private static func makePool(schema: String, configuration: Configuration) throws -> PostgresDatabasePool {
        var configuration = configuration
        configuration.prepareDatabase { db in try db.execute(sql: "SET search_path TO \(schema.quotedDatabaseIdentifier)") }
        // A writer and a reader are enough for the tests' accesses.
        return try PostgresDatabasePool(url: Backend.postgresURL ?? "", maximumConnectionCount: 2, configuration: configuration)
    }

    /// Another pool on this schema, closed by drop().
    func openPool(configuration: Configuration) throws -> PostgresDatabasePool {
        let other = try Self.makePool(schema: name, configuration: configuration)
        otherPools.withLock { $0.append(other) }
        return other
    }

    /// Closes the pools and drops the schema with everything in it.
    func drop() {
        pool.close()
        for other in otherPools.withLock({ $0 }) { other.close() }
        let name = self.name
        _ = try? Self.admin.get().writeWithoutTransaction { db in
            try db.execute(sql: "DROP SCHEMA IF EXISTS \(name.quotedDatabaseIdentifier) CASCADE")
        }
    }
}

/// The test cases of the shared suites that ran, per backend; printed once
/// when the test process exits.
enum SharedSuiteTally {
    private static let counts = Mutex<[Backend: Int]>([:])
    private static let registration: Void = {
        atexit { SharedSuiteTally.printCounts() }
    }()

    static func count(_ backend: Backend) {
        _ = registration
        counts.withLock { $0[backend, default: 0] += 1 }
    }

    static func printCounts() {
        let counts = counts.withLock { $0 }
        let sqlite = counts[.sqliteMemory, default: 0] + counts[.sqliteQueue, default: 0] + counts[.sqlitePool, default: 0]
        let postgres = counts[.postgres, default: 0]
        let server = Backend.postgresURL == nil ? " (QUARRY_POSTGRES_URL is not set)" : ""
        print(
            "Shared suites: \(sqlite) test cases ran on SQLite (in-memory \(counts[.sqliteMemory, default: 0]), "
                + "DatabaseQueue \(counts[.sqliteQueue, default: 0]), "
                + "DatabasePool \(counts[.sqlitePool, default: 0])), \(postgres) on PostgreSQL\(server)")
    }
}
