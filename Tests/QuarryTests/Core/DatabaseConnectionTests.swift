// The execution seam (Core/DatabaseConnection.swift): SQLite's connection and
// a server's behind the same interface. The server side is tested with the
// stand-in server of Support/StandInServer.swift; the shared suites run the
// same fetches on a real PostgreSQL server.

import Foundation
@testable import Quarry
import QuarryPostgres
import Testing

@Suite("The execution seam")
struct DatabaseConnectionTests {
    private func makeServerDatabase(dialect: any SQLDialect = PostgreSQLDialect()) throws -> (Database, StandInServer) {
        let server = StandInServer(dialect: dialect)
        let db = try Database(server: server, configuration: Configuration())
        try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER)")
        try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 100), ('Barbara', 7), ('Craig', NULL)")
        return (db, server)
    }

    private func makeSQLiteDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER)")
            try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 100), ('Barbara', 7), ('Craig', NULL)")
        }
        return dbQueue
    }

    @Test func aServerConnectionHasNoSQLiteHandle() throws {
        let (db, _) = try makeServerDatabase()
        #expect(db.sqliteConnection == nil)
        #expect(db.connection is ServerConnection)
        let sqlite = try makeSQLiteDatabase()
        try sqlite.read { db in
            #expect(db.sqliteConnection != nil)
            #expect(db.connection is SQLiteConnection)
        }
    }

    @Test func aRefusedCapabilityNamesTheFeatureTheConnectionAndTheDialectsSuggestion() throws {
        let (db, _) = try makeServerDatabase()
        let error = #expect(throws: DatabaseError.self) { try db.makeStatement(sql: "SELECT 1") }
        #expect(error?.resultCode == .SQLITE_MISUSE)
        #expect(error?.message == "prepared statements (Statement) is SQLite-only; this connection is to stand-in://server: "
            + "use the fetch methods that take SQL text")
        // Without a suggestion, the message ends after the connection.
        let refusal = #expect(throws: DatabaseError.self) { try db.require(.authorizer, "the authorizer") }
        #expect(refusal?.message == "the authorizer is SQLite-only; this connection is to stand-in://server")
        #expect(SQLiteDialect().alternative(to: .backup) == nil)
        #expect(PostgreSQLDialect().alternative(to: .backup) == "pg_dump")
    }

    @Test func fetchesReadTheSameRowsOnBothSidesOfTheSeam() throws {
        let sql = "SELECT name, score FROM player ORDER BY id"
        let (server, _) = try makeServerDatabase(dialect: SQLiteDialect())
        try makeSQLiteDatabase().read { sqlite in
            for db in [sqlite, server] {
                #expect(try String.fetchAll(db, sql: sql) == ["Arthur", "Barbara", "Craig"])
                #expect(try Int?.fetchAll(db, sql: "SELECT score FROM player ORDER BY id") == [100, 7, nil])
                #expect(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE name = ?", arguments: ["Barbara"]) == 7)
                #expect(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE name = 'Craig'") == nil)
                #expect(try Row.fetchAll(db, sql: sql).map { try $0["name"] as String } == ["Arthur", "Barbara", "Craig"])
                let cursor = try Row.fetchCursor(db, sql: sql)
                var names: [String] = []
                while let row = try cursor.next() { names.append(try row["name"]) }
                #expect(names == ["Arthur", "Barbara", "Craig"])
                #expect(try cursor.next() == nil)
            }
        }
    }

    @Test func aServerStatementRunsOnceWhenFirstSteppedAndHoldsNothingAfterReset() throws {
        let (db, server) = try makeServerDatabase()
        let before = server.received.count
        let statement = try db.prepared(sql: "SELECT name FROM player ORDER BY id", arguments: [])
        #expect(server.received.count == before, "preparing sends nothing")
        #expect(!statement.isBusy)
        let read = try statement.reader(.firstColumn as RowReading<String>)
        #expect(server.received.count == before + 1)
        #expect(statement.isBusy)
        var names: [String] = []
        try statement.forEachRow { names.append(try read()) }
        #expect(names == ["Arthur", "Barbara", "Craig"])
        #expect(server.received.count == before + 1, "the rows came back whole: one statement")
        #expect(!statement.isBusy)
    }

    @Test func readingAServerStatementWithoutACurrentRowThrows() throws {
        let (db, _) = try makeServerDatabase()
        let statement = try db.prepared(sql: "SELECT name FROM player WHERE score > ?", arguments: [1_000])
        let read = try statement.reader(.firstColumn as RowReading<String>)
        let error = #expect(throws: DatabaseError.self) { try read() }
        #expect(error?.message.contains("no current row") == true)
        #expect(try statement.step() == false)
        #expect(throws: DatabaseError.self) { try read() }
    }

    @Test func fetchingNeedsExactlyOneStatementOnAServer() throws {
        let (db, _) = try makeServerDatabase()
        let several = #expect(throws: DatabaseError.self) { try Row.fetchAll(db, sql: "SELECT 1; SELECT 2") }
        #expect(several?.message.contains("exactly one statement; got 2") == true)
        let none = #expect(throws: DatabaseError.self) { try Row.fetchAll(db, sql: "-- nothing") }
        #expect(none?.message.contains("no statement to fetch from") == true)
    }

    @Test func aServerNoticesItsOwnSchemaChangesOnce() throws {
        let (db, _) = try makeServerDatabase()
        _ = try db.connection.schemaChanged(db)
        #expect(try db.connection.schemaChanged(db) == false)
        try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY)")
        #expect(try db.connection.schemaChanged(db) == true)
        #expect(try db.connection.schemaChanged(db) == false)
        try db.execute(sql: "INSERT INTO team DEFAULT VALUES")
        #expect(try db.connection.schemaChanged(db) == false)
    }

    @Test func sqliteNoticesASchemaChangeOfAnotherConnection() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        try dbPool.read { db in
            _ = try db.connection.schemaChanged(db)
            #expect(try db.connection.schemaChanged(db) == false)
        }
        try dbPool.write { db in try db.execute(sql: "ALTER TABLE t ADD COLUMN b") }
        try dbPool.read { db throws in #expect(try db.connection.schemaChanged(db) == true) }
    }

    @Test func aServerReportsItsStatementsToTheTraceItself() throws {
        // Installing the trace does nothing on a server
        // (DatabaseConnection.updateTrace): ServerConnection.run reports
        // each statement it sends, as SQLite's trace callback does.
        let (db, _) = try makeServerDatabase()
        var statements: [String] = []
        var profiled: [String] = []
        db.trace(options: [.statements, .profile]) { event in
            switch event {
            case .statement(let sql): statements.append(sql)
            case .profile(let sql, _): profiled.append(sql)
            }
        }
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM player")
        db.trace(nil)
        _ = try Int.fetchOne(db, sql: "SELECT 1")
        #expect(statements == ["SELECT count(*) FROM player"])
        #expect(profiled == ["SELECT count(*) FROM player"])
    }

    @Test func aCancelledAccessSendsACancelRequestOnlyToAServer() throws {
        let (db, server) = try makeServerDatabase()
        db.connection.accessWasCancelled()
        #expect(server.cancelRequestCount == 1)
        db.interruptRunningStatements()
        #expect(server.cancelRequestCount == 2)
        // SQLite's progress handler watches the cancellation itself: nothing to send.
        try makeSQLiteDatabase().read { db throws in
            db.connection.accessWasCancelled()
            #expect(try Int.fetchOne(db, sql: "SELECT 1") == 1)
        }
    }

    @Test func aRecordPlanInUseByACursorIsNotReusedOnAServer() throws {
        struct Player: Codable, FetchableRecord, TableRecord {
            var id: Int64
            var name: String
            var score: Int?
        }
        let (db, _) = try makeServerDatabase(dialect: SQLiteDialect())
        let cursor = try Player.fetchCursor(db)
        let first = try cursor.next()
        // A fetch by key while the cursor iterates: another statement.
        let barbara = try Player.fetchOne(db, key: 2)
        #expect(first?.name == "Arthur")
        #expect(barbara?.name == "Barbara")
        #expect(try cursor.next()?.name == "Barbara")
    }

    /// Capabilities are features a backend has or not, each backend saying
    /// which: SQLite has all; a server's driver answers for itself (the
    /// stand-in, like PostgreSQL, has RETURNING and none of SQLite's own).
    @Test func eachBackendAnswersForItsCapabilities() throws {
        try makeSQLiteDatabase().read { db in
            for capability in DatabaseCapability.allCases {
                #expect(db.connection.supports(capability), "\(capability)")
                try db.require(capability, "a feature")
            }
        }
        let (db, server) = try makeServerDatabase()
        #expect(db.connection.supports(.returning))
        #expect(DatabaseCapability.allCases.filter(db.connection.supports) == [.returning])
        server.capabilities = []
        #expect(!db.connection.supports(.returning))
    }

    /// A server without RETURNING (as MySQL would be) refuses the
    /// `…AndFetch` methods before sending anything, with an error that names
    /// the method and what it needs; the plain writes still run.
    @Test func aServerWithoutReturningRefusesTheAndFetchMethods() throws {
        struct Player: Codable, FetchableRecord, MutablePersistableRecord {
            var id: Int64?
            var name: String
            var score: Int?
            mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
        }
        let (db, server) = try makeServerDatabase(dialect: SQLiteDialect())
        server.capabilities = []
        let sent = server.received.count
        var player = Player(id: nil, name: "Dora", score: 1)
        let refusals: [(String, () throws -> Void)] = [
            ("insertAndFetch", { _ = try player.insertAndFetch(db) }),
            ("updateAndFetch", { _ = try Player(id: 1, name: "Arthur", score: 2).updateAndFetch(db) }),
            ("saveAndFetch", { _ = try player.saveAndFetch(db) }),
            ("upsertAndFetch", { _ = try player.upsertAndFetch(db) }),
            ("deleteAndFetch", { _ = try Player(id: 1, name: "Arthur", score: 2).deleteAndFetch(db) }),
            ("insertAllAndFetch", { _ = try Player.insertAllAndFetch(db, [player]) }),
            ("a request's …AndFetch methods", { _ = try Player.all().deleteAndFetchAll(db) }),
        ]
        for (method, call) in refusals {
            let error = #expect(throws: DatabaseError.self, "\(method)") { try call() }
            #expect(error?.resultCode == .SQLITE_MISUSE, "\(method)")
            #expect(
                error?.message.hasPrefix(
                    "RETURNING (\(method)) needs RETURNING, which the backend of this connection does not have; this connection is to ")
                    == true, "\(method): \(error?.message ?? "")")
        }
        #expect(server.received.count == sent, "a refused method sent nothing")
        server.capabilities = [.returning]
        let stored = try player.insertAndFetch(db)
        #expect(stored.name == "Dora" && stored.id != nil)
    }
}
