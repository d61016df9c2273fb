// Tests of transactions and savepoints, on both DatabaseQueue and DatabasePool.

import Foundation
import Quarry
import Testing

struct TestError: Error, Equatable {}

@Suite struct TransactionTests {
    func makeWriter(_ kind: WriterKind, _ directory: TemporaryDirectory) throws -> any DatabaseWriter {
        let writer = try kind.make(in: directory)
        try writer.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER)") }
        return writer
    }

    func values(_ writer: any DatabaseWriter) throws -> [Int] {
        try writer.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t ORDER BY v") }
    }

    @Test(arguments: WriterKind.allCases)
    func writeRollsBackWhenTheClosureThrows(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        #expect(throws: TestError.self) {
            try writer.write { db throws in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw TestError()
            }
        }
        #expect(try values(writer) == [])
        // The connection is not left inside a transaction.
        try writer.writeWithoutTransaction { db in #expect(!db.isInsideTransaction) }
    }

    @Test(arguments: WriterKind.allCases)
    func writeCommitsAndReturns(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let inside = try writer.write { db -> Bool in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return db.isInsideTransaction
        }
        #expect(inside)
        #expect(try values(writer) == [1])
    }

    @Test(arguments: WriterKind.allCases)
    func explicitTransactionsCommitAndRollBack(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        try writer.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return .commit
            }
            try db.inTransaction(.exclusive) {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                return .rollback
            }
            #expect(throws: TestError.self) {
                try db.inTransaction {
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    throw TestError()
                }
            }
            #expect(!db.isInsideTransaction)
        }
        #expect(try values(writer) == [1])
    }

    @Test(arguments: WriterKind.allCases)
    func nestedTransactionsUseSavepoints(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                return .rollback
            }
            #expect(throws: TestError.self) {
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    throw TestError()
                }
            }
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (4)")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (5)")
                    return .rollback
                }
                return .commit
            }
            #expect(db.isInsideTransaction)
        }
        #expect(try values(writer) == [1, 4])
    }

    @Test func savepointOutsideATransactionStartsOne() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t (v INTEGER)")
            try db.inSavepoint {
                #expect(db.isInsideTransaction)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return .commit
            }
            #expect(!db.isInsideTransaction)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 1)
        }
    }

    @Test func failedCommitRollsBack() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
            let error = try #require(throws: DatabaseError.self) {
                try db.inTransaction {
                    try db.execute(sql: "INSERT INTO child VALUES (1)")
                    return .commit  // the deferred foreign key fails at COMMIT
                }
            }
            #expect(error.isForeignKeyViolation)
            #expect(!db.isInsideTransaction)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM child") == 0)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func readsCannotWrite(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let error = try #require(throws: DatabaseError.self) {
            try writer.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error.resultCode == .SQLITE_READONLY)
        #expect(try values(writer) == [])
        // The queue's connection can write again afterwards.
        try writer.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try values(writer) == [1])
    }
}
