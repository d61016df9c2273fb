// A Database connected to a database server (Core/DatabaseServerConnection.swift),
// tested with the stand-in server of Support/StandInServer.swift. The
// PostgreSQL backend has its own tests against a real server.

import Foundation
@testable import Quarry
import QuarryPostgres
import Testing

@Suite("Database connected to a server")
struct DatabaseServerTests {
    private func makeDatabase() throws -> (Database, StandInServer) {
        let server = StandInServer()
        let db = try Database(server: server, configuration: Configuration())
        try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER)")
        return (db, server)
    }

    @Test func scriptsAreSentOneStatementAtATimeWithNumberedParameters() throws {
        let (db, server) = try makeDatabase()
        try db.execute(
            sql: """
                INSERT INTO player (name, score) VALUES (?, ?); -- a comment; with a semicolon
                INSERT INTO player (name, score) VALUES (?, ?2);
                /* only a comment */ ;
                """,
            arguments: ["Arthur", 100, "Barbara", 7])
        let sent = server.received.dropFirst()
        #expect(sent.map(\.sql) == [
            "INSERT INTO player (name, score) VALUES ($1, $2)",
            " -- a comment; with a semicolon\nINSERT INTO player (name, score) VALUES ($1, $2)",
        ])
        #expect(sent.map(\.values) == [[.text("Arthur"), .integer(100)], [.text("Barbara"), .integer(7)]])
        #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM player") == 2)
    }

    @Test func namedAndNumberedArgumentsTakeTheirValues() throws {
        let (db, server) = try makeDatabase()
        try db.execute(
            sql: "INSERT INTO player (name, score) VALUES (:name, :score)", arguments: ["name": "Arthur", "score": 100])
        #expect(server.received.last?.values == [.text("Arthur"), .integer(100)])
        try db.execute(sql: "INSERT INTO player (name, score) VALUES (?2, ?1)", arguments: [5, "Barbara"])
        #expect(server.received.last?.sql == "INSERT INTO player (name, score) VALUES ($1, $2)")
        #expect(server.received.last?.values == [.text("Barbara"), .integer(5)])
        #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY score") == ["Barbara", "Arthur"])
    }

    @Test func missingAndLeftOverArgumentsThrowBeforeAnythingIsSent() throws {
        let (db, server) = try makeDatabase()
        let sentBefore = server.received.count
        #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT ?, ?", arguments: [1]) }
        #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT ?", arguments: [1, 2]) }
        #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT :missing", arguments: ["other": 1]) }
        #expect(server.received.count == sentBefore)
    }

    @Test func valuesLookingLikeParametersOrSeparatorsAreNeverRewritten() throws {
        let (db, server) = try makeDatabase()
        let payload = "'; DROP TABLE player; -- ? :name $1 $$"
        try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: [payload])
        #expect(server.received.last?.values == [.text(payload)])
        #expect(try String.fetchOne(db, sql: "SELECT name FROM player") == payload)
        // Literals, quoted identifiers, comments and casts are left alone.
        let tokens = SQLScanner.tokens("SELECT '?;', \"a?b\", x::int, $$ ? ; $$, $tag$ :n $tag$, E'\\'?' -- ?", rules: PostgreSQLDialect().lexicalRules)
        #expect(tokens == [.text("SELECT '?;', \"a?b\", x::int, $$ ? ; $$, $tag$ :n $tag$, E'\\'?' -- ?")])
        // In SQLite's dialect, `$1` is a named parameter, and `::` is not special.
        #expect(SQLScanner.tokens("x::int", rules: SQLiteDialect().lexicalRules) == [.text("x:"), .parameter(.named("int"))])
    }

    @Test func rowsValuesAndRecordsAreFetchedFromTheServer() throws {
        let (db, _) = try makeDatabase()
        try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 100), ('Barbara', NULL), ('Craig', 50)")
        let rows = try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY id")
        #expect(rows.map(\.description) == ["[name: 'Arthur', score: 100]", "[name: 'Barbara', score: NULL]", "[name: 'Craig', score: 50]"])
        #expect(try Row.fetchOne(db, sql: "SELECT name FROM player WHERE score > ?", arguments: [60])?.description == "[name: 'Arthur']")
        #expect(try Array(Row.fetchCursor(db, sql: "SELECT id FROM player")).count == 3)
        #expect(try Int?.fetchAll(db, sql: "SELECT score FROM player ORDER BY id") == [100, nil, 50])
        #expect(try Array(Int?.fetchCursor(db, sql: "SELECT score FROM player ORDER BY id")) == [100, nil, 50])
        #expect(try Set(String.fetchSet(db, sql: "SELECT name FROM player")) == ["Arthur", "Barbara", "Craig"])
        #expect(try Array(String.fetchCursor(db, sql: "SELECT name FROM player ORDER BY name")) == ["Arthur", "Barbara", "Craig"])
        #expect(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE name = 'Nobody'") == nil)
        // A NULL where a value is required is an error, not a default.
        #expect(throws: RowDecodingError.self) { try Int.fetchAll(db, sql: "SELECT score FROM player") }

        struct Player: Codable, FetchableRecord, Equatable {
            var id: Int64
            var name: String
            var score: Int?
        }
        let players = try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
        #expect(players == [Player(id: 1, name: "Arthur", score: 100), Player(id: 2, name: "Barbara", score: nil), Player(id: 3, name: "Craig", score: 50)])
        #expect(try Player.fetchOne(db, sql: "SELECT * FROM player WHERE id = ?", arguments: [3])?.name == "Craig")
        #expect(try Array(Player.fetchCursor(db, sql: "SELECT * FROM player")).count == 3)
        #expect(try Player.fetchAll(db, sql: "SELECT * FROM player WHERE 0").isEmpty)
        // Fetching needs exactly one statement.
        #expect(throws: DatabaseError.self) { try Row.fetchAll(db, sql: "SELECT 1; SELECT 2") }
    }

    @Test func changesAreCountedFromTheServer() throws {
        let (db, _) = try makeDatabase()
        try db.execute(sql: "INSERT INTO player (name) VALUES ('A'), ('B'), ('C')")
        #expect(db.changesCount == 3)
        try db.execute(sql: "UPDATE player SET score = 1 WHERE name <> 'A'")
        #expect(db.changesCount == 2)
        #expect(db.totalChangesCount == 5)
        #expect(db.lastInsertedRowID == 0)
    }

    @Test func transactionsCommitAndRollBackOnTheServer() throws {
        let (db, server) = try makeDatabase()
        #expect(!db.isInsideTransaction)
        try db.inTransaction {
            #expect(db.isInsideTransaction)
            try db.execute(sql: "INSERT INTO player (name) VALUES ('kept')")
            // A nested transaction is a savepoint, rolled back alone.
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO player (name) VALUES ('undone')")
                return .rollback
            }
            return .commit
        }
        #expect(!db.isInsideTransaction)
        #expect(try String.fetchAll(db, sql: "SELECT name FROM player") == ["kept"])
        #expect(server.received.map(\.sql).contains("BEGIN TRANSACTION"))
        #expect(server.received.map(\.sql).contains("ROLLBACK TRANSACTION TO SAVEPOINT quarry"))

        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO player (name) VALUES ('rolled back')")
                throw Failure()
            }
        }
        #expect(!db.isInsideTransaction)
        // A savepoint outside a transaction opens one, on a server.
        try db.inSavepoint {
            #expect(db.isInsideTransaction)
            try db.execute(sql: "INSERT INTO player (name) VALUES ('savepoint')")
            return .commit
        }
        #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") == ["kept", "savepoint"])
        // BEGIN and COMMIT run as SQL are followed too; a bare savepoint is refused.
        try db.execute(sql: "BEGIN")
        #expect(db.isInsideTransaction)
        try db.execute(sql: "COMMIT")
        #expect(!db.isInsideTransaction)
        #expect(throws: DatabaseError.self) { try db.execute(sql: "SAVEPOINT alone") }
    }

    @Test func serverErrorsArePassedOnAndSQLiteOnlyFeaturesThrow() throws {
        let (db, server) = try makeDatabase()
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELECT * FROM nowhere") }
        #expect(error.message.contains("no such table"))
        #expect(error.sql == "SELECT * FROM nowhere")
        let refusal = try #require(throws: DatabaseError.self) { try db.makeStatement(sql: "SELECT 1") }
        #expect(refusal.message.contains("SQLite-only"))
        #expect(refusal.message.contains("stand-in://server"))
        #expect(throws: DatabaseError.self) { try db.cachedStatement(sql: "SELECT 1") }
        #expect(!server.isClosed)
    }

    @Test func serverConnectionTellsStatementsThatMayChangeTheSchema() {
        #expect(ServerConnection.mayChangeSchema("CREATE TABLE t (x INT)"))
        #expect(ServerConnection.mayChangeSchema(" alter table t add column y int"))
        #expect(ServerConnection.mayChangeSchema("DROP INDEX i"))
        #expect(ServerConnection.mayChangeSchema("ROLLBACK TO SAVEPOINT quarry"))
        #expect(!ServerConnection.mayChangeSchema("INSERT INTO created (x) VALUES (1)"))
        #expect(!ServerConnection.mayChangeSchema("SELECT 'CREATE'"))
        #expect(!ServerConnection.mayChangeSchema(""))
        // After comments, as the server reads it.
        #expect(ServerConnection.mayChangeSchema("/* migration */ ALTER TABLE t ADD COLUMN z INT"))
        #expect(ServerConnection.mayChangeSchema("-- note\ndrop table t"))
        #expect(!ServerConnection.mayChangeSchema("/* DROP */ SELECT 1"))
    }
}
