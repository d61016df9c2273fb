// DatabasePool isolation under load: reads complete while a write transaction
// stays open and see only committed data; writes commit while reads hold old
// snapshots. Deterministic: each side waits on the other with a gate, so a
// read that blocked on the writer (or the reverse) would show as a timed-out
// gate, not as a slow test.

import Dispatch
import Foundation
import Quarry
import Testing

@Suite struct ConcurrencyIsolationTests {
    /// More reads than reader connections, async and blocking, all started and
    /// finished while the writer holds an open transaction with uncommitted
    /// transfers. The readers are opened during that transaction too (the pool
    /// has not read before), so opening a connection does not wait for the writer either.
    @Test func manyReadsCompleteWhileAWriteTransactionIsOpen() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.maximumReaderCount = 3
        let dbPool = try DatabasePool(path: directory.path(), configuration: configuration)
        try Bank.create(in: dbPool)

        let writeIsOpen = ThreadGate()
        let finishWrite = ThreadGate()
        let uncommittedTransfers = 5
        let writeTask = Task {
            try await dbPool.write { db -> Bool in
                var picker = TransferPicker(seed: 7)
                for step in 0..<uncommittedTransfers {
                    let (from, to, amount) = picker.pick()
                    try Bank.transfer(db, from: from, to: to, amount: amount + 1_000, origin: "open write", style: step)
                }
                writeIsOpen.open()
                // Commits only when the test says so (or after the safety timeout).
                return finishWrite.wait()
            }
        }
        #expect(await onNewThread { writeIsOpen.wait() })

