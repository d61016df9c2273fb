// Statement+RowSource: SQLite's statement as the one row shape of the seam
// (Core/RowSource.swift): each cell is read from the live statement with the
// `sqlite3_column_*` functions, with no copy. The hot path of decoding.

import CSQLite

extension Statement: RowSource {
    var sourceSQL: String? { sql }

    @inline(__always)
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL
    }

    @inline(__always)
    func integer(at index: Int32) -> Int64? {
        sqlite3_column_type(sqliteStatement, index) == SQLITE_INTEGER ? sqlite3_column_int64(sqliteStatement, index) : nil
    }

    @inline(__always)
    func real(at index: Int32) -> Double? {
        sqlite3_column_type(sqliteStatement, index) == SQLITE_FLOAT ? sqlite3_column_double(sqliteStatement, index) : nil
    }

    @inline(__always)
    func text(at index: Int32) -> String? {
        sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT ? String.fromColumnText(sqliteStatement, index) : nil
    }

    func databaseValue(at index: Int32) -> DatabaseValue {
        DatabaseValue(sqliteStatement: sqliteStatement, index: index)
    }

    /// Through the type's SQLite fast path (``DatabaseValueConvertible/fromStatement(_:index:)``).
    @inline(__always)
    func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) -> Value? {
        Value.fromStatement(sqliteStatement, index: index)
    }

    /// Over the `sqlite3_stmt` itself: no Swift object is reached per cell.
    var cellReads: CellReads {
        CellReads(
            context: UnsafeMutableRawPointer(sqliteStatement),
            isNullRead: { statement, index in sqlite3_column_type(OpaquePointer(statement), index) == SQLITE_NULL },
            integerRead: { statement, index, value in
                let statement = OpaquePointer(statement)
                guard sqlite3_column_type(statement, index) == SQLITE_INTEGER else { return false }
                value.pointee = sqlite3_column_int64(statement, index)
                return true
            },
            realRead: { statement, index, value in
                let statement = OpaquePointer(statement)
                guard sqlite3_column_type(statement, index) == SQLITE_FLOAT else { return false }
                value.pointee = sqlite3_column_double(statement, index)
                return true
            },
            textRead: { statement, index, text in
                let statement = OpaquePointer(statement)
                let value = sqlite3_column_type(statement, index) == SQLITE_TEXT ? String.fromColumnText(statement, index) : nil
                text.initializeMemory(as: String?.self, to: value)
            })
    }
}
