// Tests of WAL checkpoints (Database.checkpoint) and of a DatabasePool's checkpoint policy.

import Foundation
import Quarry
import Testing

private func walSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? -1
}

private func makePool(in directory: TemporaryDirectory, configuration: Configuration = Configuration()) throws -> DatabasePool {
    let dbPool = try DatabasePool(path: directory.path(), configuration: configuration)
    try dbPool.write { db throws in
        try db.execute(sql: "CREATE TABLE t (v TEXT)")
        for _ in 0..<50 { try db.execute(sql: "INSERT INTO t VALUES (randomblob(1000))") }
    }
    return dbPool
}

@Suite struct CheckpointTests {
    @Test(arguments: CheckpointMode.allCases)
    func everyModeCopiesTheWholeWALWhenNothingReads(mode: CheckpointMode) throws {
        let directory = try TemporaryDirectory()
        let dbPool = try makePool(in: directory)
        let result = try dbPool.writeWithoutTransaction { db in try db.checkpoint(mode) }
        if mode == .truncate {
            #expect(result.walFrameCount == 0 && result.checkpointedFrameCount == 0)
            #expect(walSize(dbPool.path) == 0)
        } else {
            #expect(result.walFrameCount > 10)
            #expect(result.checkpointedFrameCount == result.walFrameCount)
            #expect(walSize(dbPool.path) > 0)
        }
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 50)
    }

    @Test func aPassiveCheckpointDoesNotCopyFramesAReaderStillNeeds() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try makePool(in: directory)
        try dbPool.writeWithoutTransaction { db throws in _ = try db.checkpoint(.truncate) }
        try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('a')") }
        try withOldSnapshot(of: dbPool) {
            try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('b')") }
            let passive = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            #expect(passive.walFrameCount > passive.checkpointedFrameCount)
        }
        let truncate = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        #expect(truncate.walFrameCount == 0)
        #expect(walSize(dbPool.path) == 0)
    }

    @Test func aTruncateCheckpointThrowsBusyWhenAReaderHoldsAnOldSnapshot() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.busyTimeout = .milliseconds(50)
        let dbPool = try makePool(in: directory, configuration: configuration)
        try withOldSnapshot(of: dbPool) {
            try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('a')") }
            let error = try #require(throws: DatabaseError.self) {
                try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            }
            #expect(error.resultCode.primaryResultCode == .SQLITE_BUSY)
        }
    }

    @Test func checkpointInsideATransactionThrows() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try makePool(in: directory)
        let error = try #require(throws: DatabaseError.self) {
            try dbPool.write { db in try db.checkpoint() }
        }
        #expect(error.message.contains("inside a transaction"))
    }

    @Test func outsideWALModeBothCountsAreMinusOne() throws {
        let dbQueue = try DatabaseQueue()
        let result = try dbQueue.writeWithoutTransaction { db in try db.checkpoint(.full) }
        #expect(result.walFrameCount == -1 && result.checkpointedFrameCount == -1)
    }

    @Test func anUnknownSchemaThrows() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try makePool(in: directory)
        #expect(throws: DatabaseError.self) {
            try dbPool.writeWithoutTransaction { db in try db.checkpoint(.passive, on: "nope") }
        }
    }

    @Test func theTruncatePolicyEmptiesTheWALAfterAWrite() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.checkpointPolicy = .truncate(every: .zero)
        let dbPool = try makePool(in: directory, configuration: configuration)
        try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('a')") }
        #expect(walSize(dbPool.path) == 0)
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 51)
    }

    @Test func theDefaultPolicyLeavesTheWALToSQLite() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try makePool(in: directory)
        try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('a')") }
        #expect(walSize(dbPool.path) > 0)
        #expect(Configuration().checkpointPolicy == .sqliteDefault)
    }

    @Test func theTruncatePolicyGivesUpQuicklyWhileAReaderHoldsAnOldSnapshot() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.checkpointPolicy = .truncate(every: .zero, maximumReaderWait: .milliseconds(20))
        let dbPool = try makePool(in: directory, configuration: configuration)
        try withOldSnapshot(of: dbPool) {
            let start = ContinuousClock.now
            try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('a')") }
            // The write succeeded; the checkpoint behind it did not wait for
            // the busy timeout (5 s), and could not truncate. (4 s leaves room
            // for a loaded machine under the sanitizers.)
            #expect(ContinuousClock.now - start < .seconds(4))
            #expect(walSize(dbPool.path) > 0)
        }
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 51)
        try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('b')") }
        #expect(walSize(dbPool.path) == 0)
    }
}

/// Runs `body` while a read on another thread holds a snapshot of the pool
/// taken before `body` starts.
private func withOldSnapshot(of dbPool: DatabasePool, _ body: () throws -> Void) throws {
    let readerInside = DispatchSemaphore(value: 0)
    let readerMayEnd = DispatchSemaphore(value: 0)
    let readerDone = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        _ = try? dbPool.read { db in
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM t")
            readerInside.signal()
            readerMayEnd.wait()
        }
        readerDone.signal()
    }
    readerInside.wait()
    defer {
        readerMayEnd.signal()
        readerDone.wait()
    }
    try body()
}
