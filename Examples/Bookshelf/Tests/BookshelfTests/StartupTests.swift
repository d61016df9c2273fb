// Tests of the service's start-up sequence and its database's observability:
// the migrations (and the schema check hook) run inside the application's
// service group, before the server listens; a failing migration or check
// stops the service with a logged error and closes the pool; the pool gets
// the service's logger, tracer and metrics factory; on each backend.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import InMemoryTracing
import Logging
import MetricsTestKit
import Quarry
import ServiceLifecycle
import Synchronization
import Testing

@Suite("Start-up sequence and observability")
struct StartupTests {
    /// Every migration, in order.
    static let allMigrations = [
        "createAuthor", "createBook", "createReview", "createBookStats", "addReviewCreatedAt", "createBookSearch", "createAudit",
        "observeBookChanges", "createPostgresBookSearchIndexes",
    ]

    @Test(arguments: TestBackend.available)
    func migrationsRunWhenTheApplicationStarts(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            let storage = CapturingLogHandler.Storage()
            let logger = Logger(label: "bookshelf-tests") { _ in CapturingLogHandler(storage: storage) }
            let database = try connectBookshelfDatabase(location: testDatabase.location, configuration: testDatabase.configuration)
            // Opened, not migrated yet.
            #expect(try await database.writer.read { db in try db.tableExists("author") } == false)
            let app = buildApplication(BookshelfConfiguration(port: 0), database: database, logger: logger)
            try await app.test(.router) { client in
                let response = try await client.send(.get, "/authors")
                #expect(response.status == .ok)
                let applied = try await database.writer.read { db in
                    try makeBookshelfMigrator(backend: backend.backend).appliedMigrations(db)
                }
                #expect(applied == Self.allMigrations)
            }
            let messages = storage.entries.withLock { $0.map(\.message) }
            let migrating = try #require(messages.firstIndex(of: "migrating database"))
            let ready = try #require(messages.firstIndex(of: "database ready"))
            #expect(migrating < ready)
            // Closed by the DatabaseCloser when the application stopped.
            await #expect(throws: DatabaseError.self) { try await database.writer.read { db in try Author.fetchCount(db) } }
        }
    }

    @Test func buildApplicationOpensTheFileAndMigratesAtStartup() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/bookshelf.sqlite"
        let app = try await buildApplication(BookshelfConfiguration(port: 0, databasePath: path, logLevel: .critical))
        // Opened (the file exists), not migrated until the application runs.
        #expect(FileManager.default.fileExists(atPath: path))
        try await app.test(.router) { client in
            let response = try await client.send(.post, "/authors", json: #"{"name": "Started"}"#)
            #expect(response.status == .created)
        }
        let reopened = try DatabasePool(path: path)
        defer { reopened.close() }
        #expect(try await reopened.read { db in try makeBookshelfMigrator().appliedMigrations(db) } == Self.allMigrations)
    }

    @Test(arguments: TestBackend.available)
    func aFailingMigrationStopsTheServiceWithALoggedError(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            // A table `author` the migrator did not make: migration createAuthor fails.
            let setup = try testDatabase.openUnmigrated()
            try await setup.write { db in try db.execute(sql: "CREATE TABLE author (id INTEGER)") }
            setup.close()

            let storage = CapturingLogHandler.Storage()
            let logger = Logger(label: "bookshelf-tests") { _ in CapturingLogHandler(storage: storage) }
            let database = try connectBookshelfDatabase(location: testDatabase.location, configuration: testDatabase.configuration)
            let app = buildApplication(BookshelfConfiguration(port: 0), database: database, logger: logger)
            await #expect(throws: (any Error).self) {
                try await withTimeout(.seconds(60)) { try await app.run() }
            }
            #expect(!Self.listened(storage), "the server must not listen when a migration fails")
            let failure = try #require(storage.entries.withLock { entries in
                entries.first { $0.message == "database start-up failed; the service stops" }
            })
            #expect(failure.level == .error)
            #expect(failure.metadata["error"] != nil)
            #expect(!storage.entries.withLock { $0.contains { $0.message == "database ready" } })
            // The service group shut down: the DatabaseCloser closed the pool.
            await #expect(throws: DatabaseError.self) { try await database.writer.read { db in try Author.fetchCount(db) } }
        }
    }

    struct SchemaMismatch: Error, Equatable {}

    @Test(arguments: TestBackend.available)
    func theSchemaCheckRunsAfterTheMigrationsAndCanStopTheService(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            let database = try connectBookshelfDatabase(location: testDatabase.location, configuration: testDatabase.configuration)
            let storage = CapturingLogHandler.Storage()
            let logger = Logger(label: "bookshelf-tests") { _ in CapturingLogHandler(storage: storage) }
            let sawTables = Mutex<Bool?>(nil)
            let app = buildApplication(BookshelfConfiguration(port: 0), database: database, logger: logger) { database, _ in
                // After the migrations: the tables exist.
                let exists = try await database.writer.read { db in try db.tableExists("book") && db.tableExists("audit") }
                sawTables.withLock { $0 = exists }
                throw SchemaMismatch()
            }
            await #expect(throws: SchemaMismatch()) {
                try await withTimeout(.seconds(60)) { try await app.run() }
            }
            #expect(sawTables.withLock { $0 } == true)
            #expect(!Self.listened(storage))
            #expect(storage.entries.withLock { $0.contains { $0.message == "database start-up failed; the service stops" } })
            await #expect(throws: DatabaseError.self) { try await database.writer.read { db in try Author.fetchCount(db) } }
        }
    }

    /// Quarry's own schema check of the record types: a table that lost a
    /// column the records read stops the service before it listens.
    @Test(arguments: TestBackend.available)
    func aSchemaThatNoLongerMatchesTheRecordsStopsTheService(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            // Migrated, then changed by hand: the review table loses its comment.
            let setup = try testDatabase.openUnmigrated()
            try await makeBookshelfMigrator(backend: backend.backend).migrate(setup)
            try await setup.write { db in try db.execute(sql: "ALTER TABLE review DROP COLUMN comment") }
            setup.close()

            let storage = CapturingLogHandler.Storage()
            let logger = Logger(label: "bookshelf-tests") { _ in CapturingLogHandler(storage: storage) }
            let database = try connectBookshelfDatabase(location: testDatabase.location, configuration: testDatabase.configuration)
            let app = buildApplication(BookshelfConfiguration(port: 0), database: database, logger: logger)
            let error = try await #require(throws: SchemaCheckError.self) {
                try await withTimeout(.seconds(60)) { try await app.run() }
            }
            #expect(error.mismatches.count == 1)
            #expect("\(error)".contains("comment"))
            #expect(!Self.listened(storage))
            let failure = try #require(storage.entries.withLock { entries in
                entries.first { $0.message == "database start-up failed; the service stops" }
            })
            #expect(failure.metadata["error"]?.description.contains("comment") == true)
        }
    }

    @Test(arguments: TestBackend.available)
    func aPassingSchemaCheckLetsTheServerStart(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            let database = try connectBookshelfDatabase(location: testDatabase.location, configuration: testDatabase.configuration)
            let checks = Mutex(0)
            let app = buildApplication(
                BookshelfConfiguration(port: 0), database: database, logger: quietLogger,
                schemaCheck: { _, _ in checks.withLock { $0 += 1 } })
            try await app.test(.live) { client in
                let response = try await client.send(.get, "/health")
                #expect(response.status == .ok)
            }
            #expect(checks.withLock { $0 } == 1)
        }
    }

    @Test func theDatabaseConfigurationCarriesTheServicesObservability() throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let configuration = BookshelfConfiguration(tracer: tracer, metricsFactory: metrics)
        var base = Configuration()
        base.maximumReaderCount = 3
        let database = configuration.databaseConfiguration(logger: quietLogger, base: base)
        #expect(database.logger?.label == "bookshelf-tests")
        #expect(database.tracer is InMemoryTracer)
        #expect(database.metricsFactory is TestMetrics)
        #expect(database.label == "bookshelf")
        #expect(database.maximumReaderCount == 3)
        // Other processes' commits reach the event streams (SQLite): polled
        // every 250 ms by default, or as the base says.
        #expect(database.foreignCommitPollingInterval == .milliseconds(250))
        base.foreignCommitPollingInterval = .seconds(1)
        #expect(configuration.databaseConfiguration(logger: quietLogger, base: base).foreignCommitPollingInterval == .seconds(1))
        #expect(BookshelfConfiguration(foreignCommitPollingInterval: nil).databaseConfiguration(logger: quietLogger)
            .foreignCommitPollingInterval == nil)
        // Without a tracer or factory, none.
        let plain = BookshelfConfiguration().databaseConfiguration(logger: quietLogger)
        #expect(plain.tracer == nil)
        #expect(plain.metricsFactory == nil)
    }

    @Test func theSQLiteQueriesOfARequestAreLoggedTracedAndMeasured() async throws {
        try await withTestDatabase(.sqlite) { testDatabase in
            let tracer = InMemoryTracer()
            let metrics = TestMetrics()
            let storage = CapturingLogHandler.Storage()
            let logger = Logger(label: "bookshelf-tests") { _ in CapturingLogHandler(storage: storage) }
            let configuration = BookshelfConfiguration(port: 0, tracer: tracer, metricsFactory: metrics)
            let database = try connectBookshelfDatabase(
                location: testDatabase.location, configuration: configuration.databaseConfiguration(logger: logger))
            let app = buildApplication(configuration, database: database, logger: logger)
            try await app.test(.router) { client in
                _ = try await client.createAuthor("Traced")
            }
            let spans = tracer.finishedSpans.map(\.operationName)
            #expect(spans.contains("quarry.write"))
            #expect(spans.contains("INSERT"))
            #expect(!metrics.timers(label: "quarry.statement.duration").isEmpty)
            let sql = storage.entries.withLock { entries in entries.filter { $0.level == .debug }.map(\.message) }
            #expect(sql.contains { $0.contains("INSERT INTO") && $0.contains("author") })
        }
    }

    @Test(.enabled(if: TestBackend.postgresAvailable))
    func thePostgreSQLPoolGetsTheSameConfiguration() async throws {
        try await withTestDatabase(.postgres) { testDatabase in
            let configuration = BookshelfConfiguration(tracer: InMemoryTracer(), metricsFactory: TestMetrics())
            let database = try connectBookshelfDatabase(
                location: testDatabase.location,
                configuration: configuration.databaseConfiguration(logger: quietLogger, base: testDatabase.configuration))
            defer { database.writer.close() }
            // Wired, though QuarryPostgres does not use these options yet.
            let poolConfiguration = database.writer.configuration
            #expect(poolConfiguration.logger != nil)
            #expect(poolConfiguration.tracer is InMemoryTracer)
            #expect(poolConfiguration.metricsFactory is TestMetrics)
            #expect(poolConfiguration.label == "bookshelf")
        }
    }

    /// Whether Hummingbird logged that its server listens.
    static func listened(_ storage: CapturingLogHandler.Storage) -> Bool {
        storage.entries.withLock { $0.contains { $0.message.hasPrefix("Server started and listening") } }
    }

    @Test func theServerListensAfterTheMigrations() async throws {
        try await withTestDatabase(.sqlite) { testDatabase in
            let storage = CapturingLogHandler.Storage()
            let logger = Logger(label: "bookshelf-tests") { _ in CapturingLogHandler(storage: storage) }
            let database = try connectBookshelfDatabase(location: testDatabase.location)
            let app = buildApplication(BookshelfConfiguration(port: 0), database: database, logger: logger)
            try await app.test(.live) { client in
                let response = try await client.send(.get, "/health")
                #expect(response.status == .ok)
            }
            let messages = storage.entries.withLock { $0.map(\.message) }
            let ready = try #require(messages.firstIndex(of: "database ready"))
            let listening = try #require(messages.firstIndex { $0.hasPrefix("Server started and listening") })
            #expect(ready < listening)
        }
    }
}

