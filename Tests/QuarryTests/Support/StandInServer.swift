// A stand-in for a database server (Core/DatabaseServerConnection.swift): a
// separate SQLite connection driven through the C API, which receives the
// statements exactly as a server would (one at a time, `$1…$n` parameters,
// values as DatabaseValues) and records them.

import CSQLite
import Foundation
@testable import Quarry
import QuarryPostgres

/// The stand-in server: statements run on a separate SQLite connection,
/// to a private in-memory database or to a file that several stand-ins share.
final class StandInServer: DatabaseServerConnection {
    let dialect: any SQLDialect
    let catalog: any DatabaseCatalog
    let serverDescription = "stand-in://server"
    let databaseName = "stand-in"
    /// SQLite's default limit.
    let boundValueLimit = 32_766
    var isUsable: Bool { !isClosed }
    /// When set, the first statement whose SQL starts with it fails as a
    /// lost connection would (SQLSTATE 08006), and the stand-in closes.
    var losesConnectionAt: String?
    /// When set, a statement with exactly this SQL opens a transaction on
    /// the stand-in (`BEGIN`), as raw SQL that Quarry cannot read as one
    /// might; it returns no row.
    var opensTransactionAt: String?
    private var handle: OpaquePointer?
    /// The statements received, with their values.
    private(set) var received: [(sql: String, values: [DatabaseValue])] = []
    private(set) var isClosed = false

    init(path: String = ":memory:", dialect: any SQLDialect = PostgreSQLDialect()) {
        self.dialect = dialect
        // Speaking SQLite's SQL, it answers as a server would about rowids.
        catalog = dialect is SQLiteDialect ? StandInCatalog() : PostgreSQLCatalog()
        sqlite3_open(path, &handle)
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// The stand-in's statements run to their end: it records the requests.
    private(set) var cancelRequestCount = 0

    func cancelRunningStatement() { cancelRequestCount += 1 }

    /// The capabilities the stand-in claims: PostgreSQL's by default; a test
    /// takes `.returning` away to play a MySQL-like server.
    var capabilities: Set<DatabaseCapability> = [.returning]

    func supports(_ capability: DatabaseCapability) -> Bool { capabilities.contains(capability) }

    /// PostgreSQL's errors: the stand-in speaks for a PostgreSQL server.
    func error(_ category: DatabaseError.Category, message: String, sql: String?) -> DatabaseError {
        DatabaseError.postgresError(category, message: message, sql: sql)
    }

    /// The stand-in cannot tell what a statement read: the whole database.
    func tablesRead(sql: String, arguments: [DatabaseValue]) throws -> Set<String>? { nil }

    func execute(sql: String, arguments: [DatabaseValue]) throws -> DatabaseServerResult {
        guard !isClosed else { throw DatabaseError(sqlState: "08003", message: "closed", sql: sql) }
        if let prefix = losesConnectionAt, sql.hasPrefix(prefix) {
            // As a server does when a session ends: its transaction rolls back.
            isClosed = true
            sqlite3_close_v2(handle)
            handle = nil
            throw DatabaseError(sqlState: "08006", message: "the connection was lost", sql: sql)
        }
        received.append((sql, arguments))
        if let marker = opensTransactionAt, sql == marker {
            guard sqlite3_exec(handle, "BEGIN", nil, nil, nil) == SQLITE_OK else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
            }
            return DatabaseServerResult(columnNames: [], rows: [], rowsAffected: 0)
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        defer { sqlite3_finalize(statement) }
        // SQLite reads `$1` as a named parameter, numbered in order of first use.
        for (index, value) in arguments.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, position)
            case .integer(let integer): sqlite3_bind_int64(statement, position, integer)
            case .real(let real): sqlite3_bind_double(statement, position, real)
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, SQLITE_TRANSIENT)
            case .blob(let data):
                _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
            }
        }
        let columnCount = sqlite3_column_count(statement)
        let names = (0..<columnCount).map { String(cString: sqlite3_column_name(statement, $0)) }
        var rows: [[DatabaseValue]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
            }
            rows.append((0..<columnCount).map { DatabaseValue(sqliteStatement: statement, index: $0) })
        }
        let affected = sqlite3_stmt_readonly(statement) != 0 ? 0 : Int(sqlite3_changes(handle))
        return DatabaseServerResult(columnNames: names, rows: rows, rowsAffected: affected)
    }

    func close() { isClosed = true }
}

/// The catalog of a stand-in that speaks SQLite's SQL: SQLite's pragmas
/// answer its introspection, but, as a server, it keeps rowids to itself
/// (RETURNING gives the key, multi-row inserts are matched by position).
struct StandInCatalog: DatabaseCatalog {
    private let sqlite = SQLiteCatalog()
    func tablesHaveRowID(_ db: Database) -> Bool { false }
    func insertedRowIDReturning(_ db: Database, rowIDColumn: String?) -> String? { rowIDColumn?.quotedDatabaseIdentifier }
    func matchesReturnedRowsByPosition(_ db: Database) -> Bool { true }
    func schemaObjectExists(_ db: Database, kind: SchemaObjectKind, name: String) throws -> Bool {
        try sqlite.schemaObjectExists(db, kind: kind, name: name)
    }
    func hasTriggers(_ db: Database, on table: String) throws -> Bool { try sqlite.hasTriggers(db, on: table) }
    func columns(_ db: Database, in table: String) throws -> [ColumnInfo] { try sqlite.columns(db, in: table) }
    func primaryKey(_ db: Database, table: String) throws -> PrimaryKeyInfo { try sqlite.primaryKey(db, table: table) }
    func foreignKeys(_ db: Database, on table: String) throws -> [ForeignKeyInfo] { try sqlite.foreignKeys(db, on: table) }
    func indexes(_ db: Database, on table: String) throws -> [IndexInfo] { try sqlite.indexes(db, on: table) }
    func isWriteLockHeldElsewhere(_ db: Database) throws -> Bool { try sqlite.isWriteLockHeldElsewhere(db) }
    func lockMigrations(_ db: Database, table: String, timeout: Duration?, willWait: (_ holder: Int?) -> Void) throws {}
    func foreignKeysCanBeSuspended(_ db: Database) throws -> Bool { try sqlite.foreignKeysCanBeSuspended(db) }
}
