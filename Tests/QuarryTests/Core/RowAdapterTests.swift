// RowAdapter: scopes for raw-SQL joins (`SELECT player.*, team.*`), so that
// same-named columns are read from their own table, checked against
// hand-written SQL that selects each table's columns on their own (issue 32).

import Foundation
import Quarry
import Testing

private struct APlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var teamID: Int64?
}

private struct ATeam: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "team"
    var id: Int64
    var name: String
}

@Suite struct RowAdapterTests {
    private func makeTables(_ writer: any DatabaseWriter) throws {
        try writer.write { db throws in
            try db.create(table: "team") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
            }
            try db.create(table: "player") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("teamID", .integer).references("team")
            }
            try ATeam(id: 10, name: "Reds").insert(db)
            try APlayer(id: 1, name: "Arthur", teamID: 10).insert(db)
            try APlayer(id: 2, name: "Barbara", teamID: nil).insert(db)
        }
    }

    @Test(arguments: Backend.all)
    func scopesSplitAJoin(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makeTables(writer)
            try writer.read { db throws in
                let sql = "SELECT player.*, team.* FROM player LEFT JOIN team ON team.id = player.\"teamID\" ORDER BY player.id"
                // The trap: without scopes, the team's same-named columns are the player's.
                let unscoped = try #require(try Row.fetchOne(db, sql: sql))
                #expect(try ATeam(row: unscoped) == ATeam(id: 1, name: "Arthur"))

                let adapters = splittingRowAdapters(columnCounts: [
                    try db.columns(in: "player").count, try db.columns(in: "team").count])
                let adapter = ScopeAdapter(["player": adapters[0], "team": adapters[1]])
                let rows = try Row.fetchAll(db, sql: sql, adapter: adapter)
                // What hand-written SQL reads from each table.
                let players = try APlayer.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
                let teams = try ATeam.fetchAll(db, sql: "SELECT team.* FROM player JOIN team ON team.id = player.\"teamID\" ORDER BY player.id")
                #expect(try rows.map { try $0["player"] as APlayer } == players)
                #expect(try rows.compactMap { try $0["team"] as ATeam? } == teams)
                #expect(try rows[0]["team"] as ATeam == ATeam(id: 10, name: "Reds"))
                // The missing side of the left join is nil, not a record of NULLs.
                #expect(try rows[1]["team"] as ATeam? == nil)
                #expect(rows[1].scopes["team"]?.databaseValues == [.null, .null])
                // The base row is the whole row.
                #expect(rows[0].count == 5)
                #expect(rows[0].scopes["player"]?.columnNames == ["id", "name", "teamID"])
                // fetchOne and fetchCursor adapt too.
                #expect(try Row.fetchOne(db, sql: sql, adapter: adapter)?.scopes["team"] == rows[0].scopes["team"])
                #expect(try Array(Row.fetchCursor(db, sql: sql, adapter: adapter)).map { try $0["player"] as APlayer } == players)
            }
        }
    }

    @Test func rangesBaseAndNestedScopes() throws {
        let row = try Row(columnNames: ["a", "b", "c", "d"], databaseValues: [.integer(1), .integer(2), .integer(3), .integer(4)])
        func adapt(_ adapter: RowAdapter) throws -> Row {
            let dbQueue = try DatabaseQueue()
            return try #require(try dbQueue.read { db throws in
                try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d", adapter: adapter)
            })
        }
        #expect(try adapt(RangeRowAdapter(1..<3)) == (try Row(columnNames: ["b", "c"], databaseValues: [.integer(2), .integer(3)])))
        #expect(try adapt(RangeRowAdapter(1...1)).columnNames == ["b"])
        #expect(try adapt(SuffixRowAdapter(fromIndex: 3)).columnNames == ["d"])
        #expect(try adapt(SuffixRowAdapter(fromIndex: 4)).columnNames == [])
        let nested = try adapt(ScopeAdapter(base: RangeRowAdapter(0..<1), scopes: [
            "rest": ScopeAdapter(base: SuffixRowAdapter(fromIndex: 1), scopes: ["last": SuffixRowAdapter(fromIndex: 3)]),
        ]))
        #expect(nested.columnNames == ["a"])
        #expect(nested.scopes["rest"]?.columnNames == ["b", "c", "d"])
        #expect(nested.scopes["rest"]?.scopes["last"]?.columnNames == ["d"])
        #expect(row.scopes.isEmpty)
        #expect(splittingRowAdapters(columnCounts: []).isEmpty)
        #expect(try splittingRowAdapters(columnCounts: [2, 2]).map { try adapt($0).columnNames } == [["a", "b"], ["c", "d"]])
    }

    @Test func adaptersThatDoNotFitThrow() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db throws in
            let wide = try #require(throws: DatabaseError.self) {
                try Row.fetchAll(db, sql: "SELECT 1 AS a, 2 AS b", adapter: RangeRowAdapter(1..<5))
            }
            #expect(wide.resultCode == .SQLITE_MISUSE)
            #expect(wide.message.contains("1..<5") && wide.message.contains("2 columns"))
            #expect(throws: DatabaseError.self) { try Row.fetchAll(db, sql: "SELECT 1 AS a", adapter: SuffixRowAdapter(fromIndex: -1)) }
            let row = try #require(try Row.fetchOne(db, sql: "SELECT 1 AS id, 'x' AS name", adapter: ScopeAdapter([:])))
            let missing = try #require(throws: RowDecodingError.self) { try row["team"] as ATeam }
            #expect("\(missing)".contains("team"))
            #expect(try row["team"] as ATeam? == nil)
        }
    }
}
