// The backends the tests run on, and a fresh database per test case: a file
// in a temporary directory on SQLite, a schema of its own on PostgreSQL.
//
// PostgreSQL runs only when QUARRY_POSTGRES_URL is set (see
// scripts/postgres-server.sh in the repository root): then each test case
// creates `bookshelf_test_<random>` through a separate admin session, its
// pool sets `search_path` to it on every connection, and the schema is
// dropped (CASCADE) at the end of the case, whatever its outcome.

import BookshelfService
import Foundation
import Logging
import Quarry
import QuarryPostgres
import Testing

/// A backend a parameterized test runs on: `@Test(arguments: TestBackend.available)`.
enum TestBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    /// The PostgreSQL server of the tests: $QUARRY_POSTGRES_URL, if set and not empty.
    static let postgresURL: String? = {
        guard let url = ProcessInfo.processInfo.environment["QUARRY_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }()

    /// SQLite always; PostgreSQL too when QUARRY_POSTGRES_URL is set.
    static let available: [TestBackend] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    /// Whether the PostgreSQL tests run (for tests of PostgreSQL alone).
    static let postgresAvailable = postgresURL != nil

    /// The service's backend.
    var backend: DatabaseBackend {
        switch self {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    var testDescription: String { backend.description }
}

/// A fresh, empty database for one test case: ``location`` is a file path
/// (SQLite) or the server's URL (PostgreSQL, with ``configuration`` setting
/// the search path to the case's own schema). Make one with
/// ``withTestDatabase(_:_:)``, which removes it at the end.
struct TestDatabase: Sendable {
    let backend: TestBackend
    /// The SQLite file, or the PostgreSQL URL.
    let location: String
    /// The configuration of every pool opened on it.
    let configuration: Configuration
    /// The case's own schema on PostgreSQL; nil on SQLite.
    var schema: String? = nil

    /// The `--database` of a `bookshelf` process on this database: the file,
    /// or the URL with `options=-c search_path=<schema>` (the server sets the
    /// search path of each of the process's connections, as ``configuration``
    /// does in this process).
    var processLocation: String {
        guard let schema else { return location }
        return location + (location.contains("?") ? "&" : "?") + "options=-c%20search_path%3D" + schema
    }

    /// Opens and migrates it, as the service does at startup.
    func open(logger: Logger = quietLogger) async throws -> BookshelfDatabase {
        switch backend {
        case .sqlite:
            return BookshelfDatabase(try await openBookshelfDatabase(path: location, logger: logger))
        case .postgres:
            let pool = try await openBookshelfDatabase(
                postgresURL: location, configuration: configuration, maximumConnectionCount: 4, logger: logger)
            return BookshelfDatabase(writer: pool, backend: .postgres)
        }
    }

    /// Opens it without migrating (for tests of the migrations).
    func openUnmigrated() throws -> any DatabaseWriter {
        switch backend {
        case .sqlite: try DatabasePool(path: location)
        case .postgres: try PostgresDatabasePool(url: location, maximumConnectionCount: 4, configuration: configuration)
        }
    }
}

/// Runs `body` with a fresh ``TestDatabase`` of `backend`, and removes it
/// afterwards (the directory of the file; the schema, dropped with CASCADE),
/// also when `body` throws. Pools opened on it must be closed by then.
func withTestDatabase<T: Sendable>(_ backend: TestBackend, _ body: (TestDatabase) async throws -> T) async throws -> T {
    switch backend {
    case .sqlite:
        let directory = try TemporaryDirectory()
        let database = TestDatabase(backend: .sqlite, location: directory.path + "/bookshelf.sqlite", configuration: Configuration())
        defer { withExtendedLifetime(directory) {} }  // the directory goes when the case ends
        return try await body(database)
    case .postgres:
        let url = try #require(TestBackend.postgresURL, "QUARRY_POSTGRES_URL is not set")
        let admin = try await PostgresSession.connect(to: PostgresConfiguration(url: url))
        // Lowercase letters and digits only: the name needs no escaping, and is quoted anyway.
        let schema = "bookshelf_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        var configuration = Configuration()
        // The property, not the `prepareDatabase(_:)` method: a server
        // connection runs only the property (the method's steps are skipped).
        configuration.prepareDatabase = { db in try db.execute(sql: "SET search_path TO \"\(schema)\"") }
        let result: Result<T, any Error>
        do {
            _ = try await admin.execute(sql: "CREATE SCHEMA \"\(schema)\"")
            result = .success(try await body(TestDatabase(backend: .postgres, location: url, configuration: configuration, schema: schema)))
        } catch {
            result = .failure(error)
        }
        do {
            _ = try await admin.execute(sql: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        } catch {
            Issue.record("could not drop the test schema \(schema): \(error)")
        }
        try? await admin.close()
        return try result.get()
    }
}