        let asyncReads = 24, blockingReads = 2
        let log = StressLog()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<asyncReads {
                group.addTask {
                    do {
                        let (sum, logged, balances) = try await dbPool.read { db in
                            (try Bank.sumInSQL(db), try BankTransfer.fetchCount(db), try BankAccount.fetchAll(db).map(\.balance))
                        }
                        Self.checkCommittedState(sum: sum, logged: logged, balances: balances, log: log, name: "async read \(index)")
                    } catch {
                        log.record(error, during: "async read \(index)")
                    }
                }
            }
            for index in 0..<blockingReads {
                group.addTask {
                    await onNewThread {
                        do {
                            let (sum, logged, balances) = try dbPool.read { db in
                                (try Bank.sumInSQL(db), try BankTransfer.fetchCount(db), try BankAccount.fetchAll(db).map(\.balance))
                            }
                            Self.checkCommittedState(sum: sum, logged: logged, balances: balances, log: log, name: "blocking read \(index)")
                        } catch {
                            log.record(error, during: "blocking read \(index)")
                        }
                    }
                }
            }
        }
        // All reads are done; only now may the write commit.
        finishWrite.open()
        let releasedByTheTest = try await writeTask.value

        #expect(releasedByTheTest, "the write gave up waiting: the reads did not finish while it was open")
        #expect(log.failures.isEmpty, "\(log.failures)")
        #expect(log.count("reads") == asyncReads + blockingReads)
        let (sum, logged) = try await dbPool.read { db in (try Bank.sumInSQL(db), try BankTransfer.fetchCount(db)) }
        #expect(sum == Bank.total)
        #expect(logged == uncommittedTransfers)
    }

    /// Blocking readers hold their snapshot while the pool commits many
    /// writes; the writes do not wait for them, and the readers keep seeing
    /// the state of when they started, until they end.
    @Test func writesCommitWhileReadsHoldOldSnapshots() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.maximumReaderCount = 3
        let dbPool = try DatabasePool(path: directory.path(), configuration: configuration)
        try Bank.create(in: dbPool)

        let readerCount = 3
        let readersAreIn = DispatchSemaphore(value: 0)
        let finishReads = ThreadGate()
        // Threads started here, not tasks: a task may wait long for a
        // cooperative thread when the suite runs in parallel (see StartedThread).
        let readers = (0..<readerCount).map { _ in
            StartedThread { () -> Result<[Int], any Error> in
                Result {
                    try dbPool.read { db -> [Int] in
                        let before = [try BankTransfer.fetchCount(db), try Bank.sumInSQL(db)]
                        readersAreIn.signal()
                        let released = finishReads.wait()
                        let after = [try BankTransfer.fetchCount(db), try Bank.sumOfRecords(db)]
                        return before + after + [released ? 1 : 0]
                    }
                }
            }
        }
        let allIn = await onNewThread {
            (0..<readerCount).allSatisfy { _ in readersAreIn.wait(timeout: .now() + 120) == .success }
        }
        #expect(allIn)

        // Every reader connection is busy; the writes go on regardless.
        let writes = 30
        var picker = TransferPicker(seed: 11)
        for step in 0..<writes {
            let (from, to, amount) = picker.pick()
            try await dbPool.write { db in
                try Bank.transfer(db, from: from, to: to, amount: amount, origin: "writer", style: step)
            }
        }
        let committed = try await dbPool.writeWithoutTransaction { db in try BankTransfer.fetchCount(db) }
        finishReads.open(count: readerCount)

        #expect(committed == writes)
        for reader in readers {
            let seen = try await reader.value.get()
            // Before and after the writes: no transfer, the full total, and the
            // reader was still inside its read when the writes were done.
            #expect(seen == [0, Bank.total, 0, Bank.total, 1])
        }
        let (sum, logged) = try await dbPool.read { db in (try Bank.sumInSQL(db), try BankTransfer.fetchCount(db)) }
        #expect(sum == Bank.total)
        #expect(logged == writes)
    }

    /// Async reads that block inside their closure (here: on a gate) on every
    /// reader connection, more of them than the machine has cores, are all
    /// running at once, and an async write still runs while they block.
    /// Async work runs on each connection's own serial queue. (On the shared
    /// global queue used before, the reads beyond the core count and the
    /// write waited for libdispatch to add threads: this test took 3 s there,
    /// 0.01 s now, on 2 cores.)
    ///
    /// The timeouts are long (120 s): the test looks for a deadlock, not for
    /// speed. In the full parallel suite on 2 cores, long synchronous tests
    /// can hold the cooperative pool's threads for over 10 s before the
    /// reader tasks even start, which made a 10 s limit fail now and then;
    /// under AddressSanitizer in CI, a task waited over 30 s.
    @Test func asyncWriteRunsWhileAsyncReadsBlockEveryReader() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        let readerCount = ProcessInfo.processInfo.activeProcessorCount + 2
        configuration.maximumReaderCount = readerCount
        let dbPool = try DatabasePool(path: directory.path(), configuration: configuration)
        try Bank.create(in: dbPool)

        let readersAreIn = DispatchSemaphore(value: 0)
        let finishReads = ThreadGate()
        let readers = (0..<readerCount).map { _ in
            Task {
                try await dbPool.read { db -> Bool in
                    _ = try BankTransfer.fetchCount(db)
                    readersAreIn.signal()
                    return finishReads.wait()
                }
            }
        }
        let allIn = await onNewThread {
            (0..<readerCount).allSatisfy { _ in readersAreIn.wait(timeout: .now() + 120) == .success }
        }
        #expect(allIn, "not every async read got to run at once")

        // Every reader connection is blocked; the write must still run now.
        var picker = TransferPicker(seed: 5)
        let (from, to, amount) = picker.pick()
        try await dbPool.write { db in
            try Bank.transfer(db, from: from, to: to, amount: amount, origin: "writer", style: 0)
        }
        finishReads.open(count: readerCount)

        for reader in readers {
            #expect(try await reader.value, "a read was released by its timeout: the write waited for the reads")
        }
        #expect(try await dbPool.read { db in try BankTransfer.fetchCount(db) } == 1)
    }

    /// What a read must see while the write is open: the initial accounts,
    /// untouched, and no transfer.
    private static func checkCommittedState(sum: Int, logged: Int, balances: [Int], log: StressLog, name: String) {
        log.add("reads")
        if sum != Bank.total || logged != 0 || balances != Array(repeating: Bank.initialBalance, count: Bank.accountCount) {
            log.fail("\(name) saw uncommitted data: sum \(sum), \(logged) transfers, balances \(balances)")
        }
    }
}
