// RecordStatementSQL: the SQL text of the statements records run — INSERT,
// UPSERT, UPDATE and DELETE by key, SELECT by key — in the same layer as the
// query interface's SQL, so that identifier quoting, placeholders, RETURNING
// and upsert syntax are written in one place.
//
// Every value is a `?` placeholder: the records layer binds values by position.

enum RecordStatementSQL {
    /// `"a", "b"` for columns, or `*` for none.
    static func selectionList(_ columns: [String]) -> String {
        columns.isEmpty ? "*" : columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
    }

    /// `"a" = ? AND "b" = ?`.
    static func keyCondition(_ columns: [String]) -> String {
        columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND ")
    }

    /// ` RETURNING <selection>`, or nothing for nil
    /// (<https://www.sqlite.org/lang_returning.html>).
    static func returningClause(_ selection: String?) -> String {
        selection.map { " RETURNING " + $0 } ?? ""
    }

    /// `INSERT [OR ...] INTO "t" ("a", "b") VALUES (?, ?) [ON CONFLICT DO UPDATE SET "b" = excluded."b"] [RETURNING ...]`
    /// (<https://www.sqlite.org/lang_insert.html>, <https://www.sqlite.org/lang_upsert.html>).
    ///
    /// - parameter upsertUpdating: the columns an upsert updates on conflict;
    ///   nil for a plain insert.
    /// - parameter upsertTarget: the conflict target of such an upsert, which
    ///   PostgreSQL requires (SQLite's upsert without target catches a
    ///   conflict on any unique key).
    /// - parameter conflictClause: the SQL of an `ON CONFLICT` clause
    ///   (`UpsertClause`), used instead of `upsertUpdating`.
    /// - parameter rowCount: the number of rows of the VALUES clause, each
    ///   `(?, ?)`: more than one for `insertAll`.
    /// - parameter dialect: spells the conflict policy: on PostgreSQL, which
    ///   has no `OR` clause, `.ignore` is written `ON CONFLICT DO NOTHING`;
    ///   ``SQLDialect/checkConflictResolution(_:insert:)`` refuses the other
    ///   policies first.
    static func insert(
        into table: String, columns: [String], conflict: ConflictResolution, upsertUpdating: [String]?, returning: String?,
        conflictClause: String? = nil, rowCount: Int = 1, upsertTarget: [String] = [],
        dialect: any SQLDialect = SQLiteDialect()
    ) -> String {
        var sql = "INSERT \(dialect.conflictResolutionPrefix(conflict))INTO \(table.quotedDatabaseIdentifier) "
        if columns.isEmpty {
            sql += "DEFAULT VALUES"
        } else {
            let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
            sql += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ") VALUES "
                + Array(repeating: row, count: max(rowCount, 1)).joined(separator: ", ")
            if let conflictClause {
                sql += conflictClause
            } else if let upsertUpdating, !upsertUpdating.isEmpty {
                sql += " ON CONFLICT"
                if !upsertTarget.isEmpty {
                    sql += " (" + upsertTarget.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
                }
                sql += " DO UPDATE SET "
                    + upsertUpdating.map { "\($0.quotedDatabaseIdentifier) = excluded.\($0.quotedDatabaseIdentifier)" }
                    .joined(separator: ", ")
            } else {
                sql += dialect.insertConflictClause(conflict)
            }
        }
        return sql + returningClause(returning)
    }

    /// `UPDATE [OR ...] "t" SET "a" = ?, "b" = ? WHERE "id" = ? [RETURNING ...]`.
    static func update(
        _ table: String, setting columns: [String], keyColumns: [String], conflict: ConflictResolution, returning: String?,
        dialect: any SQLDialect = SQLiteDialect()
    ) -> String {
        "UPDATE \(dialect.conflictResolutionPrefix(conflict))\(table.quotedDatabaseIdentifier) SET "
            + columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")
            + " WHERE " + keyCondition(keyColumns) + returningClause(returning)
    }

    /// `DELETE FROM "t" [WHERE "id" = ?] [RETURNING ...]`; no key columns deletes all rows.
    static func delete(from table: String, keyColumns: [String], returning: String?) -> String {
        var sql = "DELETE FROM \(table.quotedDatabaseIdentifier)"
        if !keyColumns.isEmpty { sql += " WHERE " + keyCondition(keyColumns) }
        return sql + returningClause(returning)
    }

    /// `SELECT <selection> FROM "t" [WHERE "id" = ?] [LIMIT 1]`.
    static func select(_ selection: String, from table: String, keyColumns: [String] = [], limitOne: Bool = false) -> String {
        var sql = "SELECT \(selection) FROM \(table.quotedDatabaseIdentifier)"
        if !keyColumns.isEmpty { sql += " WHERE " + keyCondition(keyColumns) }
        if limitOne { sql += " LIMIT 1" }
        return sql
    }

    /// `SELECT <selection> FROM "t" WHERE "c" IN (?, ?, ...)`.
    static func select(_ selection: String, from table: String, column: String, valueCount: Int) -> String {
        "SELECT \(selection) FROM \(table.quotedDatabaseIdentifier) WHERE \(column.quotedDatabaseIdentifier) IN ("
            + Array(repeating: "?", count: valueCount).joined(separator: ", ") + ")"
    }
}
