// Maintenance of a live database: VACUUM, VACUUM INTO (a compact copy), and
// erase() (an empty database, for tests and resets).
//
// See https://www.sqlite.org/lang_vacuum.html.

import Dispatch

extension Database {
    /// Rebuilds the database file, packing it into the least space (`VACUUM`,
    /// <https://www.sqlite.org/lang_vacuum.html>). Throws inside a transaction.
    public func vacuum() throws {
        try execute(sql: "VACUUM")
    }

    /// Writes a compact copy of the database into a new file at `path`, as
    /// of one consistent snapshot (`VACUUM INTO`,
    /// <https://www.sqlite.org/lang_vacuum.html#vacuuminto>). The file must
    /// not exist, or be empty. Throws inside a transaction.
    public func vacuum(into path: String) throws {
        // The path is bound, never spliced into the SQL.
        try execute(sql: "VACUUM INTO ?", arguments: [path])
    }

    /// Deletes every table, index, view, trigger and row: the database is as
    /// new, with its file, page size and journal mode kept
    /// (`SQLITE_DBCONFIG_RESET_DATABASE`, <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html>).
    /// Throws inside a transaction.
    public func erase() throws {
        try require(.backup, "erase()")
        if isInsideTransaction {
            throw DatabaseError.misuse("erase() cannot run inside a transaction: use writeWithoutTransaction")
        }
        try withResetDatabaseFlag {
            try execute(sql: "VACUUM")
            clearStatementCache()
            recordCache.finalizeStatements()
        }
    }
}

extension Database {
    /// A pool's `VACUUM INTO`, on a connection opened for the copy.
    fileprivate static func vacuumOnOwnConnection(
        of sourcePath: String, configuration: Configuration, into path: String
    ) throws {
        let connection = try Database(path: sourcePath, configuration: configuration)
        defer { connection.close() }
        try connection.vacuum(into: path)
    }
}

extension DatabaseWriter {
    /// Rebuilds the database file on the writer connection (`VACUUM`); see
    /// ``Database/vacuum()``. Writes wait until it ends.
    public func vacuum() throws {
        try writeWithoutTransaction { db in try db.vacuum() }
    }

    /// The async variant of ``vacuum()``.
    public func vacuum() async throws {
        try await writeWithoutTransaction { db in try db.vacuum() }
    }

    /// Writes a compact, consistent copy of the live database into a new file
    /// at `path` (`VACUUM INTO`); see ``Database/vacuum(into:)``.
    ///
    /// A ``DatabaseQueue`` runs it on its connection. A ``DatabasePool`` runs
    /// it on a connection of its own, opened for the copy, which reads one
    /// WAL snapshot: writes go on meanwhile. (The pool's readers cannot run
    /// it: they open the file read-only, and `VACUUM INTO` writes through
    /// the connection that runs it.)
    public func vacuum(into path: String) throws {
        if self is DatabasePool {
            try Database.vacuumOnOwnConnection(of: self.path, configuration: configuration, into: path)
        } else {
            try writeWithoutTransaction { db in try db.vacuum(into: path) }
        }
    }

    /// The async variant of ``vacuum(into:)``.
    public func vacuum(into path: String) async throws {
        if self is DatabasePool {
            let sourcePath = self.path
            let configuration = self.configuration
            // Off the cooperative thread pool: the copy blocks in SQLite.
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global().async {
                    continuation.resume(with: Result {
                        try Database.vacuumOnOwnConnection(of: sourcePath, configuration: configuration, into: path)
                    })
                }
            }
        } else {
            try await writeWithoutTransaction { db in try db.vacuum(into: path) }
        }
    }

    /// Empties the database: every table, index, view, trigger and row is
    /// gone; see ``Database/erase()``. Meant for tests and resets.
    public func erase() throws {
        try writeWithoutTransaction { db in try db.erase() }
    }

    /// The async variant of ``erase()``.
    public func erase() async throws {
        try await writeWithoutTransaction { db in try db.erase() }
    }
}
