// DatabaseValue+SQLLiteral: the one place where Quarry writes a value into SQL text.
//
// Values are always bound (`?`), except where SQLite forbids parameters: the
// DEFAULT clause of a column definition in CREATE TABLE and ALTER TABLE
// (https://www.sqlite.org/lang_createtable.html#the_default_clause), and the
// module arguments of CREATE VIRTUAL TABLE (https://www.sqlite.org/lang_createvtab.html),
// where FullTextSearch/FTS5TableDefinition.swift writes the options of FTS5
// tables (tokenize=, content=, content_rowid=, prefix=) and the 'delete' and
// 'rebuild' commands of its synchronization triggers. Those two users render
// values with `sqlLiteral`, and nothing else in Quarry may render a value as
// SQL text.

import Foundation

extension DatabaseValue {
    /// The value as an SQL literal (<https://www.sqlite.org/lang_expr.html#literal_values_constants_>),
    /// usable where bound parameters are not allowed: `NULL`, `42`, `-1.5`,
    /// `'it''s'`, `X'01FF'`.
    ///
    /// This is Quarry's **only** literal renderer. It is used for the DEFAULT
    /// clause of column definitions and the options of FTS5 tables, which
    /// cannot hold parameters; everywhere else values are bound.
    ///
    /// - Text: single quotes, embedded quotes doubled. Text that contains NUL
    ///   characters, which an SQL string literal cannot hold, is rendered as
    ///   `(CAST(X'…' AS TEXT))` from its UTF-8 bytes.
    /// - Real: the shortest representation that reads back to the same
    ///   `Double`; infinities as `9e999` and `-9e999`, which SQLite reads as
    ///   ±Inf; NaN as `NULL`, which is how SQLite stores NaN.
    /// - Blob: `X'…'` with uppercase hexadecimal digits.
    var sqlLiteral: String {
        switch self {
        case .null:
            return "NULL"
        case .integer(let value):
            return String(value)
        case .real(let value):
            if value.isNaN { return "NULL" }
            if value.isInfinite { return value < 0 ? "-9e999" : "9e999" }
            // "\(Double)" is the shortest round-tripping form: 1.0, 1e-05, 1.5e+300.
            return "\(value)"
        case .text(let value):
            if value.utf8.contains(0) {
                return "(CAST(" + DatabaseValue.hexLiteral(Data(value.utf8)) + " AS TEXT))"
            }
            return value.quoted(by: "'")
        case .blob(let data):
            return DatabaseValue.hexLiteral(data)
        }
    }

    /// `X'…'` for `data`.
    private static func hexLiteral(_ data: Data) -> String {
        "X'" + hexDigits(data) + "'"
    }
}
