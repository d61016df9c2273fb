// Database+ColumnMetadata: what SQLite tells of a column of a table beyond
// `PRAGMA table_xinfo` (sqlite3_table_column_metadata), for the record
// layer's table schemas (Records/TableSchema.swift).

import CSQLite

extension Database {
    /// Whether `column` of `table` is an `INTEGER PRIMARY KEY AUTOINCREMENT`
    /// (<https://www.sqlite.org/c3ref/table_column_metadata.html>); false
    /// when SQLite cannot tell (no such table or column).
    func isAutoIncrement(column: String, table: String) -> Bool {
        var autoIncrement: Int32 = 0
        if sqlite3_table_column_metadata(sqliteConnection, nil, table, column, nil, nil, nil, nil, &autoIncrement)
            != SQLITE_OK
        {
            autoIncrement = 0
        }
        return autoIncrement != 0
    }
}
