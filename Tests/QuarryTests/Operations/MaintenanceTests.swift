// Tests of vacuum(), vacuum(into:) and erase().

import Foundation
import Quarry
import Testing

private func makeFilled(_ kind: WriterKind, in directory: TemporaryDirectory) throws -> any DatabaseWriter {
    let writer = try kind.make(in: directory)
    try writer.write { db throws in
        try db.execute(sql: """
            CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
            CREATE INDEX t_v ON t(v);
            CREATE VIEW tv AS SELECT v FROM t;
            """)
        for i in 0..<300 { try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: ["value \(i)"]) }
        try db.execute(sql: "DELETE FROM t WHERE id % 2 = 0")
    }
    return writer
}

@Suite struct MaintenanceTests {
    @Test(arguments: WriterKind.allCases)
    func vacuumIntoWritesAnEqualCopy(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeFilled(kind, in: directory)
        let path = directory.path("copy.sqlite")
        try writer.vacuum(into: path)
        let copy = try DatabaseQueue(path: path)
        let query = "SELECT id, v FROM t ORDER BY id"
        let original = try writer.read { db in try Row.fetchAll(db, sql: query) }
        #expect(try copy.read { db in try Row.fetchAll(db, sql: query) } == original)
        #expect(try copy.read { db in try db.viewExistsForTest("tv") })
        #expect(try copy.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test(arguments: WriterKind.allCases)
    func asyncVacuumIntoWritesAnEqualCopy(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeFilled(kind, in: directory)
        let path = directory.path("copy.sqlite")
        try await writer.vacuum(into: path)
        let query = "SELECT id, v FROM t ORDER BY id"
        let original = try await writer.read { db in try Row.fetchAll(db, sql: query) }
        #expect(try await DatabaseQueue(path: path).read { db in try Row.fetchAll(db, sql: query) } == original)
    }

    @Test func vacuumIntoAnExistingDatabaseThrowsAndLeavesItAlone() throws {
        let directory = try TemporaryDirectory()
        let writer = try makeFilled(.queue, in: directory)
        let path = directory.path("copy.sqlite")
        try DatabaseQueue(path: path).write { db throws in try db.execute(sql: "CREATE TABLE keep (x)") }
        #expect(throws: DatabaseError.self) { try writer.vacuum(into: path) }
        #expect(try DatabaseQueue(path: path).read { db in try db.tableExists("keep") })
    }

    @Test(arguments: WriterKind.allCases)
    func vacuumShrinksTheFile(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeFilled(kind, in: directory)
        try writer.write { db throws in try db.execute(sql: "DELETE FROM t") }
        let before = try writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") } ?? 0
        try writer.vacuum()
        let after = try writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") } ?? 0
        #expect(after < before)
        #expect(throws: DatabaseError.self) { try writer.write { db in try db.vacuum() } }
    }

    @Test(arguments: WriterKind.allCases)
    func eraseEmptiesTheDatabase(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeFilled(kind, in: directory)
        try writer.erase()
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") } == 0)
        // Usable again, with the same names.
        try writer.write { db throws in try db.execute(sql: "CREATE TABLE t (x); INSERT INTO t VALUES (1)") }
        #expect(try writer.read { db in try Int.fetchAll(db, sql: "SELECT x FROM t") } == [1])
        if kind == .pool {
            #expect(try writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        }
    }

    @Test(arguments: WriterKind.allCases)
    func asyncVacuumAndErase(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeFilled(kind, in: directory)
        try await writer.vacuum()
        #expect(try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 150)
        try await writer.erase()
        #expect(try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") } == 0)
    }

    @Test func eraseInsideATransactionThrows() throws {
        let dbQueue = try DatabaseQueue()
        let error = try #require(throws: DatabaseError.self) { try dbQueue.write { db in try db.erase() } }
        #expect(error.message.contains("inside a transaction"))
    }
}

extension Database {
    fileprivate func viewExistsForTest(_ name: String) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'view' AND name = ?", arguments: [name]) ?? false
    }
}
