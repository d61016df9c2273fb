// Tests of SQL literals: what each interpolation generates (text and bound
// arguments), and that values, including injection payloads, are always
// bound, never pasted into the SQL.

import Foundation
import Quarry
import QuarryTestSupport
import Testing

private struct LiteralPlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    static let databaseTableName = "literal player"
}

/// Strings that would change the meaning of SQL if they were pasted into it.
let injectionPayloads: [String] = [
    "'; DROP TABLE \"literal player\"; --",
    "Robert'); DELETE FROM \"literal player\" WHERE ('1' = '1",
    "\" OR 1=1 --",
    "?", "?1", ":name", "@x", "$y", "%_", "\\", "\u{0}", "/* */", "' OR '1'='1",
]

private func makeDatabase() throws -> DatabaseQueue {
    let dbQueue = try DatabaseQueue()
    try dbQueue.write { db throws in
        try db.execute(sql: "CREATE TABLE \"literal player\" (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
        try db.execute(sql: "INSERT INTO \"literal player\" (name, score) VALUES ('Arthur', 100), ('Barbara', 250), ('Craig', 50)")
    }
    return dbQueue
}

@Suite("SQL interpolation")
struct SQLInterpolationTests {
    @Test("values are bound; tables, key paths and identifiers are quoted")
    func interpolations() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db throws in
            let name = "O'Brien"
            let minimum: Int? = nil
            let literal: SQL = """
                SELECT \(\LiteralPlayer.name), \(identifier: "odd \"column\"") FROM \(LiteralPlayer.self) \
                WHERE \(Column("score")) > \(10) AND name <> \(name) AND \(\LiteralPlayer.id) IS NOT \(minimum)
                """
            let generated = try literal.sql(db)
            #expect(generated.sql == #"SELECT "name", "odd ""column""" FROM "literal player" WHERE "score" > ? AND name <> ? AND "id" IS NOT ?"#)
            #expect(generated.arguments == [10, "O'Brien", nil])
            #expect(literal.description.hasPrefix("SELECT \"name\""))
        }
    }

    @Test("sequences become parenthesized lists, for IN; an empty one is ()")
    func lists() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db throws in
            let ids: [Int64] = [1, 3]
            let request: SQLRequest<String> = "SELECT name FROM \(LiteralPlayer.self) WHERE id IN \(ids) ORDER BY id"
            try expectGenerated(request.sql(db), "SELECT name FROM \"literal player\" WHERE id IN (?, ?) ORDER BY id", [1, 3])
            #expect(try request.fetchAll(db) == ["Arthur", "Craig"])
            let none: [Int64] = []
            #expect(try SQLRequest<String>(literal: "SELECT name FROM \(LiteralPlayer.self) WHERE id IN \(none)").fetchAll(db).isEmpty)
            let names: Set<String?> = ["Barbara", nil]
            #expect(try SQLRequest<Int>(literal: "SELECT count(*) FROM \(LiteralPlayer.self) WHERE name IN \(Array(names))").fetchOne(db) == 1)
        }
    }

    @Test("expressions, requests as subqueries, nested literals and raw SQL with arguments")
    func compositions() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db throws in
            let best = LiteralPlayer.select(max(\.score))
            let bonus = \LiteralPlayer.score + 5
            let condition: SQL = "\(\LiteralPlayer.score) = (\(best))"
            var literal: SQL = "SELECT name, \(bonus) FROM \(LiteralPlayer.self) WHERE \(literal: condition)"
            literal += " AND \(sql: "name <> :excluded", arguments: ["excluded": "Nobody"])"
            let generated = try literal.sql(db)
            #expect(generated.sql == """
                SELECT name, "score" + ? FROM "literal player" WHERE "score" = (SELECT MAX("score") FROM "literal player") AND name <> ?
                """)
            #expect(generated.arguments == [5, "Nobody"])
            let row = try #require(try SQLRequest<Row>(literal: literal).fetchOne(db))
            #expect(try row[0] as String? == "Barbara")
            #expect(try row[1] as Int? == 255)
            let joined = SQL.joined(["a", "\(1)", SQL(sql: "b = ?", arguments: [2])], separator: ", ")
            try expectGenerated(joined.sql(db), "a, ?, b = ?", [1, 2])
            #expect(SQL("").isEmpty)
            #expect(!SQL("x").isEmpty)
        }
    }

    @Test("a key path that names no column, or a value that fails to convert, makes generation throw")
    func failures() throws {
        struct Computed: Codable, FetchableRecord, TableRecord {
            var id: Int64
            var doubled: Int64 { id * 2 }
        }
        struct Unencodable: DatabaseValueConvertible {
            var databaseValue: DatabaseValue { get throws { throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "cannot encode") } }
            static func fromDatabaseValue(_ value: DatabaseValue) -> Unencodable? { nil }
        }
        let dbQueue = try makeDatabase()
        try dbQueue.read { db throws in
            let keyPathError = #expect(throws: KeyPathColumnError.self) { try SQL("SELECT \(\Computed.doubled) FROM t").sql(db) }
            #expect(keyPathError?.reason == "it is a computed property", "\(String(describing: keyPathError))")
            #expect(keyPathError?.recordType == "Computed", "\(String(describing: keyPathError))")
            #expect(throws: DatabaseError.self) { try SQL("SELECT \(Unencodable())").sql(db) }
            // Raw SQL with a missing named argument.
            #expect(throws: DatabaseError.self) { try SQL("SELECT \(sql: ":a + :b", arguments: ["a": 1])").sql(db) }
            // Invalid SQL fails when run, naming the SQL.
            do {
                try db.execute(literal: "SELEKT \(1)")
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.sql == "SELEKT ?")
            }
        }
    }

    @Test("injection payloads are stored and compared verbatim through every form", arguments: WriterKind.allCases)
    func injection(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.execute(sql: "CREATE TABLE \"literal player\" (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
            for (index, payload) in injectionPayloads.enumerated() {
                try db.execute(literal: "INSERT INTO \(LiteralPlayer.self) (name, score) VALUES (\(payload), \(index))")
            }
        }
        try writer.read { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT name FROM \"literal player\" ORDER BY id") == injectionPayloads)
            for (index, payload) in injectionPayloads.enumerated() {
                // As a bound value in a request, in a filter, in an IN list.
                let request: SQLRequest<Int> = "SELECT score FROM \(LiteralPlayer.self) WHERE name = \(payload)"
                #expect(try request.fetchAll(db) == [index])
                #expect(try LiteralPlayer.filter(literal: "\(\LiteralPlayer.name) = \(payload)").fetchAll(db).map(\.score) == [index])
                #expect(try SQLRequest<Int>(literal: "SELECT count(*) FROM \(LiteralPlayer.self) WHERE name IN \([payload])").fetchOne(db) == 1)
                // As an identifier: a column by that name does not exist, and
                // the error says so instead of running the payload.
                #expect(throws: DatabaseError.self) {
                    try SQLRequest<Row>(literal: "SELECT \(identifier: payload) FROM \(LiteralPlayer.self)").fetchAll(db)
                }
            }
        }
        // Identifiers: a table named by a payload is created and used as a name.
        try writer.write { db throws in
            let table = injectionPayloads[0]
            try db.execute(literal: "CREATE TABLE \(identifier: table) (\(identifier: table) TEXT)")
            try db.execute(literal: "INSERT INTO \(identifier: table) VALUES (\(table))")
            #expect(try SQLRequest<String>(literal: "SELECT \(identifier: table) FROM \(identifier: table)").fetchAll(db) == [table])
        }
        #expect(try writer.read { db throws in try Int.fetchOne(db, sql: "SELECT count(*) FROM \"literal player\"") } == injectionPayloads.count)
    }
}

/// Issue 32: a request interpolates without parentheses, as in GRDB, so that
/// the GRDB idiom `IN (\(request))` reads every row (with parentheses added
/// by Quarry too, SQLite read `IN ((SELECT …))` as a one-value list holding a
/// scalar subquery, and returned only the first member).
@Suite("SQL interpolation of requests")
struct RequestInterpolationTests {
    private struct Member: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "member"
        var id: Int64
        var name: String
        var teamID: Int64?
    }

    private func makeMembers(_ writer: any DatabaseWriter) throws {
        try writer.write { db throws in
            try db.create(table: "member") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("teamID", .integer)
            }
            for (id, name, team) in [(1, "Arthur", 1), (2, "Barbara", nil), (3, "Craig", 2), (4, "Diane", 1)] as [(Int64, String, Int64?)] {
                try Member(id: id, name: name, teamID: team).insert(db)
            }
        }
    }

    @Test(arguments: Backend.all)
    func inRequestIdiomReadsEveryRow(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makeMembers(writer)
            try writer.read { db throws in
                let teamMembers = Member.filter(\.teamID != nil).select(\.id)
                let request = SQLRequest<String>("SELECT name FROM member WHERE id IN (\(teamMembers)) ORDER BY name")
                try expectGenerated(
                    request.sql(db),
                    #"SELECT name FROM member WHERE id IN (SELECT "id" FROM "member" WHERE "teamID" IS NOT NULL) ORDER BY name"#)
                // Hand-written SQL gives the same rows.
                let expected = try String.fetchAll(
                    db, sql: "SELECT name FROM member WHERE id IN (SELECT id FROM member WHERE \"teamID\" IS NOT NULL) ORDER BY name")
                #expect(expected == ["Arthur", "Craig", "Diane"])
                #expect(try request.fetchAll(db) == expected)
                // `= (\(request))`: a scalar subquery.
                let best = Member.select(max(\.id))
                let last = SQLRequest<String>("SELECT name FROM member WHERE id = (\(best))")
                #expect(try last.fetchAll(db) == ["Diane"])
                // GRDB users write the parentheses; without them, it is a syntax error, never another answer.
                let unparenthesized = SQLRequest<String>("SELECT name FROM member WHERE id IN \(teamMembers)")
                let error = try #require(throws: DatabaseError.self) { try db.failingInSavepoint { try unparenthesized.fetchAll(db) } }
                if backend.isPostgreSQL {
                    #expect(error.sqlState == "42601")
                } else {
                    #expect(error.resultCode == .SQLITE_ERROR)
                    #expect(error.message.contains("syntax error"))
                }
            }
        }
    }

    @Test(arguments: Backend.all)
    func appendLiteralAndFetchCount(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makeMembers(writer)
            try writer.read { db throws in
                var sql: SQL = "SELECT * FROM member"
                sql.append(literal: " WHERE \(Column("teamID")) = \(1)")
                sql.append(sql: " AND name <> ?", arguments: ["Nobody"])
                try expectGenerated(sql.sql(db), #"SELECT * FROM member WHERE "teamID" = ? AND name <> ?"#, [1, "Nobody"])
                let request = SQLRequest<Member>(literal: sql)
                #expect(try request.fetchCount(db) == 2)
                #expect(try request.fetchCount(db) == (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM member WHERE \"teamID\" = 1")))
                #expect(try SQLRequest<Member>("SELECT * FROM member WHERE 0 = 1").fetchCount(db) == 0)
                // A failing request fails its count, with the SQL named.
                let error = try #require(throws: DatabaseError.self) {
                    try db.failingInSavepoint { try SQLRequest<Member>("SELECT * FROM no_such_table").fetchCount(db) }
                }
                #expect(error.sql?.contains("no_such_table") == true)
            }
        }
    }
}
