// The busy handler: how a connection waits for a lock that another process,
// or another pool on the same file, holds (Configuration.busyTimeout). The
// connection installs it (SQLite/SQLiteConnection+Hooks.swift: every
// millisecond, up to the timeout); a server waits for its locks itself.

extension Database {
    /// Installs the busy handler, which waits up to `milliseconds` in all (at
    /// least that long: the sleeps are counted, not the time spent trying).
    func installBusyHandler(milliseconds: Int32) {
        connection.setBusyWait(self, milliseconds: milliseconds)
    }

    /// Runs `body` with no busy wait: a lock that another connection holds
    /// fails at once with `SQLITE_BUSY`. The configured wait is back after.
    func withoutBusyWait<T>(_ body: () throws -> T) rethrows -> T {
        installBusyHandler(milliseconds: 0)
        defer { installBusyHandler(milliseconds: configuredBusyMilliseconds) }
        return try body()
    }
}
