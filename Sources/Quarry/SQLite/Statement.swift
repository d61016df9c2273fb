// Statement: one compiled SQL statement (sqlite3_stmt) and its stepping loop,
// in SQLite's room: SQLite's prepared statement, behind the execution seam.
//
// This file holds the hottest code in Quarry: binding values and stepping
// through rows. Keep it free of allocations per row; decoding of the current
// row's columns happens in the callers, straight from `sqliteStatement`.

import CSQLite
import Foundation

/// A compiled SQL statement (<https://www.sqlite.org/c3ref/stmt.html>).
///
/// Get one from ``Database/makeStatement(sql:)`` or
/// ``Database/cachedStatement(sql:)``, then execute it or fetch from it as many
/// times as you need with different arguments:
///
/// ```swift
/// let statement = try db.cachedStatement(sql: "INSERT INTO player (name) VALUES (?)")
/// for name in names {
///     try statement.execute(arguments: [name])
/// }
/// ```
///
/// A statement belongs to the ``Database`` it was made by, and is usable only
/// inside the closure that received that database.
public final class Statement {
    /// The underlying SQLite statement handle, for direct use of the C API.
    public let sqliteStatement: OpaquePointer

    /// The SQL of the statement.
    public let sql: String

    /// The connection that compiled the statement.
    let database: Database

    private var finalized = false

    /// Whether errors carry the bound values
    /// (``Configuration/publicStatementArguments``), read once from the
    /// connection's configuration.
    private let recordsArguments: Bool

    /// The values bound to the parameters, by parameter index − 1, kept only
    /// when `recordsArguments` is true. SQLite keeps bindings across resets,
    /// and so does this array.
    private var boundValues: [DatabaseValue] = []

    /// Record readers (decoder and column layout), keyed by record type, so
    /// that a cached statement resolves coding keys to column indexes only
    /// once (see `Records/Fetching/FetchableRecord.swift` and `Records/Coding/RecordDecoder.swift`).
    var recordReaders: [ObjectIdentifier: AnyObject] = [:]

    /// The last record reader handed out, in front of `recordReaders`: a
    /// statement fetched again and again for one type (a fetch by primary
    /// key) finds it with one comparison, no hashing and no cast. Cleared
    /// with `recordReaders`.
    var lastRecordReader: (type: ObjectIdentifier, reader: AnyObject)?

    /// What the statement reads and writes, learned when it was compiled
    /// (`StatementAuthorizer.swift`).
    let facts: StatementFacts

    /// Change observation's view of ``facts`` (Observation/), made once.
    var observationFacts: AnyObject?

    init(database: Database, sqliteStatement: OpaquePointer, sql: String, facts: StatementFacts) {
        self.database = database
        self.sqliteStatement = sqliteStatement
        self.sql = sql
        self.facts = facts
        self.recordsArguments = database.configuration.publicStatementArguments
    }

    deinit { finalize() }

    /// Releases the SQLite statement. Called by deinit, or by the database when it closes.
    func finalize() {
        guard !finalized else { return }
        finalized = true
        sqlite3_finalize(sqliteStatement)
    }

    /// The number of columns in the rows the statement produces.
    public var columnCount: Int { Int(sqlite3_column_count(sqliteStatement)) }

    /// The names of the columns in the rows the statement produces.
    public var columnNames: [String] {
        invalidateStaleLayouts()
        if let cachedColumnNames { return cachedColumnNames }
        let names = (0..<Int32(columnCount)).map { index in
            sqlite3_column_name(sqliteStatement, index).map { String(cString: $0) } ?? ""
        }
        cachedColumnNames = names
        return names
    }

    private var cachedColumnNames: [String]?

    /// The number of times SQLite had recompiled the statement after a schema
    /// change when ``columnNames`` and `recordReaders` were cached.
    private var layoutGeneration: Int32 = 0

    /// Empties the caches that depend on the columns if SQLite recompiled the
    /// statement after a schema change since they were made: `SELECT *` may
    /// then return other columns (<https://www.sqlite.org/c3ref/prepare.html>).
    func invalidateStaleLayouts() {
        let generation = sqlite3_stmt_status(sqliteStatement, SQLITE_STMTSTATUS_REPREPARE, 0)
        guard generation != layoutGeneration else { return }
        layoutGeneration = generation
        cachedColumnNames = nil
        recordReaders.removeAll()
        lastRecordReader = nil
    }

    /// Whether the statement does not write to the database
    /// (<https://www.sqlite.org/c3ref/stmt_readonly.html>).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(sqliteStatement) != 0 }

    /// Executes the statement, ignoring any rows it returns, with
    /// `arguments`, or with the statement's ``arguments`` when nil.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "INSERT INTO player (name) VALUES (?)")
    /// try statement.execute(arguments: ["Arthur"])
    /// statement.arguments = ["Barbara"]
    /// try statement.execute()
    /// ```
    public func execute(arguments: StatementArguments? = nil) throws {
        if let arguments {
            try setArguments(arguments)
        } else if !argumentsAreBound {
            try setArguments(currentArguments)
        } else {
            sqlite3_reset(sqliteStatement)
        }
        defer { reset() }
        while try step() {}
    }

    /// The arguments of the statement's parameters: those set here, with
    /// ``setArguments(_:)`` or with ``execute(arguments:)``, which
    /// ``execute(arguments:)`` without arguments runs with, as in GRDB. (A
    /// fetch with arguments of its own does not change them.)
    ///
    /// Unlike GRDB's setter, which stops the program when the arguments do
    /// not fit the parameters, this one never fails: the next execution
    /// throws instead. ``setArguments(_:)`` checks them at once.
    public var arguments: StatementArguments {
        get { currentArguments }
        set {
            currentArguments = newValue
            argumentsAreBound = false
        }
    }

