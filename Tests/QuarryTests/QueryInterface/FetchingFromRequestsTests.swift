// GRDB's static fetching forms that take a request (issue 32):
// Row.fetchAll(db, request), String.fetchAll(db, request),
// Int.fetchOne(db, request), Player.fetchCursor(db, request), fetchSet, on
// query-interface and SQL requests, checked against hand-written SQL.

import Foundation
import Quarry
import QuarryTestSupport
import Testing

private struct FPlayer: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var score: Int
}

/// A partial record: what a client sends before the row exists.
private struct FPlayerDraft: Codable, PersistableRecord {
    static let databaseTableName = "player"
    var name: String
}

private func makePlayers(_ writer: any DatabaseWriter) throws {
    try writer.write { db throws in
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().unique()
            t.column("score", .integer).notNull().defaults(to: 7)
        }
        try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 100), ('Barbara', 250), ('Craig', 100)")
    }
}

@Suite struct FetchingFromRequestsTests {
    @Test(arguments: Backend.all)
    func queryInterfaceRequests(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.read { db throws in
                let request = FPlayer.filter(\.score >= 100).order(\.id)
                let handWritten = try Row.fetchAll(db, sql: "SELECT * FROM player WHERE score >= 100 ORDER BY id")
                #expect(try Row.fetchAll(db, request) == handWritten)
                #expect(try Row.fetchOne(db, request) == handWritten.first)
                #expect(try Row.fetchSet(db, request) == Set(handWritten))
                let rows: RowCursor = try Row.fetchCursor(db, request)
                #expect(try Array(rows) == handWritten)

                let names = FPlayer.select(\.name).order(\.name)
                #expect(try String.fetchAll(db, names) == ["Arthur", "Barbara", "Craig"])
                #expect(try String.fetchOne(db, names) == "Arthur")
                #expect(try Array(String.fetchCursor(db, names)) == ["Arthur", "Barbara", "Craig"])
                #expect(try Int.fetchSet(db, FPlayer.select(\.score)) == [100, 250])
                #expect(try Int.fetchOne(db, FPlayer.select(max(\.score))) == 250)
                // The static type decides: the leftmost column of a record request.
                #expect(try Int64.fetchAll(db, request) == [1, 2, 3])
                #expect(try Int.fetchOne(db, FPlayer.filter(\.score > 1000).select(\.score)) == nil)

                let records = try FPlayer.fetchAll(db, request)
                #expect(records.map(\.name) == ["Arthur", "Barbara", "Craig"])
                #expect(try FPlayer.fetchOne(db, request) == records.first)
                #expect(try FPlayer.fetchSet(db, request) == Set(records))
                let cursor: RecordCursor<FPlayer> = try FPlayer.fetchCursor(db, request)
                #expect(try Array(cursor) == records)
                // A failure names its SQL.
                let error = try #require(throws: DatabaseError.self) {
                    try db.failingInSavepoint { try Int.fetchAll(db, FPlayer.all().select(literal: "no_such_column", as: Int.self)) }
                }
                #expect(error.sql?.contains("no_such_column") == true)
            }
        }
    }

    @Test(arguments: Backend.all)
    func sqlRequests(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.read { db throws in
                let request: SQLRequest<FPlayer> = "SELECT * FROM player WHERE score = \(100) ORDER BY id"
                let handWritten = try Row.fetchAll(db, sql: "SELECT * FROM player WHERE score = 100 ORDER BY id")
                #expect(try Row.fetchAll(db, request) == handWritten)
                #expect(try Row.fetchOne(db, request) == handWritten.first)
                #expect(try Row.fetchSet(db, request) == Set(handWritten))
                #expect(try Array(Row.fetchCursor(db, request)) == handWritten)
                #expect(try Int64.fetchAll(db, request) == [1, 3])
                #expect(try Int64.fetchOne(db, request) == 1)
                #expect(try Int64.fetchSet(db, request) == [1, 3])
                #expect(try Array(Int64.fetchCursor(db, request)) == [1, 3])
                let names = SQLRequest<Row>(sql: "SELECT name FROM player ORDER BY name DESC")
                #expect(try String.fetchAll(db, names) == ["Craig", "Barbara", "Arthur"])
                #expect(try FPlayer.fetchAll(db, request).map(\.name) == ["Arthur", "Craig"])
                #expect(try FPlayer.fetchOne(db, request)?.name == "Arthur")
                #expect(try FPlayer.fetchSet(db, request).count == 2)
                #expect(try Array(FPlayer.fetchCursor(db, request)).map(\.id) == [1, 3])
                #expect(try request.fetchCount(db) == 2)
                // A value that does not decode names the column.
                let error = try #require(throws: RowDecodingError.self) { try Int.fetchAll(db, names) }
                #expect("\(error)".contains("name"))
            }
        }
    }

    /// `insertAndFetch(db, as:)`, `saveAndFetch(db, as:)` and
    /// `upsertAndFetch(db, as:)` return another record type, with its
    /// `databaseSelection`, as in GRDB.
    @Test(arguments: Backend.all)
    func writeAndFetchAnotherRecordType(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                var draft = FPlayerDraft(name: "Diane")
                let diane = try draft.insertAndFetch(db, as: FPlayer.self)
                #expect(diane.name == "Diane")
                #expect(diane.score == 7)   // the column default
                #expect(try FPlayer.fetchOne(db, sql: "SELECT * FROM player WHERE name = 'Diane'") == diane)
                let constant = FPlayerDraft(name: "Eve")
                #expect(try constant.insertAndFetch(db, as: FPlayer.self).score == 7)
                #expect(try FPlayerDraft(name: "Fay").saveAndFetch(db, as: FPlayer.self).name == "Fay")
                let upserted = try FPlayer(id: diane.id, name: "Diane", score: 8).upsertAndFetch(db, as: FPlayer.self)
                #expect(upserted.score == 8)
                #expect(try FPlayer(id: diane.id, name: "Diane", score: 9).updateAndFetch(db, as: FPlayer.self).score == 9)
            }
            // A failed insert throws (UNIQUE name), and writes nothing.
            let error = try #require(throws: DatabaseError.self) {
                try writer.write { db throws in try FPlayerDraft(name: "Arthur").insertAndFetch(db, as: FPlayer.self) }
            }
            #expect(error.isUniqueConstraintViolation)
            #expect(try writer.read { db throws in try FPlayer.fetchCount(db) } == 6)
        }
    }
}
