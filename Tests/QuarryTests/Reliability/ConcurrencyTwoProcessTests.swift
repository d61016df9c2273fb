// Two DatabasePools in two processes on one file: the process helper
// (`QuarryProcessHelper concurrent-writer`) and the test process make bank
// transfers at the same time; all of both are there afterwards, every read
// of either side kept the total, and no SQLITE_BUSY reached either side.

import Foundation
import Quarry
import Testing

@Suite struct ConcurrencyTwoProcessTests {
    static let transfers = ProcessInfo.processInfo.environment["QUARRY_LONG_TESTS"] == "1" ? 2_000 : 200

    @Test func twoProcessesWriteTheSameFileWithoutBusyErrors() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let dbPool = try DatabasePool(path: path)
        try Bank.create(in: dbPool)

        let helper = try ConcurrentWriterProcess(arguments: ["concurrent-writer", path, "\(Self.transfers)"])
        defer { helper.stop() }

        // The test's side runs on a thread of its own, started at once with
        // blocking calls: under the sanitizers on 2 cores, the suite's other
        // tests can hold Swift's cooperative threads for a minute, and a task
        // would then start writing only after the helper had given up waiting
        // for it (CI saw that: peer-seen=no, one switch of commit order).
        let log = StressLog()
        let side = StartedThread { () -> (helperStarted: Bool, elapsed: Duration) in
            // Start once the helper has written (its first half of transfers
            // is under way; it waits for one of ours before its second half).
            let helperStarted = Self.waitForTransfer(in: dbPool, notFrom: "test", helper: helper, log: log)
            var picker = TransferPicker(seed: 99)
            let started = ContinuousClock.now
            for step in 0..<Self.transfers {
                let (from, to, amount) = picker.pick()
                do {
                    try dbPool.write { db in
                        try Bank.transfer(db, from: from, to: to, amount: amount, origin: "test", style: step)
                    }
                    log.add("transfers")
                    if step % 4 == 0 {
                        ConcurrencyStressTests.blockingReadLoop(
                            dbPool, reads: 1, bound: LoopBound(iterations: 1, seconds: 60), log: log, name: "test read")
                    }
                } catch {
                    log.record(error, during: "test transfer \(step)")
                    break
                }
            }
            return (helperStarted, ContinuousClock.now - started)
        }
        let (helperStarted, elapsed) = await side.value
        #expect(helperStarted, "the helper wrote nothing: \(helper.standardError())")
        let status = await helper.waitForExit()
        let output = helper.standardOutput()

        #expect(status == 0, "helper exit status \(status): \(helper.standardError())")
        #expect(log.failures.isEmpty, "\(log.failures)")
        #expect(output.contains("concurrent-writer: transfers=\(Self.transfers) "), "helper output: \(output)")
        #expect(output.contains("total=\(Bank.total) "), "helper output: \(output)")
        #expect(output.contains("peer-seen=yes"), "helper output: \(output)")

        // Both processes' transfers are all there, and the money is all there.
        let (byOrigin, sum, order) = try await dbPool.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT origin, count(*) AS n FROM transfer GROUP BY origin ORDER BY origin")
                    .map { row -> String in "\(try row["origin"] as String)=\(try row["n"] as Int)" },
                try Bank.sumInSQL(db),
                try String.fetchAll(db, sql: "SELECT origin FROM transfer ORDER BY id")
            )
        }
        #expect(byOrigin == ["helper=\(Self.transfers)", "test=\(Self.transfers)"])
        #expect(sum == Bank.total)
        // The commits of the two processes interleave: helper first, then the
        // test, and the helper again for its second half at least.
        let switches = zip(order, order.dropFirst()).filter { $0 != $1 }.count
        #expect(switches >= 2, "commit order switched origin \(switches) times")
        print("""
            ConcurrencyTwoProcess: \(Self.transfers) transfers in each process, \
            \(log.count("reads")) checked reads in the test process, \
            commit order switched process \(switches) times, \(formatSeconds(elapsed)) s; helper: \(output.trimmingCharacters(in: .whitespacesAndNewlines))
            """)
    }

    @Test func helperRefusesBadArguments() async throws {
        let directory = try TemporaryDirectory()
        let missing = try ConcurrentWriterProcess(arguments: ["concurrent-writer", directory.path("missing.sqlite"), "3"])
        defer { missing.stop() }
        #expect(await missing.waitForExit() == 1)
        #expect(missing.standardError().contains("no database at"))

        let usage = try ConcurrentWriterProcess(arguments: ["concurrent-writer", directory.path()])
        defer { usage.stop() }
        #expect(await usage.waitForExit() == 64)
        #expect(usage.standardError().contains("usage:"))
    }

    /// Polls, blocking its thread, until a transfer not from `origin` is
    /// logged: true when one is; false if the helper exits first, or after
    /// 120 s (a hang guard).
    static func waitForTransfer(in dbPool: DatabasePool, notFrom origin: String, helper: ConcurrentWriterProcess, log: StressLog) -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while helper.isRunning && ContinuousClock.now < deadline {
            do {
                let count = try dbPool.read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM transfer WHERE origin <> ?", arguments: [origin]) ?? 0
                }
                if count > 0 { return true }
            } catch {
                log.record(error, during: "waiting for the helper's first transfer")
                return false
            }
            usleep(2_000)
        }
        return false
    }
}

/// The process helper, started as a child process with its output captured.
/// (`Process` and `Pipe` are not marked Sendable; this wrapper only calls
/// their thread-safe members: isRunning, terminate, waitUntilExit, reads of a pipe.)
final class ConcurrentWriterProcess: @unchecked Sendable {
    private let process: Process
    private let output: Pipe
    private let errors: Pipe

    /// Starts `QuarryProcessHelper` from the directory of the test executable,
    /// where `swift test` builds it.
    init(arguments: [String]) throws {
        let testExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let helper = testExecutable.deletingLastPathComponent().appendingPathComponent("QuarryProcessHelper")
        guard FileManager.default.isExecutableFile(atPath: helper.path) else {
            throw ConcurrencyTestError(
                message: "QuarryProcessHelper is not at \(helper.path) (next to the test executable); build it with `swift build --build-tests`")
        }
        process = Process()
        process.executableURL = helper
        process.arguments = arguments
        output = Pipe()
        errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// Waits for the helper to exit, without blocking the calling task's
    /// thread, and returns its exit status.
    func waitForExit() async -> Int32 {
        let process = self.process
        return await onNewThread {
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Kills the helper if it still runs, and reaps it.
    func stop() {
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
    }

    /// What the helper printed, once it has exited.
    func standardOutput() -> String { Self.read(output) }

    /// What the helper printed on standard error, once it has exited.
    func standardError() -> String { Self.read(errors) }

    private static func read(_ pipe: Pipe) -> String {
        String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
