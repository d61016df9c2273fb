// Online backup of the service database: a stepped copy of the live file with
// Quarry's `backup(toPath:)` (SQLite's backup API) while the service goes on
// serving and writing, then an integrity check of the copy. The `bookshelf
// backup` subcommand runs it next to a running server.

import Foundation
import Quarry

/// What a backup made by ``backupDatabase(_:toPath:pagesPerStep:progress:)`` holds.
public struct BackupSummary: Sendable, Equatable, CustomStringConvertible {
    /// The database that was backed up.
    public var sourcePath: String
    /// The copy.
    public var path: String
    /// The pages copied: all the pages of the database as of the backup's start.
    public var pageCount: Int
    /// The size of a page, in bytes.
    public var pageSize: Int
    /// The rows of each table of the copy, by table name (SQLite's internal
    /// `sqlite_` tables and the shadow tables of full-text tables excepted;
    /// the full-text table `book_search` and the migrations table included).
    public var rowCounts: [String: Int]
    /// How long the backup and the check of the copy took.
    public var duration: Duration

    /// The size of the copy, in bytes.
    public var byteCount: Int { pageCount * pageSize }

    /// A few lines for people: the paths, the pages, the integrity check, the rows.
    public var description: String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let rows = rowCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return """
            backed up \(sourcePath) to \(path) in \(String(format: "%.3f", seconds)) s
            pages: \(pageCount) of \(pageSize) bytes (\(byteCount) bytes)
            integrity_check: ok
            rows: \(rows)
            """
    }
}

/// Why ``backupDatabase(_:toPath:pagesPerStep:progress:)`` or
/// ``backupDatabase(atPath:toPath:pagesPerStep:progress:)`` refused or failed
/// (SQLite failures, such as a destination in a missing directory, are
/// Quarry `DatabaseError`s).
public enum BackupError: Error, Equatable, CustomStringConvertible {
    /// There is no database file to back up at `path`.
    case noDatabase(path: String)
    /// The destination is the database file itself (by another path or a link).
    case destinationIsTheSource(path: String)
    /// The copy at `path` failed `PRAGMA integrity_check`; `report` holds the
    /// rows it returned. The copy is left in place, for inspection: it is the
    /// source's pages as they are, so the source is damaged too.
    case integrityCheckFailed(path: String, report: [String])
    /// The database is a PostgreSQL URL: this backup copies SQLite files
    /// only (use `pg_dump`). The URL is not kept: it may hold a password.
    case postgreSQLDatabase

    /// A sentence for people (what `bookshelf backup` prints after `Error:`).
    public var description: String {
        switch self {
        case .noDatabase(let path):
            "there is no database file at \(path)"
        case .destinationIsTheSource(let path):
            "cannot back up a database into its own file (\(path))"
        case .integrityCheckFailed(let path, let report):
            "the backup at \(path) failed its integrity check (left in place; the source is damaged too): "
                + report.prefix(10).joined(separator: "; ") + (report.count > 10 ? "; …" : "")
        case .postgreSQLDatabase:
            "bookshelf backup copies an SQLite database file; back up a PostgreSQL database with pg_dump "
                + "(for example: pg_dump --format=custom --file=bookshelf.dump 'postgres://user@host:5432/db')"
        }
    }
}

