// Tests of the caps that `Configuration.acceptsUntrustedFiles` sets with
// sqlite3_limit: read back on every connection, and shown on crafted files (a
// 5 MB blob in a row, a view with a deep expression) that open and read
// without the option and throw a DatabaseError naming the limit with it.

import CSQLite
import Foundation
@testable import Quarry
import Testing

private struct LimitedItem: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int64
    var a: Int64
    var b: Int64
}

@Suite("Configuration: the caps of untrusted files")
struct UntrustedFileLimitsTests {
    private var untrusted: Configuration {
        var configuration = Configuration()
        configuration.acceptsUntrustedFiles = true
        return configuration
    }

    /// The connection's value of each limit of `UntrustedFileLimits.caps`.
    private func limits(_ db: Database) throws -> [Int32] {
        let handle = try #require(db.sqliteConnection)
        return UntrustedFileLimits.caps.map { sqlite3_limit(handle, $0.category, -1) }
    }

    @Test("acceptsUntrustedFiles sets every cap on every connection, writer and readers", arguments: WriterKind.allCases)
    func capsOnEveryConnection(kind: WriterKind) throws {
        let caps = UntrustedFileLimits.caps.map(\.value)
        #expect(caps == [1_000_000, 100_000, 200, 100, 10, 25_000, 32, 0, 50, 999, 10])
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory, configuration: untrusted)
        #expect(try writer.write { db in try limits(db) } == caps)
        #expect(try writer.read { db in try limits(db) } == caps)

        // Without the option, SQLite's defaults: none of the caps.
        let trustedDirectory = try TemporaryDirectory()
        let trusted = try kind.make(in: trustedDirectory)
        let defaults = try trusted.read { db in try limits(db) }
        for (cap, value) in zip(UntrustedFileLimits.caps, defaults) {
            #expect(value > cap.value, "\(cap.name)")
        }
    }

    @Test("a 5 MB blob in a row reads without the option, and throws SQLITE_TOOBIG naming the cap with it")
    func storedValueOverTheLengthCap() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TABLE document (id INTEGER PRIMARY KEY, content BLOB);
                INSERT INTO document (content) VALUES (zeroblob(5000000));
                """)
        }
        let content = try DatabaseQueue(path: path).read { db in try Data.fetchOne(db, sql: "SELECT content FROM document") }
        #expect(content?.count == 5_000_000)

        let queue = try DatabaseQueue(path: path, configuration: untrusted)
        let error = try #require(throws: DatabaseError.self) {
            try queue.read { db in try Data.fetchOne(db, sql: "SELECT content FROM document") }
        }
        #expect(error.resultCode == .SQLITE_TOOBIG)
        #expect(error.message.contains("string or blob too big"), "\(error)")
        #expect(error.message.contains("1000000 bytes (SQLITE_LIMIT_LENGTH)"), "\(error)")
        // The rest of the file is still readable.
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT length(content) FROM document") } == 5_000_000)
    }

    @Test("a view 300 expressions deep reads without the option; with it, the open throws naming the depth cap")
    func schemaOverTheDepthCap() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        // `1 + 1 + … + 1` is a tree 300 levels deep (and parses without
        // nesting SQLite's parser stack).
        let deep = Array(repeating: "1", count: 300).joined(separator: " + ")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY); CREATE VIEW deep AS SELECT \(deep) AS total")
        }
        #expect(try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT total FROM deep") } == 300)

        // The schema is read as the connection opens, under the caps: SQLite
        // reports the view as a malformed schema.
        let error = try #require(throws: DatabaseError.self) {
            try DatabaseQueue(path: path, configuration: untrusted)
        }
        #expect(error.isCorrupt, "\(error)")
        #expect(error.message.contains("malformed database schema (deep)"), "\(error)")
        #expect(error.message.contains("Expression tree is too large (maximum depth 100)"), "\(error)")
    }

    /// The caps leave the application's ordinary SQL alone: a filter of a
    /// dozen conditions, a JSON object of ten members, a batch insert of more
    /// values than SQLITE_LIMIT_VARIABLE_NUMBER (split by Quarry).
    @Test("the application's ordinary SQL runs under the caps")
    func ordinarySQLUnderTheCaps() throws {
        let queue = try DatabaseQueue(configuration: untrusted)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER)")
            let conditions = (1...12).map { "a <> \($0)" }.joined(separator: " AND ")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE \(conditions)") == 0)
            let members = (1...10).map { "'k\($0)', \($0)" }.joined(separator: ", ")
            #expect(try String.fetchOne(db, sql: "SELECT json_object(\(members))")?.hasPrefix(#"{"k1":1"#) == true)
            // 6000 values: more than 999, so several statements.
            try LimitedItem.insertAll(db, (1...2000).map { LimitedItem(id: $0, a: $0, b: $0) })
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM item") == 2000)
        }
    }
}
