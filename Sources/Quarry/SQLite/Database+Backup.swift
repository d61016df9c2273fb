// Online backup's C glue (https://www.sqlite.org/backup.html,
// https://www.sqlite.org/c3ref/backup_finish.html): the page-by-page copy
// behind Database.backup(to:pagesPerStep:progress:), whose checks and
// progress values are in Operations/DatabaseBackup.swift.

import CSQLite

extension Database {
    /// Copies this connection's main database into `destination`'s,
    /// `pagesPerStep` pages per step (-1: all in one step), and calls
    /// `afterStep` after each step with the pages still to copy, the pages
    /// of the source, and whether the copy is complete. Throwing from
    /// `afterStep` stops the copy and leaves the destination as it was; a
    /// cancelled access stops it between two steps with `CancellationError`.
    func copyMainDatabase(
        into destination: Database, pagesPerStep: Int32,
        afterStep: (_ remaining: Int, _ total: Int, _ isCompleted: Bool) throws -> Void
    ) throws {
        guard let backup = sqlite3_backup_init(destination.sqliteConnection, "main", sqliteConnection, "main") else {
            let error = destination.makeError(code: sqlite3_errcode(destination.sqliteConnection), sql: nil)
            throw DatabaseError(resultCode: error.extendedResultCode,
                message: "could not start the backup of \(path) into \(destination.path): \(error.message)")
        }
        var isFinished = false
        defer { if !isFinished { sqlite3_backup_finish(backup) } }
        var code = SQLITE_OK
        while code != SQLITE_DONE {
            // An async backup whose task is cancelled stops between steps
            // (see `observingCancellation`).
            if progressMonitor.access?.isCancelled == true { throw CancellationError() }
            code = sqlite3_backup_step(backup, pagesPerStep)
            guard code == SQLITE_OK || code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code),
                    message: "the backup of \(path) into \(destination.path) failed: " + String(cString: sqlite3_errstr(code)))
            }
            try afterStep(Int(sqlite3_backup_remaining(backup)), Int(sqlite3_backup_pagecount(backup)), code == SQLITE_DONE)
        }
        isFinished = true
        code = sqlite3_backup_finish(backup)
        if code != SQLITE_OK { throw destination.makeError(code: code, sql: nil) }
        // The destination's schema changed under its cached statements.
        destination.clearStatementCache()
    }
}
