// Tests of how a transaction's end reaches its observers: every rollback of
// a transaction that wrote is told, even when it changed no row (a schema
// change, a commit vetoed by databaseWillCommit(), a failed insert); a
// `.nextTransaction` observer is detached before it is told, so that a
// transaction it runs from databaseDidCommit or databaseDidRollback is never
// told to it. SQLite only: a server connection tells observers nothing.

import Foundation
import Quarry
import Testing

private struct Veto: Error, Equatable {}
private struct Failure: Error {}

/// Runs a transaction that inserts a row each time it is told of a
/// transaction's end, up to `limit` times (so that a regression fails the
/// test instead of overflowing the stack).
private final class TransactionRunningObserver: TransactionObserver {
    var commits = 0
    var rollbacks = 0
    var errors: [any Error] = []
    let limit = 5

    func observes(eventsOfKind kind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) {
        commits += 1
        runTransaction(db)
    }
    func databaseDidRollback(_ db: Database) {
        rollbacks += 1
        runTransaction(db)
    }

    private func runTransaction(_ db: Database) {
        guard commits + rollbacks < limit else { return }
        do {
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["from the observer \(commits + rollbacks)"])
                return .commit
            }
        } catch {
            errors.append(error)
        }
    }
}

private func makeWriter(_ kind: WriterKind, _ directory: TemporaryDirectory) throws -> any DatabaseWriter {
    let writer = try kind.make(in: directory)
    try writer.write { db throws in
        try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
    }
    return writer
}

@Suite("Transaction observers: the end of a transaction")
struct TransactionObserverEndTests {
    @Test("a rolled-back transaction that only changed the schema is told", arguments: WriterKind.allCases)
    func rollbackOfASchemaChange(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        try writer.writeWithoutTransaction { db throws in
            try db.inTransaction(.deferred) {
                try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY)")
                return .rollback
            }
        }
        #expect(observer.rollbacks == 1)
        #expect(observer.commits == 0)
        #expect(throws: Failure.self) {
            try writer.write { db throws in
                try db.execute(sql: "CREATE INDEX player_name ON player(name)")
                throw Failure()
            }
        }
        #expect(observer.rollbacks == 2)
        #expect(observer.commits == 0)
        #expect(try writer.read { db throws in try db.tableExists("team") } == false)
    }

    @Test("a commit vetoed by databaseWillCommit() is told as a rollback, though no row changed", arguments: WriterKind.allCases)
    func vetoedCommitWithoutRows(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observer = RecordingObserver()
        observer.willCommitError = Veto()
        try writer.add(transactionObserver: observer)
        #expect(throws: Veto()) {
            try writer.write { db throws in try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY)") }
        }
        #expect(observer.rollbacks == 1)
        // An autocommit statement too.
        #expect(throws: Veto()) {
            try writer.writeWithoutTransaction { db throws in try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY)") }
        }
        #expect(observer.rollbacks == 2)
        // An empty write: BEGIN IMMEDIATE took the write lock, so the commit asks.
        #expect(throws: Veto()) {
            try writer.write { _ in }
        }
        #expect(observer.rollbacks == 3)
        #expect(observer.commits == 0)
        #expect(try writer.read { db throws in try db.tableExists("team") } == false)
    }

    @Test("a transaction whose only insert failed is told its rollback", arguments: WriterKind.allCases)
    func rollbackAfterAFailedInsert(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        try writer.write { db throws in try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')") }
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        #expect(throws: DatabaseError.self) {
            try writer.write { db throws in try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')") }
        }
        #expect(observer.rollbacks == 1)
        #expect(observer.commits == 0)
    }

    @Test("an observer attached inside a transaction that wrote is told its rollback", arguments: WriterKind.allCases)
    func attachedAfterTheTransactionWrote(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observer = RecordingObserver()
        try writer.writeWithoutTransaction { db throws in
            try db.execute(sql: "BEGIN DEFERRED TRANSACTION")
            try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY)")
            db.add(transactionObserver: observer, extent: .nextTransaction)
            try db.execute(sql: "ROLLBACK TRANSACTION")
        }
        #expect(observer.rollbacks == 1)
        #expect(observer.commits == 0)
    }

    /// What is not a transaction observers hear of: a read, and an
    /// autocommit statement that fails before it writes.
    @Test("a failed read and a failed autocommit statement are not told", arguments: WriterKind.allCases)
    func noRollbackWithoutAWrite(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        try writer.write { db throws in try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')") }
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        #expect(throws: Failure.self) {
            try writer.read { db throws in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM player")
                throw Failure()
            }
        }
        #expect(throws: DatabaseError.self) {
            try writer.writeWithoutTransaction { db throws in try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')") }
        }
        #expect(observer.rollbacks == 0)
        #expect(observer.commits == 0)
    }

    @Test(".nextTransaction: a transaction run from databaseDidCommit is not told to the observer", arguments: WriterKind.allCases)
    func nextTransactionObserverRunningATransactionOnCommit(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observer = TransactionRunningObserver()
        try writer.add(transactionObserver: observer, extent: .nextTransaction)
        try writer.write { db throws in try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')") }
        #expect(observer.commits == 1)
        #expect(observer.rollbacks == 0)
        #expect(observer.errors.isEmpty)
        // The observer's transaction ran and committed; the next writes are not told.
        try writer.write { db throws in try db.execute(sql: "INSERT INTO player (name) VALUES ('Barbara')") }
        #expect(observer.commits == 1)
        #expect(try writer.read { db throws in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") } == 3)
    }

    @Test(".nextTransaction: a transaction run from databaseDidRollback is not told to the observer", arguments: WriterKind.allCases)
    func nextTransactionObserverRunningATransactionOnRollback(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, directory)
        let observer = TransactionRunningObserver()
        try writer.add(transactionObserver: observer, extent: .nextTransaction)
        #expect(throws: Failure.self) {
            try writer.write { db throws in
                try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')")
                throw Failure()
            }
        }
        #expect(observer.rollbacks == 1)
        #expect(observer.commits == 0)
        #expect(observer.errors.isEmpty)
        #expect(try writer.read { db throws in try String.fetchAll(db, sql: "SELECT name FROM player") } == ["from the observer 1"])
    }
}
