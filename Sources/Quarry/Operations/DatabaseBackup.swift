// Online backup: copying a live database, page by page, into another one with
// SQLite's backup API, whose C glue is in SQLite/Database+Backup.swift.
//
// The source side runs inside a read transaction that is open for the whole
// copy, so that the copy is one consistent snapshot: the database as of the
// start of the backup. From a DatabasePool, that transaction is on a reader
// connection, in WAL mode, so the writer keeps committing while the copy runs.

import Foundation

/// How far a backup has come, reported after each step of
/// ``DatabaseReader/backup(to:pagesPerStep:progress:)-592ue``.
public struct DatabaseBackupProgress: Sendable, Hashable {
    /// The pages still to copy.
    public let remainingPageCount: Int

    /// The pages of the source database.
    public let totalPageCount: Int

    /// The pages copied so far.
    public var completedPageCount: Int { totalPageCount - remainingPageCount }

    /// Whether the copy is complete.
    public let isCompleted: Bool
}

extension Database {
    /// Copies this database into `destination` with SQLite's online backup API.
    ///
    /// Quarry's queues and pools call it for you
    /// (``DatabaseReader/backup(to:pagesPerStep:progress:)-592ue``); use it directly
    /// when you already hold both connections. `destination` must not be in a
    /// transaction. If this connection is in a read transaction, the copy is
    /// that transaction's snapshot.
    ///
    /// - parameters:
    ///   - destination: the connection whose database is replaced by the copy.
    ///   - pagesPerStep: the pages copied per step; -1 copies everything in one step.
    ///   - progress: called after each step; throwing from it stops the backup,
    ///     rolls the destination back to what it was, and rethrows.
    public func backup(
        to destination: Database, pagesPerStep: Int32 = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil
    ) throws {
        try require(.backup, "online backup (backup(to:))")
        try destination.require(.backup, "online backup (backup(to:))")
        if pagesPerStep == 0 {
            throw DatabaseError.misuse("backup(to:pagesPerStep:) needs a positive number of pages per step, or -1 for all")
        }
        if destination === self {
            throw DatabaseError.misuse("a database cannot be backed up into its own connection")
        }
        try copyMainDatabase(into: destination, pagesPerStep: pagesPerStep) {
            try progress?(DatabaseBackupProgress(remainingPageCount: $0, totalPageCount: $1, isCompleted: $2))
        }
    }

    /// Starts the read transaction of a backup's source now, rather than at
    /// its first page, so that the snapshot is the one of the backup's start.
    func beginBackupSnapshot() throws {
        try execute(sql: "SELECT 1 FROM sqlite_master LIMIT 1")
    }
}

extension DatabaseReader {
    /// Copies the database into `destination` (a ``DatabaseQueue`` or a
    /// ``DatabasePool``), replacing its content, while this database stays in use.
    ///
    /// ```swift
    /// let copy = try DatabaseQueue(path: "/backups/db.sqlite")
    /// try dbPool.backup(to: copy)
    /// ```
    ///
    /// The copy is a consistent snapshot: the database as of the start of the
    /// backup. From a ``DatabasePool`` it reads on a reader connection, so
    /// writes go on committing while it runs (they are not in the copy). From
    /// a ``DatabaseQueue`` it holds the queue's only connection until it ends.
    ///
    /// - parameters:
    ///   - destination: the queue or pool whose database is replaced by the copy.
    ///   - pagesPerStep: the pages copied per step (`sqlite3_backup_step`);
    ///     the default, -1, copies everything in one step.
    ///   - progress: called after each step. Throw from it to stop the
    ///     backup: the destination is left as it was before, and the error is
    ///     rethrown.
    public func backup(
        to destination: some DatabaseWriter, pagesPerStep: Int32 = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil
    ) throws {
        try checkBackupDestination(destination.path)
        try read { source in
            try source.require(.backup, "online backup (backup(to:))")
            try source.beginBackupSnapshot()
            try destination.writeWithoutTransaction { target in
                try source.backup(to: target, pagesPerStep: pagesPerStep, progress: progress)
            }
        }
    }

    /// The async variant of ``DatabaseReader/backup(to:pagesPerStep:progress:)-592ue``: cancelling
    /// the task stops the backup between two steps and throws `CancellationError`.
    public func backup(
        to destination: some DatabaseWriter, pagesPerStep: Int32 = -1,
        progress: (@Sendable (DatabaseBackupProgress) throws -> Void)? = nil
    ) async throws {
        try checkBackupDestination(destination.path)
        try await read { source in
            try source.require(.backup, "online backup (backup(to:))")
            try source.beginBackupSnapshot()
            try destination.writeWithoutTransaction { target in
                try source.backup(to: target, pagesPerStep: pagesPerStep, progress: progress)
            }
        }
    }

    /// Copies the database into the file at `path`, created if needed and
    /// replaced if it exists; see ``DatabaseReader/backup(to:pagesPerStep:progress:)-592ue``.
    ///
    /// The copy keeps the source's journal mode (a copy of a
    /// ``DatabasePool``'s database is in WAL mode).
    public func backup(
        toPath path: String, pagesPerStep: Int32 = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil
    ) throws {
        // Before the destination file is created.
        try read { source in try source.require(.backup, "online backup (backup(toPath:))") }
        let destination = try DatabaseQueue(path: path, configuration: backupDestinationConfiguration)
        defer { destination.close() }
        try backup(to: destination, pagesPerStep: pagesPerStep, progress: progress)
    }

    /// The async variant of ``DatabaseReader/backup(toPath:pagesPerStep:progress:)-3r6g3``.
    public func backup(
        toPath path: String, pagesPerStep: Int32 = -1,
        progress: (@Sendable (DatabaseBackupProgress) throws -> Void)? = nil
    ) async throws {
        // Before the destination file is created.
        try await read { source in try source.require(.backup, "online backup (backup(toPath:))") }
        let destination = try DatabaseQueue(path: path, configuration: backupDestinationConfiguration)
        defer { destination.close() }
        try await backup(to: destination, pagesPerStep: pagesPerStep, progress: progress)
    }

    /// The destination of a backup to a path: no foreign key checks or
    /// preparation steps of the source (its custom functions are not needed
    /// to copy pages).
    private var backupDestinationConfiguration: Configuration {
        var configuration = Configuration()
        configuration.busyTimeout = self.configuration.busyTimeout
        return configuration
    }

    /// Refuses a destination that is the source file, by the same path, by
    /// another path to it (`dir/./db.sqlite`), or by a link: the backup would
    /// write the source's snapshot over the live file, losing later commits.
    private func checkBackupDestination(_ destinationPath: String) throws {
        if destinationPath == path, !path.isEmpty, path != ":memory:" {
            throw DatabaseError.misuse("a database cannot be backed up into its own file (\(path))")
        }
        var source = stat()
        var destination = stat()
        if stat(path, &source) == 0, stat(destinationPath, &destination) == 0,
            source.st_dev == destination.st_dev, source.st_ino == destination.st_ino
        {
            throw DatabaseError.misuse(
                "a database cannot be backed up into its own file (\(destinationPath) is \(path))")
        }
    }
}
