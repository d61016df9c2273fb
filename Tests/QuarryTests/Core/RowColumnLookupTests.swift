// Regression tests: Row looks columns up as SQLite does, case-insensitively
// for ASCII letters only, and the leftmost matching column wins. Before, an
// exact-case match further right won, and folding was Unicode-wide.

import Foundation
import Quarry
import Testing

@Suite struct RowColumnLookupTests {
    private func row(_ sql: String) throws -> Row {
        try DatabaseQueue().read { db in try #require(try Row.fetchOne(db, sql: sql)) }
    }

    @Test func leftmostCaseInsensitiveMatchWins() throws {
        let row = try row("SELECT 1 AS name, 2 AS NAME, 3 AS Name")
        #expect(try row["NAME"] as Int == 1)
        #expect(try row["Name"] as Int == 1)
        #expect(try row["name"] as Int == 1)
        #expect(try row["nAmE"] as Int == 1)
        #expect(try row[1] as Int == 2)
    }

    @Test func foldingIsASCIIOnly() throws {
        let row = try row("SELECT 1 AS \"é\", 2 AS \"Straße\", 3 AS \"İd\"")
        #expect(try row["é"] as Int == 1)
        #expect(throws: RowDecodingError.self) { _ = try row["É"] as Int }
        #expect(try row["STRAßE"] as Int == 2)
        #expect(throws: RowDecodingError.self) { _ = try row["STRASSE"] as Int }
        // Unicode lowercasing would turn "İ" into "i̇" and match "i̇d"; SQLite does not.
        #expect(throws: RowDecodingError.self) { _ = try row["i̇d"] as Int }
        #expect(try row["İD"] as Int == 3)
        #expect(!row.hasColumn("É"))
    }

    @Test func recordsFollowTheSameRule() throws {
        struct Item: Decodable, FetchableRecord { var name: Int }
        let items = try DatabaseQueue().read { db in try Item.fetchAll(db, sql: "SELECT 1 AS NAME, 2 AS name") }
        #expect(items.map(\.name) == [1])
    }
}
