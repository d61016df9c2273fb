// SQLiteConnection: SQLite's side of the execution seam (DatabaseConnection.swift).
//
// An SQLite connection is Quarry's own, through the C API: `Database` keeps
// its machinery (the statement cache, the authorizer, hooks, spans), and this
// type answers the seam's questions with it. Its hooks (busy, progress,
// trace) are in SQLiteConnection+Hooks.swift. Its prepared statements are
// `Statement`, stepped directly: the hot path of every fetch.

import CSQLite
import CoreMetrics

/// SQLite's connection, as the execution seam sees it.
final class SQLiteConnection: DatabaseConnection {
    /// The connection handle; valid until `close()`.
    let handle: OpaquePointer
    let connectionDescription: String

    /// What the busy handler reads, from SQLite's call on this connection's
    /// thread: its timeout, and the metric counting its sleeps, if any
    /// (SQLiteConnection+Hooks.swift).
    var busyWait: (milliseconds: Int32, sleeps: Counter?) = (0, nil)

    /// What the update, commit and rollback hooks call, from SQLite's calls
    /// on this connection's thread (SQLiteConnection+ChangeHooks.swift).
    var changeHooks: (update: (Int32, UnsafePointer<CChar>, UnsafePointer<CChar>, Int64) -> Void, commit: () -> Bool, rollback: () -> Void)?

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        connectionDescription = path
    }

    /// Opens the connection handle of the file (or URI filename) at `path`,
    /// read-only or read-write (created if missing), with extended result
    /// codes on (<https://www.sqlite.org/c3ref/open.html>).
    ///
    /// Throws, without creating anything, for a path that begins with
    /// `file:` when URI filenames are not accepted; and when SQLite cannot
    /// open the file, with its message.
    static func open(path: String, readOnly: Bool, acceptsURIFilenames: Bool) throws -> OpaquePointer {
        var flags = SQLITE_OPEN_NOMUTEX
        if acceptsURIFilenames {
            flags |= SQLITE_OPEN_URI
        } else if path.hasPrefix("file:") {
            // Without SQLITE_OPEN_URI, SQLite would create a file named
            // "file:…" in the working directory: say why instead.
            throw DatabaseError(
                resultCode: .SQLITE_CANTOPEN,
                message: "could not open database at \(path): a path that begins with \"file:\" is a URI filename, "
                    + "which Configuration.acceptsURIFilenames must allow")
        }
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard let handle else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "could not open database at \(path)")
        }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(handle))
            let extended = sqlite3_extended_errcode(handle)
            sqlite3_close_v2(handle)
            throw DatabaseError(
                resultCode: ResultCode(rawValue: extended),
                message: "could not open database at \(path): \(message)")
        }
        sqlite3_extended_result_codes(handle, 1)
        return handle
    }

    /// The error of a failed call that returned `code`, from the error state
    /// of the connection `handle`: its extended result code and message.
    ///
    /// - parameter explainsUntrustedFileLimits: whether SQLite's "string or
    ///   blob too big" gets the caps of ``Configuration/acceptsUntrustedFiles``
    ///   appended, since it does not say which one was hit.
    static func error(
        on handle: OpaquePointer?, code: Int32, sql: String?, arguments: StatementArguments?,
        explainsUntrustedFileLimits: Bool
    ) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        // The connection's error state may already have moved on: trust `code`
        // for the primary code.
        let resultCode = (extended & 0xFF) == (code & 0xFF) ? extended : code
        var message = String(cString: sqlite3_errmsg(handle))
        if (resultCode & 0xFF) == SQLITE_TOOBIG, explainsUntrustedFileLimits {
            // SQLite's "string or blob too big" does not say which cap.
            message += " (" + UntrustedFileLimits.tooBigExplanation + ")"
        }
        return DatabaseError(resultCode: ResultCode(rawValue: resultCode), message: message, sql: sql, arguments: arguments)
    }

    /// SQLite's English description of a result code, such as "constraint
    /// failed" for `SQLITE_CONSTRAINT` (<https://www.sqlite.org/c3ref/errcode.html>).
    static func resultCodeDescription(_ code: Int32) -> String {
        String(cString: sqlite3_errstr(code))
    }

    /// Whether the connection `handle` is in autocommit mode: no transaction
    /// is open (<https://www.sqlite.org/c3ref/get_autocommit.html>).
    @inline(__always)
    static func isAutocommit(_ handle: OpaquePointer?) -> Bool {
        sqlite3_get_autocommit(handle) != 0
    }

    var dialect: any SQLDialect { SQLiteDialect() }
    var catalog: any DatabaseCatalog { SQLiteCatalog() }

    /// SQLite supports every capability: they are SQLite's.
    func supports(_ capability: DatabaseCapability) -> Bool { true }

    func prepare(_ db: Database, sql: String, arguments: StatementArguments) throws -> any PreparedStatement {
        let statement = try db.cachedStatement(sql: sql)
        try statement.bindArguments(arguments)
        return statement
    }

    func preparePlan(_ db: Database, sql: String, parameterCount: Int) throws -> any PreparedStatement {
        try db.makeStatement(sql: sql)
    }

    func execute(_ db: Database, sql: String, arguments: StatementArguments) throws {
        try db.executeSQLiteScript(sql: sql, arguments: arguments)
    }

    func executeCached(_ db: Database, sql: String) throws {
        try db.cachedStatementWithoutSchemaCheck(sql: sql).execute()
    }

    /// SQLite's autocommit flag always tells whether a transaction is open.
    func resetAfterAccess(_ db: Database) throws {}

    func schemaChanged(_ db: Database) throws -> Bool {
        try db.sqliteSchemaVersionCheck.schemaChanged(db, handle: handle)
    }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    var changesCount: Int { Int(sqlite3_changes64(handle)) }
    var totalChangesCount: Int { Int(sqlite3_total_changes64(handle)) }
    var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// A file connection has no network to lose.
    var isReusable: Bool { true }

    /// <https://www.sqlite.org/c3ref/interrupt.html>
    func interrupt() { sqlite3_interrupt(handle) }

    /// The progress handler stops the statement (Database+Interrupt.swift).
    func accessWasCancelled() {}

    /// The most values one statement binds (`SQLITE_LIMIT_VARIABLE_NUMBER`).
    var boundValueLimit: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    /// Finalizes nothing: statements still referenced elsewhere keep the
    /// connection as a zombie until they are released (sqlite3_close_v2).
    /// The busy handler and the change hooks, which read this object, are
    /// removed first.
    func close() {
        sqlite3_busy_handler(handle, nil, nil)
        sqlite3_update_hook(handle, nil, nil)
        sqlite3_commit_hook(handle, nil, nil)
        sqlite3_rollback_hook(handle, nil, nil)
        sqlite3_close_v2(handle)
    }
}

/// SQLite's prepared statement is `Statement` itself.
extension Statement: PreparedStatement {
    /// Binds `values[bindings[i]]` to parameter `i + 1` (record plans).
    @inline(__always)
    func bind(_ values: [DatabaseValue], bindings: [Int]) throws {
        sqlite3_reset(sqliteStatement)
        var parameter: Int32 = 1
        for index in bindings {
            try bind(values[index], at: parameter)
            parameter += 1
        }
    }

    /// Reads the live statement (Statement+RowSource.swift).
    @inline(__always)
    func reader<Result>(_ reading: RowReading<Result>) throws -> () throws -> Result {
        let read = try reading.make(self)
        return { try read(self) }
    }
}