    /// The arguments last set, and whether they are the ones bound now.
    private var currentArguments = StatementArguments()
    private var argumentsAreBound = false

    /// Binds `arguments` and keeps them as ``arguments``, after checking
    /// that they match the parameters; throws if they do not (a missing or
    /// extra value, an unknown name).
    public func setArguments(_ arguments: StatementArguments) throws {
        try bindArguments(arguments)
        currentArguments = arguments
        argumentsAreBound = true
    }

    /// Binds `arguments` for one execution or fetch, after checking that they
    /// match the parameters. The hot path of every fetch: it keeps no copy of
    /// them (``arguments`` is unchanged, and no longer bound).
    func bindArguments(_ arguments: StatementArguments) throws {
        sqlite3_reset(sqliteStatement)
        argumentsAreBound = false
        var used = 0
        try arguments.bind(to: self, positionalIndex: &used)
        try arguments.checkAllPositionalValuesUsed(used, sql: sql)
    }

    /// Binds one value to the parameter at `index` (1-based).
    func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(sqliteStatement, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(sqliteStatement, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(sqliteStatement, index, real)
        case .text(var text):
            code = text.withUTF8 { buffer in
                // A nil base address would bind NULL instead of an empty text.
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return sqlite3_bind_text(sqliteStatement, index, "", 0, SQLITE_TRANSIENT)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                    sqlite3_bind_text64(
                        sqliteStatement, index, chars, sqlite3_uint64(buffer.count), SQLITE_TRANSIENT,
                        UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            code = data.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return sqlite3_bind_zeroblob(sqliteStatement, index, 0)
                }
                return sqlite3_bind_blob64(sqliteStatement, index, base, sqlite3_uint64(buffer.count), SQLITE_TRANSIENT)
            }
        }
        if code != SQLITE_OK {
            throw database.makeError(code: code, sql: sql, arguments: boundArguments)
        }
        if recordsArguments {
            let position = Int(index) - 1
            if boundValues.count <= position {
                boundValues.append(contentsOf: repeatElement(.null, count: position + 1 - boundValues.count))
            }
            boundValues[position] = value
        }
    }

    /// The values bound so far, for errors, when `recordsArguments` is true.
    private var boundArguments: StatementArguments? {
        recordsArguments ? StatementArguments(databaseValues: boundValues) : nil
    }

    /// Advances to the next row: true if a row is available, false when done.
    @inline(__always)
    func step() throws -> Bool {
        try database.checkTransactionNotAborted(self)
        // Only with a time limit, a cancellable access or change observation
        // (Database+StatementHooks.swift).
        if database.hasStatementHooks, !isBusy { database.statementStarts(self) }
        let code = sqlite3_step(sqliteStatement)
        if code == SQLITE_ROW { return true }
        // The schema may differ from now on (see Database.schemaCheckGeneration).
        if facts.changesSchema || SQLiteConnection.isAutocommit(database.sqliteConnection) {
            database.schemaCheckGeneration &+= 1
        }
        if database.hasStatementHooks { database.statementEnds(self, succeeded: code == SQLITE_DONE) }
        if code == SQLITE_DONE { return false }
        throw database.stepError(code: code, statement: self, arguments: boundArguments)
    }

    /// Resets the statement after it ran, so that it holds no lock. A run
    /// left before its end (an autocommit write with RETURNING whose rows were
    /// not all read commits here) ends here; a run that reached `SQLITE_DONE`
    /// or an error already ended in `step()`.
    @inline(__always)
    func reset() {
        guard database.hasStatementHooks, isBusy else {
            sqlite3_reset(sqliteStatement)
            return
        }
        let code = sqlite3_reset(sqliteStatement)
        database.statementEnds(self, succeeded: code == SQLITE_OK)
    }

    /// Steps through all rows, calling `body` on each, then resets the statement
    /// so that it holds no lock. The row is read from `sqliteStatement` in `body`.
    @inline(__always)
    func forEachRow(_ body: () throws -> Void) throws {
        defer { reset() }
        while try step() { try body() }
    }

    /// Whether the statement is in the middle of stepping through rows
    /// (<https://www.sqlite.org/c3ref/stmt_busy.html>).
    var isBusy: Bool { sqlite3_stmt_busy(sqliteStatement) != 0 }

    /// The number of parameters of the statement: the largest index of its
    /// parameters (<https://www.sqlite.org/c3ref/bind_parameter_count.html>).
    var parameterCount: Int32 { sqlite3_bind_parameter_count(sqliteStatement) }

    /// The name of the parameter at `index` (1-based), with its prefix
    /// (`:name`, `@name`, `$name`, `?NNN`), or nil for an anonymous `?`
    /// (<https://www.sqlite.org/c3ref/bind_parameter_name.html>).
    func parameterName(at index: Int32) -> String? {
        sqlite3_bind_parameter_name(sqliteStatement, index).map { String(cString: $0) }
    }

    /// Resets the statement to its start before new values are bound one by
    /// one with ``bind(_:at:)``; the values bound before stay bound
    /// (<https://www.sqlite.org/c3ref/reset.html>).
    @inline(__always)
    func resetForBinding() {
        sqlite3_reset(sqliteStatement)
    }

    /// Column `index` of the current row as a 64-bit integer, for a column
    /// known to hold one (a rowid, `max(rowid)`, a `PRAGMA` count); SQLite
    /// converts anything else (NULL gives 0;
    /// <https://www.sqlite.org/c3ref/column_blob.html>).
    @inline(__always)
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(sqliteStatement, index)
    }
}

/// SQLite's `SQLITE_TRANSIENT` destructor: SQLite copies the bound bytes
/// (<https://www.sqlite.org/c3ref/c_static.html>). The C macro does not import.
let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
