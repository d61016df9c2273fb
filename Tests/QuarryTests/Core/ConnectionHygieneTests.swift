// Connection hygiene (issue 36): a connection that a fault made unsafe — a
// failed rollback, a damaged file, an I/O error — is closed and replaced,
// never handed out again, and what was attached to it (transaction
// observers) moves to its replacement. The faults injected through a VFS are
// in Reliability/IOErrorTests.swift; these tests provoke the rest directly.

import CSQLite
import Foundation
import QuarryPostgres
@testable import Quarry
import Testing

@Suite("Connection hygiene")
struct ConnectionHygieneTests {
    /// A name for the connection that runs the next write: a temporary
    /// table, which only that connection sees (an object's address may be
    /// reused by its replacement).
    private func connectionID(_ writer: any DatabaseWriter) throws -> String {
        try writer.writeWithoutTransaction { db in
            if let name = try String.fetchOne(db, sql: "SELECT name FROM temp.sqlite_master WHERE name LIKE 'connection_%'") {
                return name
            }
            let name = "connection_\(UUID().uuidString.prefix(8))"
            try db.execute(sql: "CREATE TEMP TABLE \"\(name)\" (x)")
            return name
        }
    }

    @Test("A discarded connection is closed and replaced; what it committed stays", arguments: WriterKind.allCases)
    func discardedConnectionIsReplaced(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        let first = try connectionID(writer)
        #expect(try connectionID(writer) == first, "a healthy connection is reused")
        try writer.write { db in
            try db.execute(sql: "INSERT INTO item (id) VALUES (1)")
            db.discard(because: "a test")
        }
        let second = try connectionID(writer)
        #expect(second != first)
        #expect(try connectionID(writer) == second, "the replacement is reused in turn")
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
    }

    @Test("A connection whose ROLLBACK failed is discarded: the next write is not undone later", arguments: WriterKind.allCases)
    func failedRollbackDiscardsTheConnection(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let writer = try kind.open(path: path)
        try writer.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        let first = try connectionID(writer)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO item (id) VALUES (1)")
                // From now on this connection's ROLLBACK fails to compile
                // (SQLITE_AUTH) and leaves the transaction open: the state
                // that an I/O error cannot reach with SQLite 3.40, which
                // resets autocommit even when its rollback fails.
                db.userAuthorizer = { action, target, _, _ in
                    guard action == SQLITE_TRANSACTION, let target, String(cString: target) == "ROLLBACK" else { return SQLITE_OK }
                    return SQLITE_DENY
                }
                db.expireStatements()
                throw Failure()
            }
        }
        // Before issue 36, this write ran as a savepoint inside the stale
        // transaction, reported success, and was undone with it.
        try writer.write { db in try db.execute(sql: "INSERT INTO item (id) VALUES (2)") }
        #expect(try connectionID(writer) != first)
        if let queue = writer as? DatabaseQueue { queue.close() }
        if let pool = writer as? DatabasePool { pool.close() }
        let reopened = try DatabaseQueue(path: path)
        #expect(try reopened.read { db in try Int.fetchAll(db, sql: "SELECT id FROM item ORDER BY id") } == [2])
    }

    @Test("Transaction observers move to the connection that replaces the writer", arguments: WriterKind.allCases)
    func observersSurviveReplacement(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        try writer.write { db in
            try db.execute(sql: "INSERT INTO item (id) VALUES (1)")
            db.discard(because: "a test")
        }
        #expect(observer.commits == 1)
        try writer.write { db in try db.execute(sql: "INSERT INTO item (id) VALUES (2)") }
        #expect(observer.commits == 2, "the replacement writer tells the observer")
        #expect(observer.committed.map(\.rowID) == [1, 2])
    }

    @Test("A damaged page throws isCorrupt, and the next access reads the file afresh")
    func corruptFileDiscardsTheConnection() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let writer = try DatabaseQueue(path: path)
        try fillItemsSpanningPages(writer)
        let first = try connectionID(writer)
        let original = try damagePageTwo(of: path)
        let error = try #require(throws: DatabaseError.self) {
            try writer.read { db in try Int.fetchOne(db, sql: "SELECT sum(length(payload)) FROM item") }
        }
        #expect(error.isCorrupt)
        #expect(!error.isIOError)
        try original.write(to: URL(fileURLWithPath: path))
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 200)
        #expect(try connectionID(writer) != first)
    }

    @Test("A file that is not a database throws isCorrupt at open")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: DatabaseError.self) { try DatabaseQueue(path: path) }
        #expect(error.resultCode == .SQLITE_NOTADB)
        #expect(error.isCorrupt)
    }

    @Test("isCorrupt and isIOError are SQLite's only")
    func serverErrorsAreNeitherCorruptNorIO() {
        let lost = DatabaseError(sqlState: "08006", message: "connection lost")
        #expect(lost.isConnectionError)
        #expect(!lost.isIOError)
        #expect(!lost.isCorrupt)
        #expect(DatabaseError(resultCode: ResultCode(rawValue: 10 | (4 << 8)), message: "fsync").isIOError)
        #expect(DatabaseError(resultCode: .SQLITE_CORRUPT, message: "damaged").isCorrupt)
        #expect(!DatabaseError(resultCode: .SQLITE_FULL, message: "full").isIOError)
    }

    @Test("An in-memory database keeps its only connection after an error that would discard a file's")
    func inMemoryConnectionIsKept() throws {
        var uriConfiguration = Configuration()
        uriConfiguration.acceptsURIFilenames = true
        for queue in [try DatabaseQueue(), try DatabaseQueue(path: "file::memory:", configuration: uriConfiguration)] {
            try inMemoryConnectionIsKept(queue)
        }
    }

    private func inMemoryConnectionIsKept(_ queue: DatabaseQueue) throws {
        try queue.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        let first = try connectionID(queue)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO item (id) VALUES (1)")
            _ = db.makeError(code: SQLITE_IOERR, sql: nil)
            #expect(db.discardReason == nil)
        }
        #expect(try connectionID(queue) == first)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
    }
}
