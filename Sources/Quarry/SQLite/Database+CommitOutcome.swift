// The outcome of an SQLite commit that failed with an I/O error in WAL mode.
//
// A WAL commit appends the transaction's pages to the -wal file as frames, the
// last one marked as a commit frame, syncs the -wal (with synchronous = FULL),
// and only then publishes the new frames in the wal-index (the -shm file)
// (https://www.sqlite.org/walformat.html). When a step of this fails,
// SQLite rolls the transaction back in memory: no connection that shares the
// -shm sees it. But the commit frame may already be in the -wal: after a
// failed sync (SQLITE_IOERR_FSYNC), a failed wal-index mapping
// (SQLITE_IOERR_SHMMAP, _SHMSIZE, _SHMOPEN), a failed write of the padding
// frames that follow the commit frame on a disk without powersafe overwrite
// (SQLITE_IOERR_WRITE), or a write that failed after part of its bytes
// landed. The next connection that rebuilds the wal-index from the -wal (the
// first to open the file after a crash, or a copy taken without its -shm)
// then replays the transaction. Until a later write overwrites those frames,
// nobody can tell whether the transaction will be committed, and the result
// code does not say which call failed (a sync can also be the one of the
// -wal's header, before any frame). So every I/O error of a statement that
// commits, in WAL mode, is reported as an unknown outcome: a DatabaseError
// that keeps SQLite's code and message, and whose isCommitOutcomeUnknown is
// true.

import CSQLite

extension Database {
    /// `error`, or, when it is an I/O error of a statement that commits on a
    /// WAL database, the same error marked as an unknown commit outcome
    /// (``DatabaseError/isCommitOutcomeUnknown``), with a message that names
    /// the file. Called for every failed step (Database+Interrupt.swift).
    func commitOutcome(of error: DatabaseError, statement: Statement) -> DatabaseError {
        guard error.isIOError, !error.isCommitOutcomeUnknown, mayCommit(statement), usesWAL != false else { return error }
        // The file's own name, not the URI it may have been opened with.
        let file = sqlite3_db_filename(sqliteConnection, "main").map { String(cString: $0) } ?? path
        return error.withUnknownCommitOutcome(
            message: "the commit of the database at \(file) failed with an I/O error (\(error.message)), possibly after "
                + "the transaction reached its write-ahead log \(file)-wal, so it may or may not have been committed: "
                + "this process no longer sees it, but the first connection to open the file after a crash, or a copy "
                + "taken without its -shm file, may replay it")
    }

    /// Whether a step of `statement` may have committed a transaction:
    /// `COMMIT` or `END`, a `RELEASE` run outside the transactions of
    /// ``inTransaction(_:_:)`` (it commits when its savepoint opened the
    /// transaction), or a write run outside any transaction, in autocommit
    /// mode. A write inside a transaction that SQLite rolled back after the
    /// error is counted too when the transaction was not Quarry's: SQLite
    /// leaves nothing that tells the two apart.
    private func mayCommit(_ statement: Statement) -> Bool {
        switch SQLScanner.leadingKeywords(statement.sql, count: 1, nestedComments: false).first {
        case "COMMIT", "END": return true
        case "RELEASE": return !isInsideTransactionBlock
        default:
            return !statement.isReadOnly && !isInsideTransactionBlock && sqlite3_get_autocommit(sqliteConnection) != 0
        }
    }

    /// Whether the main database is in WAL mode, read from its header (bytes
    /// 18 and 19 are 2 in WAL mode, <https://www.sqlite.org/fileformat2.html#file_format_version_numbers>)
    /// rather than with `PRAGMA journal_mode`, which would run through the
    /// authorizer and the trace of the connection; nil when the header
    /// cannot be read.
    private var usesWAL: Bool? {
        // Backend conditional: only SQLite's step errors come here, and the
        // file's header is read through its handle.
        guard let sqliteConnection, !Database.isInMemory(path) else { return false }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(sqliteConnection, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let methods = file.pointee.pMethods, let read = methods.pointee.xRead
        else { return nil }
        var versions: (UInt8, UInt8) = (0, 0)
        let code = withUnsafeMutableBytes(of: &versions) { buffer in read(file, buffer.baseAddress, 2, 18) }
        guard code == SQLITE_OK else { return nil }
        return versions.0 == 2 || versions.1 == 2
    }
}
