// The caps that `Configuration.acceptsUntrustedFiles` sets on each connection
// with sqlite3_limit (https://www.sqlite.org/c3ref/limit.html), so that a
// small hostile file (a huge stored value, a view or trigger of enormous SQL,
// depth or program) fails with an error instead of exhausting the memory or
// the time of the process that opens it.
//
// The values follow https://www.sqlite.org/security.html, loosened only
// where SQLite's suggestion would refuse ordinary SQL of the application
// itself (the query interface's filters, JSON objects, batch statements).
// SQLite's heap limits (sqlite3_hard_heap_limit64) are process-wide, so they
// are not set here.

import CSQLite

enum UntrustedFileLimits {
    /// One cap: SQLite's limit category, its name, and the value set.
    struct Cap {
        let category: Int32
        let name: String
        let value: Int32
    }

    /// The caps, as documented in `Configuration.acceptsUntrustedFiles`.
    static let caps: [Cap] = [
        // A string or blob, stored or computed (zeroblob, printf, replace…).
        Cap(category: SQLITE_LIMIT_LENGTH, name: "SQLITE_LIMIT_LENGTH", value: 1_000_000),
        // The text of one statement: the file's CREATE statements too.
        Cap(category: SQLITE_LIMIT_SQL_LENGTH, name: "SQLITE_LIMIT_SQL_LENGTH", value: 100_000),
        // Columns of a table, view, index or result; terms of GROUP BY, ORDER BY.
        Cap(category: SQLITE_LIMIT_COLUMN, name: "SQLITE_LIMIT_COLUMN", value: 200),
        // security.html suggests 10: too few for a filter of a dozen conditions.
        Cap(category: SQLITE_LIMIT_EXPR_DEPTH, name: "SQLITE_LIMIT_EXPR_DEPTH", value: 100),
        Cap(category: SQLITE_LIMIT_COMPOUND_SELECT, name: "SQLITE_LIMIT_COMPOUND_SELECT", value: 10),
        // The size of a compiled statement (its program).
        Cap(category: SQLITE_LIMIT_VDBE_OP, name: "SQLITE_LIMIT_VDBE_OP", value: 25_000),
        // security.html suggests 8: too few for a JSON object of five members.
        Cap(category: SQLITE_LIMIT_FUNCTION_ARG, name: "SQLITE_LIMIT_FUNCTION_ARG", value: 32),
        Cap(category: SQLITE_LIMIT_ATTACHED, name: "SQLITE_LIMIT_ATTACHED", value: 0),
        Cap(category: SQLITE_LIMIT_LIKE_PATTERN_LENGTH, name: "SQLITE_LIMIT_LIKE_PATTERN_LENGTH", value: 50),
        // security.html suggests 10; Quarry splits its batch statements by
        // the connection's limit (SQLiteConnection.boundValueLimit), so fewer
        // only means more statements.
        Cap(category: SQLITE_LIMIT_VARIABLE_NUMBER, name: "SQLITE_LIMIT_VARIABLE_NUMBER", value: 999),
        Cap(category: SQLITE_LIMIT_TRIGGER_DEPTH, name: "SQLITE_LIMIT_TRIGGER_DEPTH", value: 10),
    ]

    /// Sets every cap on `handle`, before the file's schema is first read.
    /// sqlite3_limit cannot fail: a value above SQLite's compile-time
    /// maximum is lowered to it.
    static func apply(to handle: OpaquePointer) {
        for cap in caps { sqlite3_limit(handle, cap.category, cap.value) }
    }

    /// What `SQLITE_TOOBIG` means on a connection with these caps, appended
    /// to SQLite's "string or blob too big".
    static var tooBigExplanation: String {
        let length = caps.first { $0.category == SQLITE_LIMIT_LENGTH }?.value ?? 0
        let sqlLength = caps.first { $0.category == SQLITE_LIMIT_SQL_LENGTH }?.value ?? 0
        return "acceptsUntrustedFiles caps a string or blob at \(length) bytes (SQLITE_LIMIT_LENGTH) "
            + "and the text of a statement at \(sqlLength) bytes (SQLITE_LIMIT_SQL_LENGTH)"
    }
}
