// DELETE and UPDATE statements for requests (batch writes), with RETURNING.
//
// A request with a plain filter becomes `DELETE FROM t WHERE filter`. A
// request with joins, ordering plus limit, or grouping selects the primary
// keys of the rows to change in a subquery, which works whether or not SQLite
// was built with SQLITE_ENABLE_UPDATE_DELETE_LIMIT.

/// One `SET column = expression` of an UPDATE.
struct SQLAssignment: Sendable {
    var column: String
    var value: SQLExpression
}

extension SQLGenerationContext {
    /// `DELETE FROM table WHERE ... [RETURNING ...]`.
    func deleteSQL(_ query: SQLSelectQuery, returning: [SQLSelectable]?) throws -> String {
        let table = try writableTable(of: query, operation: "delete")
        var text = try withClauseSQL(query.commonTableExpressions)
        text += "DELETE FROM " + table.quotedDatabaseIdentifier
        if let condition = try rowCondition(of: query, table: table) {
            text += " WHERE " + condition
        }
        return text + (try returningClause(returning))
    }

    /// `UPDATE table SET ... WHERE ... [RETURNING ...]`.
    func updateSQL(
        _ query: SQLSelectQuery, assignments: [SQLAssignment], conflictResolution: String?, returning: [SQLSelectable]?
    ) throws -> String {
        let table = try writableTable(of: query, operation: "update")
        guard !assignments.isEmpty else {
            throw DatabaseError.misuse("updateAll needs at least one assignment")
        }
        var text = try withClauseSQL(query.commonTableExpressions)
        text += "UPDATE "
        if let conflictResolution { text += "OR \(conflictResolution) " }
        text += table.quotedDatabaseIdentifier + " SET "
        text += try assignments.map { $0.column.quotedDatabaseIdentifier + " = " + (try sql($0.value)) }.joined(separator: ", ")
        if let condition = try rowCondition(of: query, table: table) {
            text += " WHERE " + condition
        }
        return text + (try returningClause(returning))
    }

    private func writableTable(of query: SQLSelectQuery, operation: String) throws -> String {
        guard let table = query.tableName, query.alias == nil else {
            throw DatabaseError.misuse("cannot \(operation) the rows of a compound, aliased, or subquery request")
        }
        return table
    }

    /// The WHERE condition that picks the rows the request matches.
    private func rowCondition(of query: SQLSelectQuery, table: String) throws -> String? {
        let needsSubquery = !query.joins.isEmpty || query.limit != nil || query.offset != nil
            || !query.groupBy.isEmpty || query.having != nil || query.isDistinct
        if !needsSubquery {
            return try query.filter.map(sql)
        }
        guard let db else {
            throw DatabaseError.misuse("a batch write with joins, limit or grouping needs a database connection")
        }
        let key = try SQLSchemaLookup.primaryKey(db, table: table)
        var keys = query
        keys.commonTableExpressions = []
        keys.selection = key.map { SQLSelectable(expression: .column($0), alias: nil) }
        let keyList = key.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let target = key.count == 1 ? keyList : "(" + keyList + ")"
        return target + " IN (" + (try selectSQL(keys)) + ")"
    }

    private func returningClause(_ returning: [SQLSelectable]?) throws -> String {
        guard let returning else { return "" }
        try db?.require(.returning, "RETURNING (a request's …AndFetch methods)")
        if returning.isEmpty { return " RETURNING *" }
        return " RETURNING " + (try returning.map { item in
            var entry = try sql(item.expression)
            if let alias = item.alias { entry += " AS " + alias.quotedDatabaseIdentifier }
            return entry
        }.joined(separator: ", "))
    }
}
