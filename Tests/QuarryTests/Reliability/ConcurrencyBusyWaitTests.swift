// Waiting for a lock held by another pool (or process): a writer that commits
// in a tight loop frees the lock only for an instant between transactions, and
// a writer of another pool must still get its turn within its busy timeout
// rather than fail with SQLITE_BUSY.

import Foundation
import Quarry
import Testing

@Suite struct ConcurrencyBusyWaitTests {
    /// The hog is the process helper, making transfers as fast as it can in
    /// another process; this process writes through a pool whose busy timeout
    /// is short (0.5 s), so that a waiter that misses its turns fails soon.
    @Test func aWriterOfAnotherProcessGetsItsTurnAgainstATightLoop() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Bank.create(in: try DatabasePool(path: path))
        var configuration = Configuration()
        configuration.busyTimeout = .milliseconds(500)
        let dbPool = try DatabasePool(path: path, configuration: configuration)

        let helperTransfers = ProcessInfo.processInfo.environment["QUARRY_LONG_TESTS"] == "1" ? 10_000 : 800
        let helper = try ConcurrentWriterProcess(arguments: ["concurrent-writer", path, "\(helperTransfers)"])
        defer { helper.stop() }
        // This side runs on a thread of its own with blocking calls, so that
        // it writes while the helper runs even when the suite's other tests
        // hold Swift's cooperative threads (see ConcurrencyTwoProcessTests).
        let log = StressLog()
        let helperStarted = await StartedThread { () -> Bool in
            let helperStarted = ConcurrencyTwoProcessTests.waitForTransfer(in: dbPool, notFrom: "test", helper: helper, log: log)
            // Write while the helper runs (its second half waits for our first write).
            var picker = TransferPicker(seed: 5)
            var step = 0
            while helper.isRunning && step < 100_000 {
                let (from, to, amount) = picker.pick()
                do {
                    try dbPool.write { db in
                        try Bank.transfer(db, from: from, to: to, amount: amount, origin: "test", style: step)
                    }
                    log.add("transfers")
                } catch {
                    log.record(error, during: "test transfer \(step)")
                    break
                }
                step += 1
            }
            return helperStarted
        }.value
        #expect(helperStarted, "the helper wrote nothing: \(helper.standardError())")
        if !log.failures.isEmpty {
            helper.stop()  // instead of letting it wait for our writes
        }
        let status = await helper.waitForExit()

        #expect(status == 0, "helper exit status \(status): \(helper.standardError())")
        #expect(log.failures.isEmpty, "\(log.failures)")
        let (byOrigin, sum) = try await dbPool.read { db in
            (try Int.fetchAll(db, sql: "SELECT count(*) FROM transfer GROUP BY origin ORDER BY origin"), try Bank.sumInSQL(db))
        }
        #expect(byOrigin == [helperTransfers, log.count("transfers")])
        #expect(sum == Bank.total)
        print("ConcurrencyBusyWait: \(log.count("transfers")) transfers of the test process while the helper made \(helperTransfers)")
    }

    /// The timeout still ends the wait when the lock is never freed: SQLITE_BUSY
    /// after at least the timeout (the handler counts its sleeps), and at
    /// once without a timeout. The lock holder then commits normally.
    @Test(arguments: [200, nil] as [Int?])
    func aLockHeldThroughoutEndsTheWaitWithBusy(timeoutMilliseconds: Int?) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let holderPool = try DatabasePool(path: path)
        try await holderPool.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER)") }
        var configuration = Configuration()
        configuration.busyTimeout = timeoutMilliseconds.map { .milliseconds($0) }
        let waiterPool = try DatabasePool(path: path, configuration: configuration)

        let holder = try await ConnectionHolder.write(holderPool)
        let started = ContinuousClock.now
        let error = await #expect(throws: DatabaseError.self) {
            try await waiterPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        let waited = ContinuousClock.now - started
        #expect(error?.resultCode == .SQLITE_BUSY)
        if let timeoutMilliseconds {
            #expect(waited >= .milliseconds(timeoutMilliseconds), "gave up after \(formatSeconds(waited)) s")
        }
        #expect(holder.isStillHolding)
        #expect(try await holder.release())
        // Once the lock is free, the same pool writes.
        try await waiterPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try await waiterPool.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t") } == [2])
    }
}
