// Tests of WAL checkpoints (Database.checkpoint) and of a DatabasePool's checkpoint policy.

import Foundation
import MetricsTestKit
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
        let metrics = TestMetrics()
        var configuration = Configuration()
        configuration.busyTimeout = .milliseconds(50)
        configuration.metricsFactory = metrics
        let dbPool = try makePool(in: directory, configuration: configuration)
        try withOldSnapshot(of: dbPool) {
            try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('a')") }
            let error = try #require(throws: DatabaseError.self) {
                try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            }
            #expect(error.resultCode.primaryResultCode == .SQLITE_BUSY)
        }
        // It waited for the reader the whole configured busy timeout: the
        // busy handler slept its 1 ms 50 times (counted sleeps, not elapsed
        // time, which a loaded machine stretches), and gave up.
        let sleeps = try metrics.expectCounter("quarry.busy.sleeps", [("role", "writer")])
        #expect(sleeps.totalValue == 50)
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
        let metrics = TestMetrics()
        var configuration = Configuration()
        configuration.checkpointPolicy = .truncate(every: .zero, maximumReaderWait: .milliseconds(20))
        configuration.metricsFactory = metrics
        let dbPool = try makePool(in: directory, configuration: configuration)
        let sleeps = try metrics.expectCounter("quarry.busy.sleeps", [("role", "writer")])
        #expect(sleeps.totalValue == 0)
        try withOldSnapshot(of: dbPool) {
            try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('a')") }
            // The write succeeded; the checkpoint behind it waited for the
            // reader `maximumReaderWait` (20 sleeps of 1 ms in the busy
            // handler), not the busy timeout (5 s, 5,000 sleeps), and could
            // not truncate. Counted sleeps, not elapsed time: no load on the
            // machine changes them.
            #expect(sleeps.totalValue == 20)
            #expect(walSize(dbPool.path) > 0)
        }
        #expect(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 51)
        try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES ('b')") }
        #expect(walSize(dbPool.path) == 0)
        // With the reader gone, the checkpoint did not wait.
        #expect(sleeps.totalValue == 20)
    }
}

/// Runs `body` while a read on another thread holds a snapshot of the pool
/// taken before `body` starts. Throws the read's error if it failed, and
/// fails the test if the read did not start within 60 s.
private func withOldSnapshot(of dbPool: DatabasePool, _ body: () throws -> Void) throws {
    let readerInside = DispatchSemaphore(value: 0)
    let readerMayEnd = DispatchSemaphore(value: 0)
    let readerDone = DispatchSemaphore(value: 0)
    let readError = UncheckedBox<(any Error)?>(nil)
    Thread.detachNewThread {
        do {
            try dbPool.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM t")
                readerInside.signal()
                readerMayEnd.wait()
            }
        } catch {
            // Written before readerInside or readerDone is signalled, read after.
            readError.value = error
            readerInside.signal()
        }
        readerDone.signal()
    }
    guard readerInside.wait(timeout: .now() + 60) == .success else {
        readerMayEnd.signal()
        Issue.record("the read holding the old snapshot did not start within 60 s")
        return
    }
    let bodyResult = Result {
        if let error = readError.value { throw error }
        try body()
    }
    readerMayEnd.signal()
    readerDone.wait()
    try bodyResult.get()
    // The read ended without an error (its end included).
    if let error = readError.value { throw error }
}
