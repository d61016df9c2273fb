// Tests of Row: access by index and name, optionals, and every decoding failure.

import Foundation
import Quarry
import Testing

@Suite struct RowTests {
    let dbQueue: DatabaseQueue

    init() throws {
        dbQueue = try DatabaseQueue()
    }

    func fetchRow(_ sql: String) throws -> Row {
        try #require(try dbQueue.read { db in try Row.fetchOne(db, sql: sql) })
    }

    @Test func accessByIndexAndName() throws {
        let row = try fetchRow("SELECT 1 AS id, 'Arthur' AS name, NULL AS team_id, 2.5 AS ratio")
        #expect(row.columnNames == ["id", "name", "team_id", "ratio"])
        #expect(row.databaseValues == [1, "Arthur", nil, 2.5])
        #expect(row.count == 4)
        let id: Int = try row[0]
        let name: String = try row["name"]
        let upperName: String = try row["NAME"]
        let teamID: Int64? = try row["team_id"]
        let ratio: Double? = try row[3]
        #expect(id == 1 && name == "Arthur" && upperName == "Arthur" && teamID == nil && ratio == 2.5)
        #expect(try row["name"] == DatabaseValue.text("Arthur"))
        #expect(try row[2] == DatabaseValue.null)
        #expect(row.hasColumn("Team_ID"))
        #expect(!row.hasColumn("missing"))
        #expect(row.description == "[id: 1, name: 'Arthur', team_id: NULL, ratio: 2.5]")
    }

    @Test func leftmostDuplicateColumnWins() throws {
        let row = try fetchRow("SELECT 1 AS a, 2 AS a")
        let value: Int = try row["a"]
        #expect(value == 1)
    }

    @Test func missingColumnNamesTheColumnAndAvailableOnes() throws {
        let row = try fetchRow("SELECT 1 AS id, 'x' AS name")
        let error = try #require(throws: RowDecodingError.self) { let _: Int = try row["score"] }
        #expect(error.reason == .columnNotFound)
        #expect(error.description == "cannot decode Int from column \"score\": no such column (the row has \"id\", \"name\")")
    }

    @Test func indexOutOfRange() throws {
        let row = try fetchRow("SELECT 1")
        let error = try #require(throws: RowDecodingError.self) { let _: Int? = try row[5] }
        #expect(error.reason == .indexOutOfRange)
        #expect(error.description.contains("column \"#5\": no column at this index (the row has 1 columns)"))
        #expect(throws: RowDecodingError.self) { try row[-1] as DatabaseValue }
    }

    @Test func nullIntoNonOptional() throws {
        let row = try fetchRow("SELECT NULL AS score")
        let error = try #require(throws: RowDecodingError.self) { let _: Int = try row["score"] }
        #expect(error.description == "cannot decode Int from column \"score\": found NULL")
        let optional: Int? = try row["score"]
        #expect(optional == nil)
    }

    @Test func typeMismatchNamesColumnTypeAndValue() throws {
        let row = try fetchRow("SELECT 'abc' AS score")
        let error = try #require(throws: RowDecodingError.self) { let _: Int? = try row["score"] }
        #expect(error.reason == .valueMismatch("abc"))
        #expect(error.description == "cannot decode Int from column \"score\": found text 'abc'")
    }

    @Test func rowsAreValuesThatOutliveTheAccess() throws {
        let rows = try dbQueue.read { db throws in
            try Row.fetchAll(db, sql: "SELECT 1 AS a UNION ALL SELECT 2")
        }
        #expect(rows.count == 2)
        #expect(try rows[1]["a"] == 2 as Int)
        #expect(try Row(columnNames: ["a"], databaseValues: [2]) == rows[1])
        #expect(throws: DatabaseError.self) { try Row(columnNames: ["a", "b"], databaseValues: [1]) }
    }
}