/// Backs up `database` into the file at `path` while the service keeps
/// using it, then checks the copy.
///
/// The copy is made in steps of `pagesPerStep` pages, all from one read
/// transaction: from a `DatabasePool`, that transaction is on a reader
/// connection, so writes go on committing while the copy runs, and the copy
/// is the database as of the backup's start (in WAL mode, like its source).
/// The copy is then opened on its own and must pass `PRAGMA integrity_check`.
///
/// The file at `path` is created, or replaced if it exists; if the backup
/// fails, a file it created is removed.
///
/// ```swift
/// let summary = try await backupDatabase(pool, toPath: "/backups/bookshelf.sqlite")
/// print(summary)
/// ```
///
/// - parameters:
///   - database: the database to back up, usually the service's pool.
///   - path: the backup file.
///   - pagesPerStep: the pages copied per step (-1 copies all in one step).
///   - progress: called after each step; throwing from it stops the backup
///     and rethrows.
/// - returns: what the copy holds.
/// - throws: ``BackupError/postgreSQLDatabase`` for a PostgreSQL pool (use
///   `pg_dump`); ``BackupError/destinationIsTheSource(path:)`` when `path` is the
///   database's own file; a Quarry `DatabaseError` when the copy cannot be
///   made (a missing directory, a full disk…);
///   ``BackupError/integrityCheckFailed(path:report:)`` when the copy fails
///   the integrity check; `CancellationError` when the task is cancelled.
public func backupDatabase(
    _ database: any DatabaseReader, toPath path: String, pagesPerStep: Int32 = 64,
    progress: (@Sendable (DatabaseBackupProgress) throws -> Void)? = nil
) async throws -> BackupSummary {
    // A PostgresDatabasePool's path is its URL (without password).
    guard DatabaseBackend(location: database.path) == .sqlite else { throw BackupError.postgreSQLDatabase }
    let start = ContinuousClock.now
    if let source = FileIdentity(path: database.path), source == FileIdentity(path: path) {
        throw BackupError.destinationIsTheSource(path: path)
    }
    let destinationExisted = FileManager.default.fileExists(atPath: path)
    do {
        try await database.backup(toPath: path, pagesPerStep: pagesPerStep, progress: progress)
    } catch {
        if !destinationExisted { removeDatabaseFiles(atPath: path) }
        throw error
    }
    let copy = try await checkBackup(atPath: path)
    return BackupSummary(
        sourcePath: database.path, path: path, pageCount: copy.pageCount, pageSize: copy.pageSize,
        rowCounts: copy.rowCounts, duration: ContinuousClock.now - start)
}

/// Backs up the database file at `databasePath` into the file at `path`
/// through a `DatabasePool` of its own, closed at the end: what `bookshelf
/// backup` does next to a running server, whose writes go on committing.
///
/// The pool runs no migrations and only reads. It is not read-only: a
/// read-only connection could not remove the `-wal` and `-shm` files it makes
/// next to a database that no server has open, so they would stay there
/// (owned by the user who ran the backup); with a read-write pool, SQLite
/// removes them when the pool closes. See
/// ``backupDatabase(_:toPath:pagesPerStep:progress:)``.
///
/// - throws: ``BackupError/postgreSQLDatabase`` when `databasePath` is a
///   `postgres://` URL (use `pg_dump`); ``BackupError/noDatabase(path:)``
///   when there is no file at `databasePath` (none is created), and the errors of
///   ``backupDatabase(_:toPath:pagesPerStep:progress:)``.
public func backupDatabase(
    atPath databasePath: String, toPath path: String, pagesPerStep: Int32 = 64,
    progress: (@Sendable (DatabaseBackupProgress) throws -> Void)? = nil
) async throws -> BackupSummary {
    guard DatabaseBackend(location: databasePath) == .sqlite else { throw BackupError.postgreSQLDatabase }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: databasePath, isDirectory: &isDirectory), !isDirectory.boolValue else {
        throw BackupError.noDatabase(path: databasePath)
    }
    // Before the pool opens, so that a refused backup does not even read the file.
    if let source = FileIdentity(path: databasePath), source == FileIdentity(path: path) {
        throw BackupError.destinationIsTheSource(path: path)
    }
    let pool = try DatabasePool(path: databasePath)
    defer { pool.close() }
    return try await backupDatabase(pool, toPath: path, pagesPerStep: pagesPerStep, progress: progress)
}

/// Opens the copy on its own and checks it: the integrity check, its pages
/// and the rows of its tables.
private func checkBackup(atPath path: String) async throws -> (pageCount: Int, pageSize: Int, rowCounts: [String: Int]) {
    let copy = try DatabaseQueue(path: path)
    defer { copy.close() }
    return try await copy.read { db in
        let report = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        guard report == ["ok"] else {
            throw BackupError.integrityCheckFailed(path: path, report: report)
        }
        // `virtual`: the FTS5 table; its `shadow` tables hold its index.
        let tables = try String.fetchAll(db, sql: #"""
            SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual')
            AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name
            """#)
        var rowCounts: [String: Int] = [:]
        for table in tables {
            rowCounts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0
        }
        return (
            pageCount: try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
            pageSize: try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0,
            rowCounts: rowCounts)
    }
}

/// Removes a database file and the journal files SQLite may have left next to it.
private func removeDatabaseFiles(atPath path: String) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}

/// A file's device and inode, after symbolic links: two paths name the same
/// file when they are equal. Nil when there is no such file.
private struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved),
              let device = (attributes[.systemNumber] as? NSNumber)?.uint64Value,
              let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        else { return nil }
        self.device = device
        self.inode = inode
    }
}
