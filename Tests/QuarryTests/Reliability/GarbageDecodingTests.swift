// Decoding garbage: a database altered by hand (wrong storage classes, huge
// integers, invalid JSON, NULLs, bad UUIDs and dates, missing and extra columns,
// invalid UTF-8) and files that are not databases. Every case throws an error
// that names what went wrong; none crashes.

import Foundation
import Quarry
import Testing

struct GarbageNested: Codable, Equatable {
    var label: String
    var values: [Int]
}

struct GarbageRecord: Codable, FetchableRecord, TableRecord {
    var id: Int64
    var count: Int
    var small: Int8
    var unsigned: UInt8
    var name: String
    var payload: Data
    var nested: GarbageNested
    var uuid: UUID
    var date: Date
    var flag: Bool
    var ratio: Double
    var amount: Decimal
    static let databaseTableName = "garbage"
}

@Suite("Garbage decoding")
struct GarbageDecodingTests {
    /// A good row that each case then damages in one column.
    static let goodValues = """
        (1, 42, -8, 200, 'name', X'0102', '{"label":"l","values":[1,2]}',
         X'E621E1F8C36C495A93FC0C247A3E6E5F', '2024-02-29 12:00:00.000', 1, 0.5, '12.5')
        """

    /// Recreates the table with one good row.
    func reset(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE IF EXISTS garbage;
            CREATE TABLE garbage (id INTEGER PRIMARY KEY, count INTEGER, small INTEGER, unsigned INTEGER,
                name TEXT, payload BLOB, nested TEXT, uuid BLOB, date TEXT, flag INTEGER, ratio REAL, amount TEXT);
            INSERT INTO garbage VALUES \(Self.goodValues);
            """)
    }

    /// Each case: the column, the SQL value put in it, and what the message says.
    static let cases: [(column: String, sqlValue: String, message: String)] = [
        ("count", "'forty-two'", #"cannot decode Int for GarbageRecord from column "count": found text 'forty-two'"#),
        ("count", "X'00'", #"cannot decode Int for GarbageRecord from column "count": found blob X'00'"#),
        ("count", "1.5", #"cannot decode Int for GarbageRecord from column "count": found real 1.5"#),
        ("count", "1e300", #"cannot decode Int for GarbageRecord from column "count": found real 1e+300"#),
        ("count", "NULL", #"cannot decode Int for GarbageRecord from column "count": found NULL"#),
        ("small", "128", #"cannot decode Int8 for GarbageRecord from column "small": found integer 128"#),
        ("small", "-9223372036854775808", #"cannot decode Int8 for GarbageRecord from column "small": found integer -9223372036854775808"#),
        ("unsigned", "-1", #"cannot decode UInt8 for GarbageRecord from column "unsigned": found integer -1"#),
        ("unsigned", "256", #"cannot decode UInt8 for GarbageRecord from column "unsigned": found integer 256"#),
        ("name", "X'6E616D65'", #"cannot decode String for GarbageRecord from column "name": found blob X'6E616D65'"#),
        // (An integer put in a TEXT column becomes text: SQLite's type affinity.)
        ("name", "NULL", #"cannot decode String for GarbageRecord from column "name": found NULL"#),
        ("payload", "7", #"cannot decode Data for GarbageRecord from column "payload": found integer 7"#),
        ("nested", "'{\"label\":'", #"cannot decode GarbageNested for GarbageRecord from column "nested": invalid JSON: '{"label":'"#),
        ("nested", "'[1,2,3]'", #"cannot decode GarbageNested for GarbageRecord from column "nested": invalid JSON: '[1,2,3]'"#),
        ("nested", "'{\"label\":1,\"values\":[]}'", #"cannot decode GarbageNested for GarbageRecord from column "nested": invalid JSON"#),
        ("nested", "'null'", #"cannot decode GarbageNested for GarbageRecord from column "nested""#),
        ("nested", "X'FFFE00'", #"cannot decode GarbageNested for GarbageRecord from column "nested""#),
        ("nested", "42", #"cannot decode GarbageNested for GarbageRecord from column "nested""#),
        ("uuid", "X'0102'", #"cannot decode UUID for GarbageRecord from column "uuid": found blob X'0102'"#),
        ("uuid", "'not-a-uuid'", #"cannot decode UUID for GarbageRecord from column "uuid": found text 'not-a-uuid'"#),
        ("uuid", "zeroblob(17)", #"cannot decode UUID for GarbageRecord from column "uuid": found blob X'0000"#),
        ("date", "'yesterday'", #"cannot decode Date for GarbageRecord from column "date": found text 'yesterday'"#),
        ("date", "'2024-13-01'", #"cannot decode Date for GarbageRecord from column "date": found text '2024-13-01'"#),
        ("date", "'2024-01-01 25:00'", #"cannot decode Date for GarbageRecord from column "date": found text '2024-01-01 25:00'"#),
        ("date", "'999999999999999999-01-01'", #"cannot decode Date for GarbageRecord from column "date": found text '999999999999999999-01-01'"#),
        ("date", "'-999999999999999999-12-31 23:59:59'", #"cannot decode Date for GarbageRecord from column "date": found text '-999999999999999999-12-31 23:59:59'"#),
        ("date", "X'00'", #"cannot decode Date for GarbageRecord from column "date": found blob X'00'"#),
        ("flag", "'yes'", #"cannot decode Bool for GarbageRecord from column "flag": found text 'yes'"#),
        ("ratio", "'half'", #"cannot decode Double for GarbageRecord from column "ratio": found text 'half'"#),
        ("amount", "'12abc'", #"cannot decode Decimal for GarbageRecord from column "amount": found text '12abc'"#),
        ("amount", "X'31'", #"cannot decode Decimal for GarbageRecord from column "amount": found blob X'31'"#),
    ]

    @Test func eachDamagedColumnThrowsAnErrorNamingIt() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try reset(db)
            #expect(try GarbageRecord.fetchOne(db)?.nested == GarbageNested(label: "l", values: [1, 2]))
            for garbage in Self.cases {
                try reset(db)
                try db.execute(sql: "UPDATE garbage SET \(garbage.column.quotedDatabaseIdentifier) = \(garbage.sqlValue)")
                // Through the query interface, raw SQL, a cursor, and a Row.
                for (path, fetch) in [
                    ("fetchAll", { _ = try GarbageRecord.fetchAll(db) }),
                    ("fetchOne(key:)", { _ = try GarbageRecord.fetchOne(db, key: 1) }),
                    ("raw SQL", { _ = try GarbageRecord.fetchAll(db, sql: "SELECT * FROM garbage") }),
                    ("cursor", { _ = try GarbageRecord.fetchCursor(db).next() }),
                    ("Row", { _ = try GarbageRecord(row: try #require(try Row.fetchOne(db, sql: "SELECT * FROM garbage"))) }),
                ] as [(String, () throws -> Void)] {
                    let error = try #require(throws: RowDecodingError.self, "\(garbage.column) = \(garbage.sqlValue) via \(path)") {
                        try fetch()
                    }
                    #expect(error.column == garbage.column, "\(garbage.sqlValue) via \(path)")
                    #expect("\(error)".hasPrefix(garbage.message), "via \(path): \(error)")
                }
            }
        }
    }

    @Test func missingAndExtraColumns() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try reset(db)
            // Missing: the column that is not there is named, with those that are.
            let missing = try #require(throws: RowDecodingError.self) {
                _ = try GarbageRecord.fetchAll(db, sql: "SELECT id, count, small FROM garbage")
            }
            #expect(missing.reason == .columnNotFound)
            #expect("\(missing)".hasPrefix(#"cannot decode UInt8 for GarbageRecord from column "unsigned": no such column (the row has "id", "count", "small")"#))
            // A dropped column in the table itself.
            try db.execute(sql: "ALTER TABLE garbage DROP COLUMN amount")
            let dropped = try #require(throws: RowDecodingError.self) { _ = try GarbageRecord.fetchAll(db) }
            #expect(dropped.column == "amount")
            // Extra columns are ignored.
            try reset(db)
            try db.execute(sql: "ALTER TABLE garbage ADD COLUMN extra TEXT DEFAULT 'x'")
            #expect(try GarbageRecord.fetchAll(db).count == 1)
            #expect(try GarbageRecord.fetchAll(db, sql: "SELECT *, 1 AS more, NULL AS evenMore FROM garbage").count == 1)
        }
    }

    /// A table recreated with its columns in another order, between two runs
    /// of the same cached `SELECT *`: the second run reads the new columns
    /// (it used to read them through the first run's column names).
    @Test(arguments: WriterKind.allCases)
    func cachedQueriesFollowSchemaChanges(kind: WriterKind) throws {
        struct Pair: Codable, FetchableRecord, TableRecord, Equatable {
            var a: String
            var b: Int
            static let databaseTableName = "pair"
        }
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        func readBoth() throws -> (rows: [Row], pairs: [Pair], sqlPairs: [Pair]) {
            try writer.read { db in
                (try Row.fetchAll(db, sql: "SELECT * FROM pair"), try Pair.fetchAll(db),
                 try Pair.fetchAll(db, sql: "SELECT * FROM pair"))
            }
        }
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE pair (a TEXT, b INTEGER); INSERT INTO pair VALUES ('x', 1)")
        }
        let first = try readBoth()
        #expect(first.pairs == [Pair(a: "x", b: 1)] && first.sqlPairs == first.pairs)
        #expect(first.rows.first?.columnNames == ["a", "b"])
        try writer.write { db in
            // The same connection: a cached statement, then the change, then the statement again.
            #expect(try Pair.fetchAll(db) == [Pair(a: "x", b: 1)])
            try db.execute(sql: "DROP TABLE pair; CREATE TABLE pair (b INTEGER, c TEXT, a TEXT); INSERT INTO pair VALUES (2, 'c', 'y')")
            #expect(try Pair.fetchAll(db) == [Pair(a: "y", b: 2)])
            #expect(try Row.fetchAll(db, sql: "SELECT * FROM pair").first?.columnNames == ["b", "c", "a"])
        }
        // Another connection of a pool (or the queue's) sees the change too.
        let second = try readBoth()
        #expect(second.pairs == [Pair(a: "y", b: 2)])
        #expect(second.sqlPairs == [Pair(a: "y", b: 2)])
        #expect(second.rows.first?.columnNames == ["b", "c", "a"])
        #expect(try second.rows.first.map { try $0["a"] as String } == "y")
    }

    @Test func hugeAndDeepJSONIsAnErrorNotACrash() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try reset(db)
            // Nesting far deeper than any decoder recursion limit.
            let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            try db.execute(sql: "UPDATE garbage SET nested = ?", arguments: [deep])
            let error = try #require(throws: RowDecodingError.self) { _ = try GarbageRecord.fetchAll(db) }
            #expect(error.column == "nested")
            // A number too big for Int in the JSON.
            try db.execute(sql: #"UPDATE garbage SET nested = '{"label":"l","values":[1e400, 99999999999999999999999]}'"#)
            let big = try #require(throws: RowDecodingError.self) { _ = try GarbageRecord.fetchAll(db) }
            #expect(big.column == "nested")
        }
    }

    /// Text that is not valid UTF-8 (only the database itself can hold it) is
    /// read with replacement characters, never a crash.
    @Test func invalidUTF8TextIsRepaired() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try reset(db)
            try db.execute(sql: "UPDATE garbage SET name = CAST(X'61FF62C0E280' AS TEXT)")
            let record = try #require(try GarbageRecord.fetchOne(db))
            #expect(record.name.hasPrefix("a\u{FFFD}b"))
            #expect(record.name.unicodeScalars.filter { $0 == "\u{FFFD}" }.count >= 2)
            let text = try #require(try String.fetchOne(db, sql: "SELECT name FROM garbage"))
            #expect(text == record.name)
            // A nested JSON column with invalid UTF-8 is a decoding error.
            try db.execute(sql: #"UPDATE garbage SET nested = CAST(X'7B226C6162656C223A22FF227D' AS TEXT)"#)
            let error = try #require(throws: RowDecodingError.self) { _ = try GarbageRecord.fetchAll(db) }
            #expect(error.column == "nested")
        }
    }

    /// Date texts with huge years used to overflow the day arithmetic and trap.
    @Test func dateTextsWithHugeYearsAreRejected() {
        #expect(DatabaseDateFormat.date(from: "999999999999999999-01-01") == nil)
        #expect(DatabaseDateFormat.date(from: "-999999999999999999-01-01 00:00") == nil)
        #expect(DatabaseDateFormat.date(from: "1000000000-01-01") == nil)
        // The largest years Quarry writes (about ±292 million) still read back.
        let far = Date(timeIntervalSince1970: 9.2e15)
        let text = DatabaseDateFormat.string(from: far)
        #expect(DatabaseDateFormat.date(from: text) == far)
        let farPast = Date(timeIntervalSince1970: -9.2e15)
        #expect(DatabaseDateFormat.date(from: DatabaseDateFormat.string(from: farPast)) == farPast)
        #expect(DatabaseDateFormat.date(from: "999999999-12-31 23:59:59.999") != nil)
    }

    @Test func numbersOutOfRangeForOtherTypes() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { (db: Database) throws in
            #expect(throws: RowDecodingError.self) { _ = try Int32.fetchOne(db, sql: "SELECT 4294967296") }
            #expect(throws: RowDecodingError.self) { _ = try UInt64.fetchOne(db, sql: "SELECT -1") }
            #expect(throws: RowDecodingError.self) { _ = try Int.fetchOne(db, sql: "SELECT 9.3e18") }
            #expect(throws: RowDecodingError.self) { _ = try Int.fetchOne(db, sql: "SELECT 9e999") }
            #expect(throws: RowDecodingError.self) { _ = try Decimal.fetchOne(db, sql: "SELECT 9e999") }
            #expect(throws: RowDecodingError.self) { _ = try Decimal.fetchOne(db, sql: "SELECT '1e99999999999'") }
            #expect(throws: RowDecodingError.self) { _ = try Decimal.fetchOne(db, sql: "SELECT '--1'") }
            #expect(try Float.fetchOne(db, sql: "SELECT 1e300") == .infinity)
            #expect(try Date.fetchOne(db, sql: "SELECT 9e999") != nil)
            #expect(try Date.fetchOne(db, sql: "SELECT ?", arguments: [Int64.min]) != nil)
            for text in ["--1", "1-2", "1.2.3", "1e", "1e+", ".", "e5", "+", "-", "1 ", " 1", "0x10", "1_000", "١"] {
                #expect(throws: RowDecodingError.self, "\(text)") { _ = try Decimal.fetchOne(db, sql: "SELECT ?", arguments: [text]) }
            }
            for (text, value) in [("-1.5e-3", "-0.0015"), (".5", "0.5"), ("5.", "5"), ("+12", "12"), ("1E2", "100")] {
                #expect(try Decimal.fetchOne(db, sql: "SELECT ?", arguments: [text]) == Decimal(string: value), "\(text)")
            }
            let many = String(repeating: "9", count: 5000)
            _ = try? Decimal.fetchOne(db, sql: "SELECT ?", arguments: [many])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func aFileOfRandomBytesIsNotADatabase(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        var generator = HostileRandom.forProperty("not-a-database")
        var bytes = [UInt8](repeating: 0, count: 64 * 1024)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: directory.path()))
        let error = try #require(throws: DatabaseError.self) {
            let writer = try kind.make(in: directory)
            _ = try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        }
        #expect(error.resultCode == .SQLITE_NOTADB)
        #expect(error.message.contains("file is not a database"))
        #expect(error.message.contains(directory.path()))
    }

    @Test(arguments: WriterKind.allCases)
    func aTruncatedDatabaseThrowsCorruptionErrors(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let source: String
        do {
            source = try chinookCopy(in: directory)
        } catch {
            Issue.record("the Chinook fixture is needed: \(error)")
            return
        }
        let original = try Data(contentsOf: URL(fileURLWithPath: source))
        // Keep the first pages (the schema) and drop the rest of the file.
        try original.prefix(original.count / 3).write(to: URL(fileURLWithPath: directory.path()))
        var errors: [DatabaseError] = []
        do {
            let writer = try kind.make(in: directory)
            for table in ["Artist", "Album", "Track", "Invoice", "InvoiceLine", "Customer", "Playlist", "PlaylistTrack"] {
                do {
                    _ = try writer.read { db in try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)") }
                } catch let error as DatabaseError {
                    errors.append(error)
                }
            }
            do {
                _ = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            } catch let error as DatabaseError {
                errors.append(error)
            }
        } catch let error as DatabaseError {
            errors.append(error)
        }
        #expect(!errors.isEmpty)
        for error in errors {
            #expect([ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode), "\(error)")
        }
    }
}
