// DatabaseValue+SQLite: reading a DatabaseValue from a column of the
// current row of an SQLite statement (sqlite3_column_*), in SQLite's room.

import CSQLite
import Foundation

extension DatabaseValue {
    /// Reads the value of column `index` of the current row of a statement.
    ///
    /// Text is read by its byte length, so strings with NUL characters survive.
    init(sqliteStatement: OpaquePointer, index: Int32) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_column_int64(sqliteStatement, index))
        case SQLITE_FLOAT:
            self = .real(sqlite3_column_double(sqliteStatement, index))
        case SQLITE_TEXT:
            self = .text(String.fromColumnText(sqliteStatement, index))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(sqliteStatement, index))
            if count > 0, let bytes = sqlite3_column_blob(sqliteStatement, index) {
                self = .blob(Data(bytes: bytes, count: count))
            } else {
                self = .blob(Data())
            }
        default:
            self = .null
        }
    }
}

extension String {
    /// Reads a text column by its byte length (it may contain NUL characters).
    static func fromColumnText(_ sqliteStatement: OpaquePointer, _ index: Int32) -> String {
        // sqlite3_column_text must be called before sqlite3_column_bytes
        // (https://www.sqlite.org/c3ref/column_blob.html).
        guard let text = sqlite3_column_text(sqliteStatement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(sqliteStatement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}
