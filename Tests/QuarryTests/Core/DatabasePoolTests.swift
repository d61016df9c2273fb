// Tests of DatabasePool: WAL, reads in parallel with a write, snapshots, contention without SQLITE_BUSY.

import Foundation
import Quarry
import Testing

@Suite struct DatabasePoolTests {
    @Test func usesWAL() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        #expect(try dbPool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func refusesInMemoryDatabases() throws {
        let error = try #require(throws: DatabaseError.self) { try DatabasePool(path: ":memory:") }
        #expect(error.message.contains("DatabasePool needs a database file"))
    }

    @Test func missingDirectoryThrows() throws {
        let error = try #require(throws: DatabaseError.self) { try DatabasePool(path: "/nonexistent-quarry-dir/db.sqlite") }
        #expect(error.resultCode == .SQLITE_CANTOPEN)
    }

    /// The "Done when" check of the foundation: a read finishes while a write
    /// transaction is still open, and sees only committed data.
    @Test func readFinishesDuringALongWriteAndSeesOnlyCommittedData() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        try dbPool.write { db throws in
            try db.execute(sql: "CREATE TABLE t (v INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        let readDone = DispatchSemaphore(value: 0)
        let seen = UncheckedBox<Result<[Int], any Error>?>(nil)
        let readFinishedInsideWrite = try dbPool.write { db -> Bool in
            try db.execute(sql: "INSERT INTO t VALUES (2)")  // not committed yet
            Thread.detachNewThread {
                seen.value = Result { try dbPool.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t ORDER BY v") } }
                readDone.signal()
            }
            // The write transaction stays open until the read has finished.
            return readDone.wait(timeout: .now() + 60) == .success
        }
        #expect(readFinishedInsideWrite, "the read did not finish while the write transaction was open")
        // The read succeeded (its error, if any, fails the test here).
        #expect(try #require(seen.value).get() == [1])
        #expect(try dbPool.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t ORDER BY v") } == [1, 2])
    }

    @Test func readsRunInParallel() async throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        let bothInside = DispatchGroup()
        bothInside.enter()
        bothInside.enter()
        // Two threads of their own (StartedThread): concurrentPerform may run
        // both reads on one thread when the others are busy, and the first
        // would then wait for a read that cannot start.
        let readers = (0..<2).map { _ in
            StartedThread {
                Result {
                    try dbPool.read { _ -> Bool in
                        bothInside.leave()
                        // Each read waits until the other one is inside its own read too.
                        return bothInside.wait(timeout: .now() + 60) == .success
                    }
                }
            }
        }
        var results: [Bool] = []
        for reader in readers { results.append(try await reader.value.get()) }
        #expect(results == [true, true])
    }

    @Test func readSnapshotIsStableDuringTheRead() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)") }
        let write = UncheckedBox<Result<Void, any Error>?>(nil)
        let counts = try dbPool.read { db -> [Int] in
            let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM t") ?? -1
            // A write that commits in the middle of the read.
            let writeDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                write.value = Result { try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") } }
                writeDone.signal()
            }
            // The write commits while this read is still open: a write that
            // waited for the read's end would time out here.
            #expect(writeDone.wait(timeout: .now() + 60) == .success, "the write did not commit during the read")
            let after = try Int.fetchOne(db, sql: "SELECT count(*) FROM t") ?? -1
            return [before, after]
        }
        // The write succeeded (its error, if any, fails the test here)...
        try #require(write.value).get()
        // ...and the read did not see it.
        #expect(counts == [1, 1])
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 2)
    }

    /// Busy contention: many tasks writing while others read; nothing is lost
    /// and no SQLITE_BUSY reaches the caller.
    @Test func contentionBetweenWritersAndReaders() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.maximumReaderCount = 3
        let dbPool = try DatabasePool(path: directory.path(), configuration: configuration)
        try await dbPool.write { db throws in
            try db.execute(sql: "CREATE TABLE account (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
            for id in 1...10 { try db.execute(sql: "INSERT INTO account VALUES (?, 100)", arguments: [id]) }
            try db.execute(sql: "CREATE TABLE log (v INTEGER)")
        }
        let writers = 8, writesPerWriter = 25, readers = 8
        let sums = try await withThrowingTaskGroup(of: [Int].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for step in 0..<writesPerWriter {
                        try await dbPool.write { db throws in
                            let from = (writer + step) % 10 + 1, to = (writer + step + 3) % 10 + 1
                            try db.execute(sql: "UPDATE account SET balance = balance - 1 WHERE id = ?", arguments: [from])
                            try db.execute(sql: "UPDATE account SET balance = balance + 1 WHERE id = ?", arguments: [to])
                            try db.execute(sql: "INSERT INTO log VALUES (?)", arguments: [writer * 1000 + step])
                        }
                    }
                    return []
                }
            }
            for _ in 0..<readers {
                group.addTask {
                    var seen: [Int] = []
                    for _ in 0..<25 {
                        seen.append(try await dbPool.read { db in try Int.fetchOne(db, sql: "SELECT sum(balance) FROM account") ?? -1 })
                    }
                    return seen
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        // Every snapshot sees the invariant; every write is present.
        #expect(sums.count == readers * 25)
        #expect(sums.allSatisfy { $0 == 1000 })
        let logged = try await dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM log") }
        #expect(logged == writers * writesPerWriter)
    }

    @Test func twoPoolsOnOneFileWaitForEachOther() async throws {
        let directory = try TemporaryDirectory()
        let first = try DatabasePool(path: directory.path())
        let second = try DatabasePool(path: directory.path())
        try await first.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pool in [first, second] {
                group.addTask {
                    for value in 0..<50 {
                        try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try await second.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        #expect(count == 100)
    }

    @Test func readInsideWriteUsesAReaderAndSeesCommittedState() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER)") }
        let countFromReader = try dbPool.write { db throws in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        }
        #expect(countFromReader == 0)
        // Nested writes are refused.
        #expect(throws: DatabaseError.self) { try dbPool.write { _ in try dbPool.write { _ in 1 } } }
    }

    @Test func closedPoolThrows() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        dbPool.close()
        #expect(throws: DatabaseError.self) { try dbPool.read { _ in 1 } }
        #expect(throws: DatabaseError.self) { try dbPool.write { _ in 1 } }
    }
}
