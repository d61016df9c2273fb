// Statement+RowSource: SQLite's statement as the one row shape of the seam
// (Core/RowSource.swift): each cell is read from the live statement with the
// `sqlite3_column_*` functions, with no copy. The hot path of decoding.

import CSQLite

extension Statement: RowSource {
    var sourceSQL: String? { sql }

    @inline(__always)
    func isNull(at index: Int32) -> Bool { SQLiteCell.isNull(sqliteStatement, index) }

    @inline(__always)
    func integer(at index: Int32) -> Int64? { SQLiteCell.integer(sqliteStatement, index) }

    @inline(__always)
    func real(at index: Int32) -> Double? { SQLiteCell.real(sqliteStatement, index) }

    @inline(__always)
    func text(at index: Int32) -> String? { SQLiteCell.text(sqliteStatement, index) }

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
            isNullRead: { statement, index in SQLiteCell.isNull(OpaquePointer(statement), index) },
            integerRead: { statement, index, value in
                guard let integer = SQLiteCell.integer(OpaquePointer(statement), index) else { return false }
                value.pointee = integer
                return true
            },
            realRead: { statement, index, value in
                guard let real = SQLiteCell.real(OpaquePointer(statement), index) else { return false }
                value.pointee = real
                return true
            },
            textRead: { statement, index, text in
                text.initializeMemory(as: String?.self, to: SQLiteCell.text(OpaquePointer(statement), index))
            })
    }
}

/// The typed reads of a cell of a `sqlite3_stmt`, shared by the statement's
/// methods and its ``CellReads``: each answers nil unless the cell has that
/// storage class.
private enum SQLiteCell {
    @inline(__always)
    static func isNull(_ statement: OpaquePointer, _ index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    @inline(__always)
    static func integer(_ statement: OpaquePointer, _ index: Int32) -> Int64? {
        sqlite3_column_type(statement, index) == SQLITE_INTEGER ? sqlite3_column_int64(statement, index) : nil
    }

    @inline(__always)
    static func real(_ statement: OpaquePointer, _ index: Int32) -> Double? {
        sqlite3_column_type(statement, index) == SQLITE_FLOAT ? sqlite3_column_double(statement, index) : nil
    }

    @inline(__always)
    static func text(_ statement: OpaquePointer, _ index: Int32) -> String? {
        sqlite3_column_type(statement, index) == SQLITE_TEXT ? String.fromColumnText(statement, index) : nil
    }
}
