// UpsertClause: the `ON CONFLICT …` clause of a controlled upsert
// (https://www.sqlite.org/lang_upsert.html): its conflict target, its
// `DO NOTHING` or `DO UPDATE SET … [WHERE …]`. The query interface builds it
// from key paths (QueryInterface/MutablePersistableRecord+Upsert.swift); the
// records layer appends it to the record's INSERT.

/// What an upsert does on a conflict.
struct UpsertClause: Sendable {
    /// The columns of the uniqueness constraint to handle; empty for any.
    var conflictTarget: [String]
    /// `DO NOTHING` instead of `DO UPDATE`.
    var doesNothing = false
    /// The assignments asked for, applied after the default ones.
    var assignments: [SQLAssignment] = []
    /// Whether the inserted columns that are not assigned explicitly (nor in
    /// the primary key or the conflict target) are overwritten with the
    /// inserted values (`.allColumns`), or left as they are.
    var overwritesOtherColumns = true
    /// The `WHERE` of `DO UPDATE`: the update happens only where it holds.
    var condition: SQLExpression?
}

extension SQLGenerationContext {
    /// ` ON CONFLICT ("a") DO UPDATE SET … [WHERE …]` for a record whose INSERT
    /// writes `insertedColumns` into `table`, with primary key `primaryKey`.
    ///
    /// On PostgreSQL, a column of the existing row is qualified by the table
    /// name (unqualified, it is ambiguous with `excluded`'s), and `DO UPDATE`
    /// without a conflict target targets the primary key.
    func upsertClauseSQL(
        _ clause: UpsertClause, table: String, insertedColumns: [String], primaryKey: [String]
    ) throws -> String {
        guard dialect.features.contains(.qualifiesUpsertColumns) else {
            return try upsertClauseText(clause, insertedColumns: insertedColumns, primaryKey: primaryKey)
        }
        return try qualifyingCurrentColumns(with: table) {
            try upsertClauseText(clause, insertedColumns: insertedColumns, primaryKey: primaryKey)
        }
    }

    private func upsertClauseText(_ clause: UpsertClause, insertedColumns: [String], primaryKey: [String]) throws -> String {
        var text = " ON CONFLICT"
        // SQLite's DO UPDATE without a target catches a conflict on any unique
        // key; PostgreSQL's needs one: the primary key then.
        var target = clause.conflictTarget
        if target.isEmpty, !clause.doesNothing, dialect.features.contains(.upsertRequiresConflictTarget) { target = primaryKey }
        if !target.isEmpty {
            text += " (" + target.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        }
        if clause.doesNothing { return text + " DO NOTHING" }
        var assignments = clause.assignments
        if clause.overwritesOtherColumns {
            let kept = Set((primaryKey + clause.conflictTarget + assignments.map(\.column)).map { $0.lowercased() })
            for column in insertedColumns where !kept.contains(column.lowercased()) {
                assignments.append(SQLAssignment(column: column, value: SQLExpression(.column(column, .excluded))))
            }
        }
        if assignments.isEmpty {
            // Nothing to change, but RETURNING must still return the row
            // that is already there: assign a key column to itself.
            guard let column = primaryKey.first ?? clause.conflictTarget.first ?? insertedColumns.first else {
                throw DatabaseError.misuse("an upsert needs a column to update")
            }
            assignments = [SQLAssignment(column: column, value: .column(column))]
        }
        text += " DO UPDATE SET "
        text += try assignments.map { $0.column.quotedDatabaseIdentifier + " = " + (try sql($0.value)) }.joined(separator: ", ")
        if let condition = clause.condition {
            text += " WHERE " + (try sql(condition))
        }
        return text
    }
}
