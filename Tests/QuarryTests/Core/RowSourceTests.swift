// The one row shape of the seam (Core/RowSource.swift): SQLite's live
// statement and a buffer of values answer every read the same way, so one
// decoder serves both.

import Foundation
@testable import Quarry
import Testing

@Suite("RowSource: one row shape")
struct RowSourceTests {
    /// One row with a cell of each storage class, and an integer that
    /// Int8 cannot hold.
    private static let sql = "SELECT NULL AS n, 42 AS i, 1.5 AS r, 'héllo' AS t, X'0102' AS b, 300 AS big"

    /// Runs `body` on the statement's live row and on a buffer holding the
    /// same row copied.
    private func withBothSources(_ body: (String, any RowSource) throws -> Void) throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let statement = try db.makeStatement(sql: Self.sql)
            #expect(try statement.step())
            try body("statement", statement)
            let row = Row(statement, layout: RowLayout(columnNames: statement.columnNames))
            try body("buffer", RowBuffer(row))
            statement.reset()
        }
    }

    @Test func typedReadsAnswerOnlyForTheirStorageClass() throws {
        try withBothSources { name, source in
            #expect(source.columnNames == ["n", "i", "r", "t", "b", "big"], "\(name)")
            #expect(source.isNull(at: 0) && !source.isNull(at: 1), "\(name)")
            #expect(source.integer(at: 1) == 42 && source.integer(at: 2) == nil && source.integer(at: 0) == nil, "\(name)")
            #expect(source.real(at: 2) == 1.5 && source.real(at: 1) == nil, "\(name)")
            #expect(source.text(at: 3) == "héllo" && source.text(at: 4) == nil, "\(name)")
            #expect(source.databaseValue(at: 4) == .blob(Data([1, 2])), "\(name)")
            #expect(source.value(Double.self, at: 1) == 42, "\(name): INTEGER converts to Double")
            #expect(source.value(Int8.self, at: 5) == nil, "\(name): 300 does not fit Int8")
        }
    }

    @Test func decodingErrorsNameTheColumnAndTheReason() throws {
        try withBothSources { name, source in
            let decoded = try source.decode(Int.self, at: 1)
            let absent = try source.decodeIfPresent(Int.self, at: 0)
            #expect(decoded == 42 && absent == nil, "\(name)")
            let null = #expect(throws: RowDecodingError.self) { try source.decode(Int.self, at: 0) }
            #expect(null?.reason == .unexpectedNull && null?.column == "n", "\(name)")
            let mismatch = #expect(throws: RowDecodingError.self) { try source.decode(Int8.self, at: 5) }
            #expect(mismatch?.reason == .valueMismatch(.integer(300)) && mismatch?.column == "big", "\(name)")
            let outOfRange = #expect(throws: RowDecodingError.self) { try source.decode(Int.self, at: 6) }
            #expect(outOfRange?.reason == .indexOutOfRange && outOfRange?.column == "#6", "\(name)")
        }
    }

    /// A record decodes from both sources through the same reader, and a
    /// buffer gets its next row by replacing its values.
    @Test func oneRecordReaderReadsBothSources() throws {
        struct Item: Codable, FetchableRecord, Equatable {
            var i: Int
            var r: Double
            var t: String
            var n: Int?
        }
        try withBothSources { name, source in
            let item = try Item.reader(for: source)(source)
            #expect(item == Item(i: 42, r: 1.5, t: "héllo", n: nil), "\(name)")
        }
        let buffer = RowBuffer(columnNames: ["i", "r", "t", "n"], values: [.integer(1), .real(2), .text("a"), .integer(3)])
        let read = Item.reader(for: buffer)
        #expect(try read(buffer) == Item(i: 1, r: 2, t: "a", n: 3))
        buffer.values = [.integer(4), .integer(5), .text("b"), .null]
        #expect(try read(buffer) == Item(i: 4, r: 5, t: "b", n: nil))
        buffer.values = [.text("x"), .integer(5), .text("b"), .null]
        let error = #expect(throws: RowDecodingError.self) { try read(buffer) }
        #expect(error?.column == "i" && error?.recordType == "Item")
    }

    /// New column names drop the readers made for the old ones.
    @Test func aBufferDropsItsReadersWhenItsColumnsChange() throws {
        struct Item: Codable, FetchableRecord { var i: Int }
        let buffer = RowBuffer(columnNames: ["i"], values: [.integer(1)])
        // The first row tells whether Item uses the default init(row:); the
        // readers made after that are kept on the source.
        _ = try Item.reader(for: buffer)(buffer)
        _ = Item.reader(for: buffer)
        #expect(!buffer.recordReaders.isEmpty)
        buffer.setColumnNames(["i"])
        #expect(!buffer.recordReaders.isEmpty)
        buffer.setColumnNames(["j", "i"])
        #expect(buffer.recordReaders.isEmpty && buffer.lastRecordReader == nil)
    }
}
