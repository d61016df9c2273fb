// Tests of transaction observers: which events they are told, when, and for
// how long they stay attached; on a DatabaseQueue and a DatabasePool.

import Foundation
import Quarry
import Testing

/// Records everything it is told; `committed` holds the events of committed
/// transactions only.
final class RecordingObserver: TransactionObserver {
    let kinds: (DatabaseEventKind) -> Bool
    var told: [DatabaseEvent] = []
    var pending: [DatabaseEvent] = []
    var committed: [DatabaseEvent] = []
    var unspecifiedChanges = 0
    var commits = 0
    var rollbacks = 0
    var willCommitError: (any Error)?

    init(observing kinds: @escaping (DatabaseEventKind) -> Bool = { _ in true }) { self.kinds = kinds }

    func observes(eventsOfKind kind: DatabaseEventKind) -> Bool { kinds(kind) }
    func databaseDidChange(with event: DatabaseEvent) {
        told.append(event)
        pending.append(event)
    }
    func databaseDidChange() { unspecifiedChanges += 1 }
    func databaseWillCommit() throws { if let willCommitError { throw willCommitError } }
    func databaseDidCommit(_ db: Database) {
        commits += 1
        committed += pending
        pending = []
    }
    func databaseDidRollback(_ db: Database) {
        rollbacks += 1
        pending = []
    }
}

private struct VetoError: Error, Equatable {}

private func makeObserved(_ kind: WriterKind, _ directory: TemporaryDirectory) throws -> any DatabaseWriter {
    let writer = try kind.make(in: directory)
    try writer.write { db throws in
        try db.execute(sql: """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE tag (name TEXT PRIMARY KEY, uses INTEGER) WITHOUT ROWID;
            """)
    }
    return writer
}

