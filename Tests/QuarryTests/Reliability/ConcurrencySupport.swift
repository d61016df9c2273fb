// Support for the concurrency tests: the bank schema (accounts whose balances
// always add up to the same total, a log of transfers), bounded loops, and a
// collector of the errors that tasks and threads meet.

import Dispatch
import Foundation
import Quarry
import Testing
import QuarryTestSupport

/// One account of the bank; transfers move money between accounts, so the sum
/// of all balances never changes.
struct BankAccount: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "account"
    var id: Int64
    var balance: Int
}

/// One committed transfer, written in the same transaction as the balances it
/// moved, so that the log counts the transfers that really committed.
struct BankTransfer: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "transfer"
    var id: Int64?
    var origin: String
    var fromID: Int64
    var toID: Int64
    var amount: Int
}

/// The bank the tests share with the process helper (`ConcurrentWriter.swift`
/// uses the same table and column names).
enum Bank {
    static let accountCount = 20
    static let initialBalance = 1_000
    static var total: Int { accountCount * initialBalance }

    /// Creates the tables and the accounts.
    static func create(in writer: some DatabaseWriter) throws {
        try writer.write { db in
            try db.execute(sql: """
                CREATE TABLE account (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
                CREATE TABLE transfer (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    origin TEXT NOT NULL,
                    fromID INTEGER NOT NULL,
                    toID INTEGER NOT NULL,
                    amount INTEGER NOT NULL);
                """)
            for id in 1...accountCount {
                var account = BankAccount(id: Int64(id), balance: initialBalance)
                try account.insert(db)
            }
        }
    }

    /// Moves `amount` from one account to another and logs it. Even `style`s
    /// fetch and update the two records; odd ones use `updateAll` with `+=`.
    static func transfer(_ db: Database, from: Int64, to: Int64, amount: Int, origin: String, style: Int) throws {
        if style % 2 == 0 {
            guard var source = try BankAccount.fetchOne(db, key: from), var target = try BankAccount.fetchOne(db, key: to) else {
                throw DatabaseError(resultCode: .SQLITE_NOTFOUND, message: "account \(from) or \(to) is missing")
            }
            source.balance -= amount
            target.balance += amount
            try source.update(db)
            try target.update(db)
        } else {
            try BankAccount.filter(\.id == from).updateAll(db, \.balance += -amount)
            try BankAccount.filter(\.id == to).updateAll(db, \.balance += amount)
        }
        var log = BankTransfer(id: nil, origin: origin, fromID: from, toID: to, amount: amount)
        try log.insert(db)
    }

    /// The sum of the balances, computed by SQLite.
    static func sumInSQL(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT sum(balance) FROM account") ?? -1
    }

    /// The sum of the balances, computed from the fetched records.
    static func sumOfRecords(_ db: Database) throws -> Int {
        try BankAccount.fetchAll(db).reduce(0) { $0 + $1.balance }
    }
}

/// Two distinct account ids and an amount, from a small seeded generator so
/// that each task draws a different sequence, new in each run and
/// reproducible with the run's seed (`TestSeed`, `QUARRY_TEST_SEED`).
struct TransferPicker {
    private var generator: SeededGenerator

    /// `stream` tells the tasks of a test apart.
    init(seed stream: Int) { generator = SeededGenerator(state: TestSeed.derived("TransferPicker-\(stream)")) }

    private mutating func next() -> UInt64 { generator.next() }

    mutating func pick() -> (from: Int64, to: Int64, amount: Int) {
        let count = UInt64(Bank.accountCount)
        let from = next() % count
        let to = (from + 1 + next() % (count - 1)) % count
        return (Int64(from) + 1, Int64(to) + 1, Int(next() % 50) + 1)
    }
}

/// A loop bound: stop after `iterations`, or when `seconds` have passed since
/// the bound was made, whichever comes first, but never before `minimum`
/// iterations, so that a loop started late on a loaded machine still does
/// some work. Tests assert on what was done, never on how long it took.
struct LoopBound: Sendable {
    let minimum: Int
    let iterations: Int
    let deadline: ContinuousClock.Instant

