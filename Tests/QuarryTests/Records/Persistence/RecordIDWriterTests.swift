// Tests of the id write-back after insert: the rowid lands in the right
// property, for the property types the fast path handles and for the others.

import Foundation
import Testing

@testable import Quarry

@Suite struct RecordIDWriterTests {
    struct OptionalInt64: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "t"
        var teamID: Int64?
        var id: Int64?
        var other: Int64?
        enum CodingKeys: String, CodingKey { case teamID = "team_id", id = "t_id", other }
    }

    struct OptionalInt: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "t"
        var id: Int?
        var other: Int?
        enum CodingKeys: String, CodingKey { case other, id = "t_id" }
    }

    final class ClassRecord: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "t"
        var id: Int64?
        var other: Int64? = 5
        enum CodingKeys: String, CodingKey { case id = "t_id", other }
    }

    func makeTable(_ db: Database) throws {
        try db.create(table: "t") { t in
            t.primaryKey("t_id", .integer)
            t.column("team_id", .integer)
            t.column("other", .integer)
        }
        try db.execute(sql: "INSERT INTO t (t_id) VALUES (41)")
        // PostgreSQL's identity does not move past an explicit id: move it.
        try moveIdentitySequences(db, tables: ["t"], column: "t_id")
    }
    @Test(arguments: Backend.all) func structsGetTheRowIDInTheRightProperty(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try makeTable(db)
                var record = OptionalInt64(teamID: 7, id: nil, other: nil)
                try record.insert(db)
                #expect(record.id == 42 && record.teamID == 7 && record.other == nil)
                var small = OptionalInt(id: nil, other: 3)
                try small.insert(db)
                #expect(small.id == 43 && small.other == 3)
            }
            // The fast path found a slot for both types.
            var probe = OptionalInt64(teamID: 1, id: nil, other: 2)
            #expect(RecordIDWriter.write(99, into: &probe, column: "t_id"))
            #expect(probe.id == 99 && probe.teamID == 1 && probe.other == 2)
            #expect(!RecordIDWriter.write(99, into: &probe, column: "missing"))
        }
    }
    /// The last slot used is remembered in front of the others: alternating
    /// types and columns never gets another type's or column's slot.
    @Test func alternatingTypesAndColumnsEachGetTheirOwnSlot() {
        for round in 0..<3 {
            var wide = OptionalInt64(teamID: 1, id: nil, other: 2)
            #expect(RecordIDWriter.write(Int64(100 + round), into: &wide, column: "t_id"))
            #expect(wide.id == Int64(100 + round) && wide.teamID == 1 && wide.other == 2)
            var narrow = OptionalInt(id: nil, other: 3)
            #expect(RecordIDWriter.write(Int64(200 + round), into: &narrow, column: "t_id"))
            #expect(narrow.id == 200 + round && narrow.other == 3)
            #expect(!RecordIDWriter.write(7, into: &narrow, column: "missing"))
            #expect(narrow.id == 200 + round && narrow.other == 3)
            #expect(RecordIDWriter.write(Int64(300 + round), into: &wide, column: "team_id"))
            #expect(wide.teamID == Int64(300 + round) && wide.id == Int64(100 + round))
        }
    }

    @Test(arguments: Backend.all) func classesFallBackToDecoding(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try makeTable(db)
                var record = ClassRecord()
                #expect(!RecordIDWriter.write(1, into: &record, column: "t_id"))
                try record.insert(db)
                // A class record is decoded again into a new instance.
                #expect(record.id == 42 && record.other == 5)
            }
        }
    }
}
