// Tests of startup and shutdown: migrations at startup (idempotent across
// restarts), the configuration defaults, and the pool closed by the
// DatabaseCloser service once the application's service group shuts down;
// on each backend.

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
    @Test(arguments: TestBackend.available)
    func thePoolIsClosedAfterTheApplicationStops(backend: TestBackend) async throws {
        let database = try await withBookshelf(backend) { client, database in
            _ = try await client.createAuthor("Still open")
            #expect(try await database.read { db in try Author.fetchCount(db) } == 1)
        }
        // The service group shut the DatabaseCloser down after the test body: the pool refuses access.
        await #expect(throws: DatabaseError.self) {
            try await database.read { db in try Author.fetchCount(db) }
        }
    }

    @Test(arguments: TestBackend.available)
    func migrationsRunOnceAndSurviveARestart(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            let first = try await testDatabase.open().writer
            let applied = try await first.read { db in try makeBookshelfMigrator(backend: backend.backend).appliedMigrations(db) }
            #expect(applied == [
                "createAuthor", "createBook", "createReview", "createBookStats", "addReviewCreatedAt", "createBookSearch", "createAudit",
                "observeBookChanges", "createPostgresBookSearchIndexes",
            ])
            try await first.write { db in
                var author = Author(name: "Kept")
                try author.insert(db)
            }
            first.close()

            let second = try await testDatabase.open().writer
            defer { second.close() }
            // Not `#expect(try await second.read { … } == …)`: with that form
            // here, the read of the PostgreSQL case below ran this closure
            // again instead of its own (Swift 6.3.1, swift-testing 6.3.1).
            let names = try await second.read { db in try Author.fetchAll(db).map(\.name) }
            #expect(names == ["Kept"])
            switch backend {
            case .sqlite:
                #expect(try await second.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
            case .postgres:
                // The audit triggers are plpgsql, with QuarryPostgres's change
                // notification (migration observeBookChanges); there is no
                // full-text table.
                let triggers = try await second.read { db in
                    try String.fetchAll(db, sql: """
                        SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = CAST('book' AS regclass) ORDER BY tgname
                        """)
                }
                #expect(triggers == ["audit_book_after_delete", "audit_book_after_insert", "audit_book_after_update", "quarry_notify_change"])
                #expect(try await second.read { db in try db.tableExists("book_search") } == false)
            }
        }
    }

    @Test func anUnreachablePostgreSQLServerThrows() async throws {
        // Port 1 on the loopback: nothing listens there; no server is needed.
        await #expect(throws: (any Error).self) {
            _ = try await openBookshelfDatabase(location: "postgres://nobody@127.0.0.1:1/bookshelf?connect_timeout=2", logger: quietLogger)
        }
        await #expect(throws: (any Error).self) {
            _ = try await openBookshelfDatabase(location: "postgres://", logger: quietLogger)
        }
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

    @Test(arguments: TestBackend.available)
    func theCloserClosesOnGracefulShutdown(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            let logger = quietLogger
            let database = try await testDatabase.open(logger: logger).writer
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
}