/// The time limit of ``withTimeout(_:_:)`` passed.
struct TimeoutError: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "timed out after \(limit)" }
}

/// Runs `body`, and throws ``TimeoutError`` (cancelling it) when it takes longer than `limit`.
func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { tasks in
        tasks.addTask { try await body() }
        tasks.addTask {
            try await Task.sleep(for: limit)
            throw TimeoutError(limit: limit)
        }
        defer { tasks.cancelAll() }
        return try #require(try await tasks.next())
    }
}

@Suite("Instrumented router")
struct InstrumentedRouterTests {
    @Test(arguments: TestBackend.available)
    func anInstrumentedApplicationServesAsUsual(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            let database = try await testDatabase.open()
            // A tracer and a factory: the router gets the tracing and metrics
            // middlewares (on the global backends, no-ops in the tests).
            let configuration = BookshelfConfiguration(port: 0, tracer: InMemoryTracer(), metricsFactory: TestMetrics())
            let app = buildApplication(configuration, database: database, logger: quietLogger)
            try await app.test(.router) { client in
                let author = try await client.createAuthor("Instrumented")
                let found = try await client.send(.get, "/authors/\(author.id ?? 0)")
                #expect(found.status == .ok)
                let missing = try await client.send(.get, "/authors/999999")
                #expect(missing.status == .notFound)
                #expect(try missing.apiError().error.status == 404)
            }
        }
    }
}
