// Tests of startup and shutdown: migrations at startup (idempotent across
// restarts), the configuration defaults, and the pool closed by the
// DatabaseCloser service once the application's service group shuts down.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Quarry
import ServiceLifecycle
import Testing

@Suite("Startup and shutdown")
struct LifecycleTests {
    @Test func thePoolIsClosedAfterTheApplicationStops() async throws {
        let database = try await withBookshelf { client, database in
            _ = try await client.createAuthor("Still open")
            #expect(try await database.read { db in try Author.fetchCount(db) } == 1)
        }
        // The service group shut the DatabaseCloser down after the test body: the pool refuses access.
        await #expect(throws: DatabaseError.self) {
            try await database.read { db in try Author.fetchCount(db) }
        }
    }

    @Test func migrationsRunOnceAndSurviveARestart() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/restart.sqlite"
        let logger = quietLogger
        let first = try await openBookshelfDatabase(path: path, logger: logger)
        let applied = try await first.read { db in try makeBookshelfMigrator().appliedMigrations(db) }
        #expect(applied == [
            "createAuthor", "createBook", "createReview", "createBookStats", "addReviewCreatedAt", "createBookSearch", "createAudit",
        ])
        try await first.write { db in
            var author = Author(name: "Kept")
            try author.insert(db)
        }
        first.close()

        let second = try await openBookshelfDatabase(path: path, logger: logger)
        defer { second.close() }
        #expect(try await second.read { db in try Author.fetchAll(db).map(\.name) } == ["Kept"])
        #expect(try await second.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func openingAnUnusableFileThrows() async throws {
        let directory = try TemporaryDirectory()
        await #expect(throws: (any Error).self) {
            _ = try await openBookshelfDatabase(path: directory.path + "/missing/dir/db.sqlite", logger: quietLogger)
        }
        let garbage = directory.path + "/garbage.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        await #expect(throws: (any Error).self) {
            _ = try await openBookshelfDatabase(path: garbage, logger: quietLogger)
        }
    }

    @Test func configurationDefaults() {
        let configuration = BookshelfConfiguration()
        #expect(configuration.hostname == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.databasePath == "bookshelf.sqlite")
        #expect(PageRequest.maximumPerPage == 100)
    }

    @Test func theCloserClosesOnGracefulShutdown() async throws {
        let directory = try TemporaryDirectory()
        let logger = quietLogger
        let database = try await openBookshelfDatabase(path: directory.path + "/closer.sqlite", logger: logger)
        let group = ServiceGroup(configuration: .init(services: [DatabaseCloser(database: database, logger: logger)], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // Open until shutdown is asked for.
            #expect(try await database.read { db in try Author.fetchCount(db) } == 0)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        await #expect(throws: DatabaseError.self) {
            try await database.read { db in try Author.fetchCount(db) }
        }
    }
}
