// Indexes on expressions and descending columns
// (`create(index:on:expressions:options:condition:)`), and `drop(index:ifExists:)`
// and `drop(table:ifExists:)`: the exact DDL on SQLite and PostgreSQL, and
// what the indexes do. Shared with PostgreSQL.

import Foundation
import Quarry
import QuarryTestSupport
import Testing

@Suite struct ExpressionIndexTests {
    struct Player: Codable, FetchableRecord, MutablePersistableRecord {
        var id: Int64?
        var email: String
        var teamId: Int64 = 1
        var score: Int64 = 0
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    private func createPlayer(_ db: Database) throws {
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("email", .text).notNull()
            t.column("teamId", .integer).notNull()
            t.column("score", .integer).notNull()
        }
    }

    /// The DDL `body` sends.
    private func ddl(_ db: Database, _ body: () throws -> Void) throws -> [String] {
        let recorder = SQLRecorder()
        try recorder.record(db, body)
        return recorder.writes
    }

    @Test(arguments: Backend.all)
    func uniqueIndexOnLowercasedEmail(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createPlayer(db)
                let sql = try ddl(db) {
                    try db.create(
                        index: "player_on_lower_email", on: "player", expressions: [lower(\Player.email)], options: .unique)
                }
                #expect(sql == [
                    backend.isPostgreSQL
                        ? #"CREATE UNIQUE INDEX "player_on_lower_email" ON "player"((lower("email")))"#
                        : #"CREATE UNIQUE INDEX "player_on_lower_email" ON "player"(lower("email"))"#,
                ])
                var arthur = Player(email: "Arthur@example.com")
                try arthur.insert(db)
            }
            // Another case of the same email breaks the unique index.
            let error = try #require(throws: DatabaseError.self) {
                try writer.write { db throws in
                    var other = Player(email: "arthur@EXAMPLE.com")
                    try other.insert(db)
                }
            }
            #expect(error.isUniqueConstraintViolation)
            try writer.read { db throws in
                #expect(try db.indexes(on: "player").map(\.name).contains("player_on_lower_email"))
                #expect(try db.indexes(on: "player").first { $0.name == "player_on_lower_email" }?.isUnique == true)
            }
        }
    }

    @Test(arguments: Backend.all)
    func descendingColumnsColumnsAndSQLLiterals(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createPlayer(db)
                let sql = try ddl(db) {
                    try db.create(
                        index: "player_on_team_score", on: "player", expressions: [Column("teamId"), Column("score").desc])
                    try db.create(
                        index: "player_on_score_email", on: "player",
                        expressions: [QueryOrdering<Player>.desc(\.score), Column("email").asc], options: .ifNotExists)
                    // An interpolated value is written as an SQL literal: an index has no parameters.
                    try db.create(
                        index: "player_on_domain", on: "player",
                        expressions: [SQL("substr(\(Column("email")), \(3))")], condition: "score > 0")
                    try db.create(index: "player_on_team", on: "player", expressions: [SQLExpression.column("teamId")])
                }
                let substr = backend.isPostgreSQL ? #"(substr("email", 3))"# : #"substr("email", 3)"#
                #expect(sql == [
                    #"CREATE INDEX "player_on_team_score" ON "player"("teamId", "score" DESC)"#,
                    #"CREATE INDEX IF NOT EXISTS "player_on_score_email" ON "player"("score" DESC, "email")"#,
                    #"CREATE INDEX "player_on_domain" ON "player"("# + substr + #") WHERE score > 0"#,
                    #"CREATE INDEX "player_on_team" ON "player"("teamId")"#,
                ])
                let indexes = try db.indexes(on: "player")
                #expect(indexes.first { $0.name == "player_on_team_score" }?.columns == ["teamId", "score"])
                #expect(indexes.first { $0.name == "player_on_score_email" }?.columns == ["score", "email"])
                // IF NOT EXISTS: the second creation does nothing.
                try db.create(
                    index: "player_on_score_email", on: "player", expressions: [Column("score")], options: .ifNotExists)
            }
        }
    }

    /// GRDB's spellings, with untyped columns: `lower(Column("email"))`
    /// (GRDB's `Column("email").lowercased`) and a collation.
    @Test(arguments: Backend.all)
    func untypedColumnExpressions(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createPlayer(db)
                let sql = try ddl(db) {
                    try db.create(
                        index: "player_on_lower_email", on: "player", expressions: [lower(Column("email"))], options: .unique)
                    try db.create(index: "player_on_sum", on: "player", expressions: [Column("teamId") + Column("score")] as [QueryExpression<TableDefinition, Int>])
                }
                #expect(sql == (backend.isPostgreSQL
                    ? [#"CREATE UNIQUE INDEX "player_on_lower_email" ON "player"((lower("email")))"#,
                       #"CREATE INDEX "player_on_sum" ON "player"(("teamId" + "score"))"#]
                    : [#"CREATE UNIQUE INDEX "player_on_lower_email" ON "player"(lower("email"))"#,
                       #"CREATE INDEX "player_on_sum" ON "player"("teamId" + "score")"#]))
                if !backend.isPostgreSQL {
                    try db.create(index: "player_on_nocase_email", on: "player", expressions: [Column("email").collating(.nocase)])
                    #expect(try db.indexes(on: "player").contains { $0.name == "player_on_nocase_email" })
                }
            }
        }
    }

    @Test(arguments: Backend.all)
    func invalidIndexesThrow(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createPlayer(db)
                let empty = try #require(throws: DatabaseError.self) {
                    try db.create(index: "none", on: "player", expressions: [])
                }
                #expect(empty.message == "index none on player must have at least one expression")
                // The index name is taken.
                try db.create(index: "player_on_score", on: "player", expressions: [Column("score").desc])
                #expect(throws: DatabaseError.self) {
                    try db.failingInSavepoint {
                        try db.create(index: "player_on_score", on: "player", expressions: [Column("score")])
                    }
                }
                // A column that does not exist.
                #expect(throws: DatabaseError.self) {
                    try db.failingInSavepoint {
                        try db.create(index: "player_on_missing", on: "player", expressions: [Column("missing").desc])
                    }
                }
            }
        }
    }

    /// NULLS FIRST/LAST: PostgreSQL indexes them; SQLite's grammar has no place for them.
    @Test(arguments: Backend.all)
    func nullsOrderIsPostgreSQLOnly(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createPlayer(db)
                let create = {
                    try db.create(
                        index: "player_on_score", on: "player", expressions: [QueryOrdering<Player>.desc(\.score, nulls: .last)])
                }
                if backend.isPostgreSQL {
                    #expect(try ddl(db, create) == [#"CREATE INDEX "player_on_score" ON "player"("score" DESC NULLS LAST)"#])
                } else {
                    let error = try #require(throws: DatabaseError.self, performing: create)
                    #expect(error.message == "index player_on_score on player: NULLS FIRST and NULLS LAST are PostgreSQL-only in an index; SQLite refuses them")
                }
            }
        }
    }

    @Test(arguments: Backend.all)
    func dropIndexIfExists(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createPlayer(db)
                try db.create(index: "player_on_score", on: "player", expressions: [Column("score").desc])
                let sql = try ddl(db) {
                    try db.drop(index: "player_on_score")
                    try db.drop(index: "player_on_score", ifExists: true)
                }
                #expect(sql == [#"DROP INDEX "player_on_score""#, #"DROP INDEX IF EXISTS "player_on_score""#])
                #expect(try !db.indexes(on: "player").contains { $0.name == "player_on_score" })
            }
            // Without ifExists, a missing index is an error.
            #expect(throws: DatabaseError.self) {
                try writer.write { db throws in try db.drop(index: "player_on_score") }
            }
        }
    }

    @Test(arguments: Backend.all)
    func dropTableIfExists(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createPlayer(db)
                let sql = try ddl(db) {
                    try db.drop(table: "player", ifExists: true)
                    try db.drop(table: "nothing", ifExists: true)
                }
                #expect(sql == [#"DROP TABLE IF EXISTS "player""#, #"DROP TABLE IF EXISTS "nothing""#])
                #expect(try !db.tableExists("player"))
            }
            // Without ifExists, a missing table is an error, as in GRDB.
            #expect(throws: DatabaseError.self) {
                try writer.write { db throws in try db.drop(table: "player") }
            }
        }
    }
}
