// White-box checks that Decodable records take the statement fast path, and
// that a hand-written init(row:) is never bypassed by it.

import Foundation
@testable import Quarry
import Testing

private struct FastRecord: Codable, FetchableRecord, TableRecord, Equatable, DirectlyDecoded {
    var id: Int64
    var name: String?
    var score: Double
    static let databaseTableName = "fast"
}

/// FastRecord through `init(from:)`: the Codable path, which learns its layout.
private struct CodableFastRecord: Codable, FetchableRecord, TableRecord, Equatable {
    static let databaseDecodesStoredPropertiesDirectly = false
    var id: Int64
    var name: String?
    var score: Double
    static let databaseTableName = "fast"
}

private struct SlowRecord: Codable, FetchableRecord, TableRecord {
    var id: Int64
    static let databaseTableName = "fast"
    init(row: Row) throws { id = try row["id"] }
}

/// A hand-written init(row:) that uses another record's default init(row:):
/// the probe must not mistake it for the default.
private struct ComposedRecord: Codable, FetchableRecord, TableRecord {
    var inner: FastRecord
    static let databaseTableName = "fast"
    init(row: Row) throws { inner = try FastRecord(row: row) }
}

@Suite("Record decoding fast path")
struct RecordFastPathTests {
    // SQLite only: prepared statements, an SQLite-only API.
    @Test(arguments: Backend.sqlite) func decodableRecordsUseTheStatementPath(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.execute(sql: "CREATE TABLE fast (id INTEGER PRIMARY KEY, name TEXT, score REAL); INSERT INTO fast VALUES (1, 'a', 1.5), (2, NULL, 2)")
                #expect(try FastRecord.fetchAll(db) == [FastRecord(id: 1, name: "a", score: 1.5), FastRecord(id: 2, name: nil, score: 2)])
                #expect(DefaultRowInitializerProbe.usesDefault(FastRecord.self) == true)
                #expect(try SlowRecord.fetchAll(db).map(\.id) == [1, 2])
                #expect(DefaultRowInitializerProbe.usesDefault(SlowRecord.self) == false)
                #expect(try ComposedRecord.fetchAll(db).map(\.inner.id) == [1, 2])
                #expect(DefaultRowInitializerProbe.usesDefault(ComposedRecord.self) == false)

                // The Codable path learns the layout on the first row, and
                // keeps it on the cached statement.
                #expect(try CodableFastRecord.fetchAll(db).map(\.id) == [1, 2])   // the init(row:) probe's first row
                let statement = try db.cachedStatement(sql: "SELECT score, id, name FROM fast")
                _ = try CodableFastRecord.fetchAll(statement)
                let box = try #require(statement.recordReaders[ObjectIdentifier(CodableFastRecord.self)] as? ReaderBox<CodableFastRecord>)
                let layout = try #require(box.layout)
                #expect(layout.keys == ["id", "name", "score"])
                #expect(layout.indexes == [1, 2, 0])
                #expect(try CodableFastRecord.fetchAll(statement).map(\.score) == [1.5, 2])
                #expect(layout.keys.count == 3)
                // The reader (decoder and layout) is reused by the next fetch on the statement.
                _ = try CodableFastRecord.fetchOne(statement)
                #expect((statement.recordReaders[ObjectIdentifier(CodableFastRecord.self)] as? ReaderBox<CodableFastRecord>) === box)

                // A plain struct reads through its DirectDecodingPlan instead,
                // whose keys are resolved against the statement's columns once.
                #expect(DirectDecodingPlan.of(FastRecord.self)?.steps.map(\.key) == ["id", "name", "score"])
                #expect(try FastRecord.fetchAll(statement) == [FastRecord(id: 1, name: "a", score: 1.5), FastRecord(id: 2, name: nil, score: 2)])
                let fastBox = try #require(statement.recordReaders[ObjectIdentifier(FastRecord.self)] as? ReaderBox<FastRecord>)
                let fastLayout = try #require(fastBox.layout)
                #expect(["id", "name", "score"].map { fastLayout.resolve($0) } == [1, 2, 0])
                _ = try FastRecord.fetchOne(statement)
                #expect((statement.recordReaders[ObjectIdentifier(FastRecord.self)] as? ReaderBox<FastRecord>) === fastBox)
            }
        }
    }
}
