// The busy handler: how a connection waits for a lock that another process,
// or another pool on the same file, holds (Configuration.busyTimeout).
//
// SQLite's own sqlite3_busy_timeout sleeps longer and longer between its
// attempts (up to 100 ms each). A writer of another process that commits in a
// tight loop frees the lock only for an instant between two transactions, and
// a few attempts spread over seconds seldom fall in that instant: the waiter
// then fails with SQLITE_BUSY at the end of its timeout although the lock was
// released thousands of times meanwhile. This handler tries again every
// millisecond instead, and gives up once its sleeps add up to the timeout, as
// SQLite's does (https://www.sqlite.org/c3ref/busy_handler.html).

import CSQLite
import CoreMetrics
import Foundation

extension Database {
    /// Installs the busy handler, which waits up to `milliseconds` in all (at
    /// least that long: the sleeps are counted, not the time spent trying).
    func installBusyHandler(milliseconds: Int32) {
        // Backend conditional: SQLite's busy handler needs its handle; a
        // server waits for its locks itself.
        guard let sqliteConnection else { return }
        guard milliseconds > 0 else {
            sqlite3_busy_handler(sqliteConnection, nil, nil)
            return
        }
        if let busySleeps = instrumentation?.busySleeps {
            // With metrics, the context is an object that also counts the sleeps.
            let wait = CountedBusyWait(timeout: milliseconds, sleeps: busySleeps)
            countedBusyWait = wait
            sqlite3_busy_handler(sqliteConnection, countedBusyHandler, Unmanaged.passUnretained(wait).toOpaque())
            return
        }
        // The timeout travels in the context pointer's bits: no state to keep alive.
        let context = UnsafeMutableRawPointer(bitPattern: Int(milliseconds))
        sqlite3_busy_handler(sqliteConnection, busyHandler, context)
    }
}

extension Database {
    /// Runs `body` with no busy wait: a lock that another connection holds
    /// fails at once with `SQLITE_BUSY`. The configured wait is back after.
    func withoutBusyWait<T>(_ body: () throws -> T) rethrows -> T {
        installBusyHandler(milliseconds: 0)
        defer { installBusyHandler(milliseconds: configuredBusyMilliseconds) }
        return try body()
    }
}

/// The context of the busy handler when metrics are on; the connection keeps
/// it alive (`Database.countedBusyWait`) as long as SQLite may call the handler.
final class CountedBusyWait {
    let timeout: Int32
    let sleeps: Counter

    init(timeout: Int32, sleeps: Counter) {
        self.timeout = timeout
        self.sleeps = sleeps
    }
}

/// `busyHandler`, counting each sleep in `quarry.busy.sleeps`.
private func countedBusyHandler(_ context: UnsafeMutableRawPointer?, _ attempt: Int32) -> Int32 {
    guard let context else { return 0 }
    let wait = Unmanaged<CountedBusyWait>.fromOpaque(context).takeUnretainedValue()
    guard attempt < wait.timeout else { return 0 }
    wait.sleeps.increment()
    usleep(1_000)
    return 1
}

/// Sleeps 1 ms per call; returns 0 (give up, SQLITE_BUSY) once `attempt`
/// previous calls have slept the whole timeout.
private func busyHandler(_ context: UnsafeMutableRawPointer?, _ attempt: Int32) -> Int32 {
    let timeout = Int(bitPattern: context)
    guard Int(attempt) < timeout else { return 0 }
    usleep(1_000)
    return 1
}
