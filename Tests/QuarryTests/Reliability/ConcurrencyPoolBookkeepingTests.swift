// The bookkeeping of ConnectionPool under cancellation: whatever the order of
// cancellations, releases and acquisitions, no waiter and no remembered
// cancellation is left behind (they would accumulate for the life of a service).

@testable import Quarry
import Foundation
import Testing

@Suite struct ConcurrencyPoolBookkeepingTests {
    /// A waiter is handed the connection, and its task is cancelled after the
    /// handover but before it has run again: the cancellation comes too late
    /// to matter, and must not be remembered forever. The waiter runs on an
    /// executor that runs its jobs only when told, so the order is exact.
    @Test func cancellationAfterTheHandoverIsNotRemembered() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let pool = ConnectionPool(capacity: 1, description: "test pool") {
            try Database(path: path, configuration: Configuration())
        }
        let holding = ThreadGate(), release = ThreadGate()
        let holder = Task {
            await onNewThread { () -> Bool in
                (try? pool.withConnection { _ in holding.open(); return release.wait() }) ?? false
            }
        }
        #expect(await onNewThread { holding.wait() })

        let executor = ManualTaskExecutor()
        let waiter = Task(executorPreference: executor) { try await pool.withConnection { _ in 1 } }
        // Run the waiter until it waits for the connection.
        let registered = await onNewThread { () -> Bool in
            for _ in 0..<1_000 {
                executor.runPendingJobs()
                if pool.waiterCount == 1 { return true }
                usleep(1_000)
            }
            return false
        }
        #expect(registered)

        // The holder hands the connection to the waiter, whose task is now
        // ready to run but does not run yet; then the task is cancelled.
        release.open()
        #expect(await holder.value)
        waiter.cancel()

        // Run the waiter to its end: it was served the connection, but its
        // task is cancelled before its body starts, so the body does not run
        // (see `Database.observingCancellation`) and the connection goes back.
        let pumping = Task {
            await onNewThread {
                for _ in 0..<10_000 where !executor.isFinished {
                    executor.runPendingJobs()
                    usleep(500)
                }
            }
        }
        let result = await waiter.result
        executor.finish()
        await pumping.value
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await pool.withConnection { _ in 2 } == 2)
        #expect(pool.waiterCount == 0)
        #expect(pool.rememberedCancellationCount == 0)
    }

    /// Tasks cancelled before they ask, while they wait, and while they are
    /// served: nothing is left in the pool's books afterwards.
    @Test func mixedCancellationsLeaveNothingBehind() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let pool = ConnectionPool(capacity: 2, description: "test pool") {
            try Database(path: path, configuration: Configuration())
        }
        let bound = LoopBound(minimum: 5, iterations: 40, seconds: 3)
        var round = 0
        var outcomes: [String: Int] = [:]
        while bound.allows(round) {
            let tasks = (0..<8).map { index in
                Task { try await pool.withConnection { _ in index } }
            }
            for (index, task) in tasks.enumerated() where (index + round) % 2 == 0 {
                task.cancel()
            }
            for task in tasks {
                do {
                    _ = try await task.value
                    outcomes["served", default: 0] += 1
                } catch is CancellationError {
                    outcomes["cancelled", default: 0] += 1
                }
            }
            round += 1
        }
        #expect(outcomes.values.reduce(0, +) == round * 8)
        #expect(outcomes["served", default: 0] >= round * 4, "the tasks that were not cancelled are all served")
        print("ConcurrencyPoolBookkeeping: \(round) rounds of 8 tasks, \(outcomes)")
        #expect(pool.waiterCount == 0)
        #expect(pool.rememberedCancellationCount == 0)
        // Both connections are free: two accesses can hold them at once.
        let both = ThreadGate()
        let first = Task { await onNewThread { (try? pool.withConnection { _ in both.wait() }) ?? false } }
        let second = try await pool.withConnection { _ in both.open(); return true }
        #expect(second)
        #expect(await first.value)
    }
}

/// A task executor that runs its jobs only when ``runPendingJobs()`` is called,
/// to put the steps of a task in an exact order with other events.
final class ManualTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [UnownedJob] = []
    private var finished = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.withLock { jobs.append(job) }
    }

    /// Runs the jobs enqueued so far, on the calling thread.
    func runPendingJobs() {
        let pending = lock.withLock {
            defer { jobs.removeAll() }
            return jobs
        }
        for job in pending {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Tells the pumping loop to stop.
    func finish() { lock.withLock { finished = true } }

    var isFinished: Bool { lock.withLock { finished } }
}