@Suite("Transaction observers")
struct TransactionObserverTests {
    @Test("each committed insert, update and delete is told once, with its table, kind and rowid", arguments: WriterKind.allCases)
    func eventsOfCommittedChanges(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur'), (2, 'Barbara')")
            try db.execute(sql: "UPDATE player SET score = 10 WHERE id = 2")
            try db.execute(sql: "DELETE FROM player WHERE id = 1")
        }
        #expect(observer.committed == [
            DatabaseEvent(kind: .insert, tableName: "player", rowID: 1),
            DatabaseEvent(kind: .insert, tableName: "player", rowID: 2),
            DatabaseEvent(kind: .update, tableName: "player", rowID: 2),
            DatabaseEvent(kind: .delete, tableName: "player", rowID: 1),
        ])
        #expect(observer.commits == 1)
        #expect(observer.rollbacks == 0)
        // Autocommit statements commit one by one.
        try writer.writeWithoutTransaction { db throws in
            try db.execute(sql: "INSERT INTO team (id, name) VALUES (7, 'Reds')")
            try db.execute(sql: "UPDATE team SET name = 'Blues'")
        }
        #expect(observer.commits == 3)
        #expect(Array(observer.committed.suffix(2)) == [
            DatabaseEvent(kind: .insert, tableName: "team", rowID: 7),
            DatabaseEvent(kind: .update, tableName: "team", rowID: 7),
        ])
    }

    @Test("a rolled-back transaction is never committed", arguments: WriterKind.allCases)
    func rolledBackTransaction(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try writer.write { db throws in
                try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')")
                throw Failure()
            }
        }
        #expect(observer.told.count == 1)
        #expect(observer.rollbacks == 1)
        #expect(observer.commits == 0)
        #expect(observer.committed.isEmpty)
        try writer.writeWithoutTransaction { db throws in
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO player (id, name) VALUES (2, 'Barbara')")
                return .rollback
            }
        }
        #expect(observer.rollbacks == 2)
        #expect(observer.committed.isEmpty)
        #expect(try writer.read { db throws in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") } == 0)
    }

    @Test("changes of a rolled-back savepoint are never told; those of a released one are", arguments: WriterKind.allCases)
    func savepoints(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')")
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO player (id, name) VALUES (2, 'Barbara')")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO player (id, name) VALUES (3, 'Craig')")
                    return .rollback
                }
                // Inside a savepoint, nothing is told yet.
                #expect(observer.told.map(\.rowID) == [1])
                return .commit
            }
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO player (id, name) VALUES (4, 'David')")
                return .rollback
            }
            // Raw SQL savepoints, with a ROLLBACK TO that keeps the savepoint open.
            try db.execute(sql: "SAVEPOINT a")
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (5, 'Eve')")
            try db.execute(sql: "ROLLBACK TO a")
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (6, 'Fay')")
            try db.execute(sql: "RELEASE a")
        }
        #expect(observer.told.map(\.rowID) == [1, 2, 6])
        #expect(observer.committed.map(\.rowID) == [1, 2, 6])
        // A savepoint outside a transaction starts one, and its release commits.
        try writer.writeWithoutTransaction { db throws in
            try db.execute(sql: "SAVEPOINT outer; INSERT INTO player (id, name) VALUES (7, 'Gil'); RELEASE outer")
        }
        #expect(observer.committed.map(\.rowID) == [1, 2, 6, 7])
        #expect(observer.commits == 2)
    }

    @Test("DELETE without WHERE reports each row, though SQLite would truncate", arguments: WriterKind.allCases)
    func deleteWithoutWhere(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'A'), (2, 'B'), (3, 'C')")
            // Compiled, and cached, before any observer: it would truncate.
            try db.cachedStatement(sql: "DELETE FROM team").execute()
        }
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        try writer.write { db throws in
            try db.execute(sql: "DELETE FROM player")
            try db.execute(sql: "INSERT INTO team (id) VALUES (1), (2)")
            try db.cachedStatement(sql: "DELETE FROM team").execute()
        }
        #expect(observer.committed.filter { $0.kind == .delete }.map { "\($0.tableName)\($0.rowID)" } == [
            "player1", "player2", "player3", "team1", "team2",
        ])
    }

    @Test("databaseWillCommit can refuse the commit: the write throws its error and rolls back", arguments: WriterKind.allCases)
    func commitVeto(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        let observer = RecordingObserver()
        observer.willCommitError = VetoError()
        try writer.add(transactionObserver: observer)
        #expect(throws: VetoError()) {
            try writer.write { db throws in try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')") }
        }
        #expect(observer.rollbacks == 1)
        #expect(observer.commits == 0)
        #expect(try writer.read { db throws in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") } == 0)
        // Autocommit statements too.
        #expect(throws: VetoError()) {
            try writer.writeWithoutTransaction { db throws in
                try db.execute(sql: "INSERT INTO player (id, name) VALUES (2, 'Barbara')")
            }
        }
        observer.willCommitError = nil
        try writer.write { db throws in try db.execute(sql: "INSERT INTO player (id, name) VALUES (3, 'Craig')") }
        #expect(observer.committed.map(\.rowID) == [3])
        #expect(try writer.read { db throws in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") } == 1)
    }

    @Test("observes(eventsOfKind:) selects the tables, kinds and updated columns", arguments: WriterKind.allCases)
    func selectiveObserver(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        var asked: [DatabaseEventKind] = []
        let observer = RecordingObserver { kind in
            asked.append(kind)
            switch kind {
            case .insert(let table): return table == "player"
            case .update(let table, let columns): return table == "player" && columns.contains("score")
            case .delete: return false
            }
        }
        try writer.add(transactionObserver: observer)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')")
            try db.execute(sql: "INSERT INTO team (id, name) VALUES (1, 'Reds')")
            try db.execute(sql: "UPDATE player SET name = 'Art'")
            try db.execute(sql: "UPDATE player SET score = score + 1, name = 'A'")
            try db.execute(sql: "DELETE FROM player")
        }
        #expect(observer.committed == [
            DatabaseEvent(kind: .insert, tableName: "player", rowID: 1),
            DatabaseEvent(kind: .update, tableName: "player", rowID: 1),
        ])
        #expect(asked.contains(.update(tableName: "player", columnNames: ["name"])))
        #expect(asked.contains(.update(tableName: "player", columnNames: ["score", "name"])))
        #expect(asked.contains(.insert(tableName: "team")))
    }

    @Test("rows changed by triggers and foreign key actions are told", arguments: WriterKind.allCases)
    func triggersAndCascades(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        try writer.write { db throws in
            try db.execute(sql: """
                CREATE TABLE log (id INTEGER PRIMARY KEY, message TEXT);
                CREATE TRIGGER player_log AFTER INSERT ON player BEGIN INSERT INTO log (message) VALUES (NEW.name); END;
                CREATE TABLE membership (id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id) ON DELETE CASCADE);
                INSERT INTO team (id) VALUES (1);
                INSERT INTO membership (id, teamId) VALUES (10, 1), (11, 1);
                """)
        }
        let observer = RecordingObserver { !$0.tableName.hasPrefix("player") }
        try writer.add(transactionObserver: observer)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')")
            try db.execute(sql: "DELETE FROM team WHERE id = 1")
        }
        #expect(observer.committed.map { "\($0.kind) \($0.tableName)(\($0.rowID))" } == [
            // SQLite deletes the parent row, then runs the cascade.
            "insert log(1)", "delete team(1)", "delete membership(10)", "delete membership(11)",
        ])
    }

    @Test("a WITHOUT ROWID table has no row events: its observers are told databaseDidChange()", arguments: WriterKind.allCases)
    func withoutRowidTable(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        let observer = RecordingObserver { $0.tableName == "tag" }
        try writer.add(transactionObserver: observer)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO tag (name, uses) VALUES ('swift', 1)")
            try db.execute(sql: "UPDATE tag SET uses = 2 WHERE name = 'nothing'")  // no row changed
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')")  // not observed
        }
        #expect(observer.told.isEmpty)
        #expect(observer.unspecifiedChanges == 1)
        #expect(observer.commits == 1)
    }

    @Test("the rows of a statement that fails are not told, but its observers hear databaseDidChange()", arguments: WriterKind.allCases)
    func failedStatement(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')")
            // The second row violates UNIQUE(name): the first row is undone too.
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (id, name) VALUES (2, 'Barbara'), (3, 'Arthur')")
            }
        }
        #expect(observer.committed.map(\.rowID) == [1])
        // Quarry cannot tell SQLite's ABORT (rows undone) from OR FAIL (rows
        // before the failure kept), so it says something may have changed.
        #expect(observer.unspecifiedChanges == 1)
        try writer.write { db throws in
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT OR FAIL INTO player (id, name) VALUES (4, 'Dora'), (5, 'Arthur')")
            }
        }
        #expect(observer.committed.map(\.rowID) == [1])
        #expect(observer.unspecifiedChanges == 2)
        #expect(try writer.read { db throws in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") } == 2)
    }

    @Test("INSERT OR REPLACE tells the inserted row (the replaced row's deletion has no event)", arguments: WriterKind.allCases)
    func replace(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        let observer = RecordingObserver()
        try writer.add(transactionObserver: observer)
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'Arthur')")
            try db.execute(sql: "INSERT OR REPLACE INTO player (id, name) VALUES (2, 'Arthur')")
        }
        #expect(observer.committed == [
            DatabaseEvent(kind: .insert, tableName: "player", rowID: 1),
            DatabaseEvent(kind: .insert, tableName: "player", rowID: 2),
        ])
    }
}