    init(minimum: Int = 1, iterations: Int, seconds: Double) {
        self.minimum = min(minimum, iterations)
        self.iterations = iterations
        deadline = .now + .milliseconds(Int(seconds * 1000))
    }

    func allows(_ iteration: Int) -> Bool {
        iteration < minimum || (iteration < iterations && ContinuousClock.now < deadline)
    }
}

/// Collects failures seen by concurrent tasks and threads, and counts operations.
///
/// Guarded by an `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`:
/// on Linux, a contended `Mutex` waits and hands over in its slow path, inside
/// the Synchronization library, which is not instrumented, so ThreadSanitizer
/// sees no ordering between two holders and reports a false race.
final class StressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var failureList: [String] = []
    private var counts: [String: Int] = [:]
    private var observed: [Int] = []

    func fail(_ message: String) {
        lock.withLock { failureList.append(message) }
    }

    /// Records an error thrown by a database access, naming SQLITE_BUSY and
    /// SQLITE_LOCKED, which must never reach the caller.
    func record(_ error: any Error, during what: String) {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            fail("\(what): busy/locked error reached the caller: \(error)")
        } else {
            fail("\(what): \(type(of: error)): \(error)")
        }
    }

    func add(_ name: String, _ count: Int = 1) {
        lock.withLock { counts[name, default: 0] += count }
    }

    /// Records a value seen by a read (for the figures a test prints).
    func observe(_ value: Int) {
        lock.withLock { observed.append(value) }
    }

    var observations: [Int] { lock.withLock { observed } }

    var failures: [String] { lock.withLock { failureList } }

    func count(_ name: String) -> Int { lock.withLock { counts[name] ?? 0 } }
}

/// Runs `body` on a new thread of its own and waits for it without blocking
/// the calling task's thread. Blocking database calls go there, so that they
/// never occupy Swift's cooperative threads nor Dispatch's worker threads
/// (which run the bodies of async accesses).
func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// A thread started at once, from the caller's thread, whose result is
/// awaited later.
///
/// Unlike `Task { await onNewThread { … } }`, starting one needs no thread of
/// Swift's cooperative pool: in CI's sanitizer runs (2 cores, the whole suite
/// in parallel), long synchronous tests held both cooperative threads for
/// over 30 s, and a reader task that had not started yet failed a test that
/// waited for the readers to be inside their reads.
final class StartedThread<T: Sendable>: @unchecked Sendable {
    // Written once by the thread before `done` is signalled, read after.
    private var result: T?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> T) {
        Thread.detachNewThread { [self] in
            result = body()
            done.signal()
        }
    }

    /// The body's result, once the thread has returned it.
    var value: T {
        get async {
            await onNewThread { [self] in
                done.wait()
                done.signal()  // later reads of `value` do not wait
                return result!
            }
        }
    }
}

/// How an operation run by ``cancelling(after:_:)`` ended.
enum TimedOutcome<T: Sendable>: Sendable {
    case finished(T)
    case timedOut
}

/// Runs `operation`, and cancels it if it has not finished after `seconds`: a
/// hang becomes a `CancellationError` that fails the test instead of blocking
/// the suite.
func cancelling<T: Sendable>(after seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: TimedOutcome<T>.self) { group in
        group.addTask { .finished(try await operation()) }
        group.addTask {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return .timedOut
        }
        while let outcome = try await group.next() {
            switch outcome {
            case .finished(let value):
                group.cancelAll()
                return value
            case .timedOut:
                group.cancelAll()
            }
        }
        throw CancellationError()
    }
}

/// A one-shot gate that threads can wait on, with a safety timeout so that a
/// broken test fails instead of hanging.
final class ThreadGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func open(count: Int = 1) {
        for _ in 0..<count { semaphore.signal() }
    }

    /// Waits for `open`; returns false after `seconds` without it.
    ///
    /// The default is long because the side that opens the gate is often a
    /// task, which needs a thread of Swift's cooperative pool to start: in
    /// CI's sanitizer runs, 2 cores shared by the whole suite, one waited
    /// 30 s. The timeout only turns a hang into a failure.
    func wait(seconds: Double = 120) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }
}

/// A duration in seconds with two decimals, for the figures the tests print.
func formatSeconds(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return String(format: "%.2f", value)
}
