// Stress tests with bounded time: several writers doing bank transfers while
// many async readers and a few blocking readers on threads of their own check
// that every snapshot keeps the total, on a DatabaseQueue and on a DatabasePool.
// Every error fails the test with its description (SQLITE_BUSY and
// SQLITE_LOCKED are named as such). QUARRY_LONG_TESTS=1 runs 20 times longer.

import Dispatch
import Foundation
import Quarry
import Testing

@Suite struct ConcurrencyStressTests {
    /// Each task stops after its iteration count or after this many seconds
    /// (having done at least 5 iterations).
    static let timeCap = ProcessInfo.processInfo.environment["QUARRY_LONG_TESTS"] == "1" ? 30.0 : 3.0
    static let scale = ProcessInfo.processInfo.environment["QUARRY_LONG_TESTS"] == "1" ? 20 : 1

    @Test(arguments: WriterKind.allCases)
    func bankTransfersKeepTheTotalInEverySnapshot(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.maximumReaderCount = 4
        let writer = try kind.make(in: directory, configuration: configuration)
        try Bank.create(in: writer)

        let writerTasks = 4, asyncReaders = 48, threadReaders = 3
        let transfersPerWriter = 150 * Self.scale, readsPerReader = 25 * Self.scale
        let bound = LoopBound(minimum: 5, iterations: .max, seconds: Self.timeCap)
        let log = StressLog()
        let started = ContinuousClock.now

        await withTaskGroup(of: Void.self) { group in
            for writerIndex in 0..<writerTasks {
                group.addTask {
                    var picker = TransferPicker(seed: writerIndex + 1)
                    var step = 0
                    while step < transfersPerWriter && bound.allows(step) {
                        let (from, to, amount) = picker.pick()
                        let style = step + writerIndex
                        do {
                            try await writer.write { db in
                                try Bank.transfer(
                                    db, from: from, to: to, amount: amount, origin: "writer \(writerIndex)", style: style)
                            }
                            log.add("transfers")
                        } catch {
                            log.record(error, during: "transfer \(step) of writer \(writerIndex)")
                            return
                        }
                        step += 1
                    }
                }
            }
            for readerIndex in 0..<asyncReaders {
                group.addTask {
                    await Self.readLoop(writer, reads: readsPerReader, bound: bound, log: log, name: "async reader \(readerIndex)")
                }
            }
            for readerIndex in 0..<threadReaders {
                group.addTask {
                    // Blocking reads, from threads rather than tasks.
                    await onNewThread {
                        Self.blockingReadLoop(writer, reads: readsPerReader, bound: bound, log: log, name: "thread reader \(readerIndex)")
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - started

        #expect(log.failures.isEmpty, "\(log.failures.count) failures, first: \(log.failures.prefix(5))")
        // Every transfer that returned is in the log, and none that did not.
        let (logged, sum, records) = try await writer.read { db in
            (try BankTransfer.fetchCount(db), try Bank.sumInSQL(db), try BankAccount.fetchAll(db))
        }
        #expect(logged == log.count("transfers"))
        #expect(sum == Bank.total)
        #expect(records.count == Bank.accountCount)
        // The transfers really moved money (a test that moved nothing would prove nothing).
        #expect(log.count("transfers") > 0)
        #expect(log.count("reads") > 0)
        #expect(records.contains { $0.balance != Bank.initialBalance })
        print("""
            ConcurrencyStress[\(kind.rawValue)]: \(log.count("transfers")) transfers by \(writerTasks) writers, \
            \(log.count("reads")) reads (\(asyncReaders) tasks + \(threadReaders) threads; \
            \(log.observations.filter { $0 < logged }.count) of them before the last transfer had committed) \
            in \(formatSeconds(elapsed)) s
            """)
    }

    /// Reads in a loop: each read sums the balances twice, in SQL and from the
    /// records, and both must equal the total; it counts the transfers before
    /// and after, and both counts must match (the snapshot does not move under
    /// the read). The transfer count never goes back from one read to the next.
    static func readLoop(_ reader: any DatabaseReader, reads: Int, bound: LoopBound, log: StressLog, name: String) async {
        var lastLogged = 0
        var iteration = 0
        while iteration < reads && bound.allows(iteration) {
            do {
                let snapshot = try await reader.read { db in try ReadSnapshot(db) }
                check(snapshot, lastLogged: &lastLogged, log: log, name: name)
            } catch {
                log.record(error, during: "\(name), read \(iteration)")
                return
            }
            iteration += 1
        }
    }

    /// The blocking variant of ``readLoop(_:reads:bound:log:name:)``.
    static func blockingReadLoop(_ reader: any DatabaseReader, reads: Int, bound: LoopBound, log: StressLog, name: String) {
        var lastLogged = 0
        var iteration = 0
        while iteration < reads && bound.allows(iteration) {
            do {
                let snapshot = try reader.read { db in try ReadSnapshot(db) }
                check(snapshot, lastLogged: &lastLogged, log: log, name: name)
            } catch {
                log.record(error, during: "\(name), read \(iteration)")
                return
            }
            iteration += 1
        }
    }

    private static func check(_ snapshot: ReadSnapshot, lastLogged: inout Int, log: StressLog, name: String) {
        log.add("reads")
        if snapshot.sumInSQL != Bank.total || snapshot.sumOfRecords != Bank.total {
            log.fail("\(name): sums \(snapshot.sumInSQL) and \(snapshot.sumOfRecords) in one read, expected \(Bank.total) twice")
        }
        if snapshot.transfersAtStart != snapshot.transfersAtEnd {
            log.fail("\(name): the read saw \(snapshot.transfersAtStart) transfers, then \(snapshot.transfersAtEnd): its snapshot moved")
        }
        if snapshot.transfersAtStart < lastLogged {
            log.fail("\(name): a later read saw \(snapshot.transfersAtStart) transfers after an earlier one saw \(lastLogged)")
        }
        log.observe(snapshot.transfersAtStart)
        lastLogged = snapshot.transfersAtStart
    }
}

/// What one read sees: the transfer count at its start and at its end (equal
/// when the snapshot does not move while writers commit), and the total of
/// the balances computed twice in between, by SQLite and from the records.
struct ReadSnapshot: Sendable {
    let transfersAtStart: Int
    let sumInSQL: Int
    let sumOfRecords: Int
    let transfersAtEnd: Int

    init(_ db: Database) throws {
        transfersAtStart = try BankTransfer.fetchCount(db)
        sumInSQL = try Bank.sumInSQL(db)
        sumOfRecords = try Bank.sumOfRecords(db)
        transfersAtEnd = try BankTransfer.fetchCount(db)
    }
}