@Suite("Transaction observation extents")
struct TransactionObservationExtentTests {
    @Test(".observerLifetime holds the observer weakly", arguments: WriterKind.allCases)
    func observerLifetime(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        weak var released: RecordingObserver?
        do {
            let observer = RecordingObserver()
            released = observer
            try writer.add(transactionObserver: observer, extent: .observerLifetime)
            try writer.write { db throws in try db.execute(sql: "INSERT INTO team (name) VALUES ('a')") }
            #expect(observer.commits == 1)
        }
        #expect(released == nil)
        // Writing after the observer is gone is fine.
        try writer.write { db throws in try db.execute(sql: "INSERT INTO team (name) VALUES ('b')") }
    }

    @Test(".nextTransaction lasts one transaction; .databaseLifetime until removed", arguments: WriterKind.allCases)
    func nextTransactionAndDatabaseLifetime(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeObserved(kind, directory)
        weak var weakOnce: RecordingObserver?
        weak var weakForever: RecordingObserver?
        let forever: RecordingObserver
        do {
            let once = RecordingObserver()
            let always = RecordingObserver()
            weakOnce = once
            weakForever = always
            forever = always
            try writer.add(transactionObserver: once, extent: .nextTransaction)
            try writer.add(transactionObserver: always, extent: .databaseLifetime)
        }
        #expect(weakOnce != nil)  // held by the connection until its transaction ends
        try writer.write { db throws in try db.execute(sql: "INSERT INTO team (name) VALUES ('a')") }
        #expect(weakOnce == nil)
        try writer.write { db throws in try db.execute(sql: "INSERT INTO team (name) VALUES ('b')") }
        #expect(forever.commits == 2)
        try writer.remove(transactionObserver: forever)
        try writer.write { db throws in try db.execute(sql: "INSERT INTO team (name) VALUES ('c')") }
        #expect(forever.commits == 2)
        _ = weakForever
    }

    @Test("an observer added inside a transaction with .nextTransaction sees that transaction's end")
    func nextTransactionInsideTransaction() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        let observer = RecordingObserver()
        try dbQueue.write { db throws in
            db.add(transactionObserver: observer, extent: .nextTransaction)
            try db.execute(sql: "INSERT INTO t DEFAULT VALUES")
        }
        try dbQueue.write { db throws in try db.execute(sql: "INSERT INTO t DEFAULT VALUES") }
        #expect(observer.commits == 1)
        #expect(observer.committed.map(\.rowID) == [1])
    }

    @Test("adding twice attaches once; removing an unknown observer does nothing")
    func addTwice() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        let observer = RecordingObserver()
        try dbQueue.add(transactionObserver: observer)
        try dbQueue.add(transactionObserver: observer)
        try dbQueue.remove(transactionObserver: RecordingObserver())
        try dbQueue.write { db throws in try db.execute(sql: "INSERT INTO t DEFAULT VALUES") }
        #expect(observer.told.count == 1)
        #expect(observer.commits == 1)
    }

    @Test("adding from inside an access of the same database throws instead of deadlocking")
    func addFromInsideAccess() throws {
        let dbQueue = try DatabaseQueue()
        #expect(throws: DatabaseError.self) {
            try dbQueue.read { _ in try dbQueue.add(transactionObserver: RecordingObserver()) }
        }
    }
}
