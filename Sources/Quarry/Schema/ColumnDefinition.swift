// ColumnDefinition: one column of a CREATE TABLE or ALTER TABLE ADD COLUMN,
// with its constraints (https://www.sqlite.org/lang_createtable.html#tablecoldef).
//
// Modifiers return the definition itself, so they chain:
// `t.column("score", .integer).notNull().defaults(to: 0)`.

/// Whether a generated column is computed when read or stored on write
/// (<https://www.sqlite.org/gencol.html>).
public enum GeneratedColumnQualification: String, Sendable {
    /// Computed when read; takes no space. The only kind ALTER TABLE ADD COLUMN accepts.
    case virtual = "VIRTUAL"
    /// Computed on write and stored; cannot be added by ALTER TABLE.
    case stored = "STORED"
}

/// A column being defined in ``Database/create(table:options:body:)`` or
/// ``Database/alter(table:body:)``.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull().collate("NOCASE")
///     t.column("score", .integer).notNull().defaults(to: 0).check(sql: "score >= 0")
///     t.column("teamID", .integer).references("team", onDelete: .cascade).indexed()
/// }
/// // CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT,
/// //   "name" TEXT NOT NULL COLLATE "NOCASE",
/// //   "score" INTEGER NOT NULL CHECK (score >= 0) DEFAULT 0,
/// //   "teamID" INTEGER REFERENCES "team" ON DELETE CASCADE)
/// // CREATE INDEX "index_player_on_teamID" ON "player"("teamID")
/// ```
///
/// SQL fragments (`check(sql:)`, `defaults(sql:)`, `generatedAs(sql:_:)`) are
/// written into the schema as is: they must come from your code, never from
/// user input. Values given to ``defaults(to:)`` are rendered as SQL literals.
public final class ColumnDefinition {
    /// The column name.
    public let name: String
    var type: DatabaseColumnType?
    /// nil: not a primary key; otherwise whether it is AUTOINCREMENT.
    private var primaryKeyAutoincrement: Bool?
    /// nil: nullable; otherwise the `ON CONFLICT` policy of `NOT NULL`, if any.
    private var notNullConflict: ConflictResolution??
    /// nil: not unique; otherwise the `ON CONFLICT` policy of `UNIQUE`, if any.
    private var uniqueConflict: ConflictResolution??
    private var checks: [String] = []
    /// The error of a check expression that could not be written as SQL,
    /// thrown when the table is created.
    var invalidCheck: (any Error)?
    private enum Default {
        case value(Result<DatabaseValue, any Error>)
        case sql(String)
    }
    private var defaultClause: Default?
    private var collation: String?
    private var reference: ForeignKeyClause?
    private var generated: (sql: String, qualification: GeneratedColumnQualification)?
    /// Whether the column is declared PRIMARY KEY.
    var isPrimaryKey: Bool { primaryKeyAutoincrement != nil }
    /// Whether an index on the column is created with the table.
    private(set) var isIndexed = false

    init(name: String, type: DatabaseColumnType?) {
        self.name = name
        self.type = type
    }

    /// Makes the column the primary key: `PRIMARY KEY`, or
    /// `PRIMARY KEY AUTOINCREMENT` (<https://www.sqlite.org/autoinc.html>),
    /// which needs an `.integer` column.
    @discardableResult
    public func primaryKey(autoincrement: Bool = false) -> Self {
        primaryKeyAutoincrement = autoincrement
        return self
    }

    /// `NOT NULL`: the column refuses NULL; with `onConflict`, `NOT NULL ON
    /// CONFLICT <policy>` (<https://www.sqlite.org/lang_conflict.html>).
    @discardableResult
    public func notNull(onConflict conflictResolution: ConflictResolution? = nil) -> Self {
        notNullConflict = .some(conflictResolution)
        return self
    }

    /// `UNIQUE`: no two rows have the same non-NULL value; with `onConflict`,
    /// `UNIQUE ON CONFLICT <policy>`.
    @discardableResult
    public func unique(onConflict conflictResolution: ConflictResolution? = nil) -> Self {
        uniqueConflict = .some(conflictResolution)
        return self
    }

    /// `CHECK (sql)`: rows must satisfy the SQL condition, such as `"score >= 0"`.
    @discardableResult
    public func check(sql: String) -> Self {
        checks.append(sql)
        return self
    }


    /// `DEFAULT literal`: the value the column takes when an INSERT omits it.
    ///
    /// SQLite does not accept bound parameters in a schema, so the value is
    /// rendered as an SQL literal (`0`, `'it''s'`, `X'01'`) by Quarry's single
    /// literal renderer.
    ///
    /// ```swift
    /// t.column("status", .text).notNull().defaults(to: "active")
    /// // "status" TEXT NOT NULL DEFAULT 'active'
    /// ```
    @discardableResult
    public func defaults(to value: some DatabaseValueConvertible) -> Self {
        defaultClause = .value(Result { try value.databaseValue })
        return self
    }

    /// `DEFAULT (sql)`: the column's default is an SQL expression, such as
    /// `"CURRENT_TIMESTAMP"` (<https://www.sqlite.org/lang_createtable.html#the_default_clause>).
    @discardableResult
    public func defaults(sql: String) -> Self {
        defaultClause = .sql(sql)
        return self
    }

    /// `COLLATE name`: how the column's text compares
    /// (<https://www.sqlite.org/datatype3.html#collation>), such as `"NOCASE"`.
    @discardableResult
    public func collate(_ collation: String) -> Self {
        self.collation = collation
        return self
    }

    /// `COLLATE name` with a ``Collation``: `.collate(.nocase)`.
    @discardableResult
    public func collate(_ collation: Collation) -> Self {
        collate(collation.name)
    }

    /// `REFERENCES table(column)`: a foreign key to `table`
    /// (<https://www.sqlite.org/foreignkeys.html>). Without `column`, the
    /// key refers to the primary key of `table`.
    ///
    /// - parameters:
    ///   - table: the referenced table.
    ///   - column: the referenced column; the primary key of `table` when nil.
    ///   - onDelete: the action when the referenced row is deleted.
    ///   - onUpdate: the action when the referenced key changes.
    ///   - deferred: `DEFERRABLE INITIALLY DEFERRED`: the constraint is
    ///     checked at commit instead of after each statement.
    @discardableResult
    public func references(
        _ table: String, column: String? = nil, onDelete: ForeignKeyAction? = nil,
        onUpdate: ForeignKeyAction? = nil, deferred: Bool = false
    ) -> Self {
        reference = ForeignKeyClause(
            table: table, columns: column.map { [$0] } ?? [], onDelete: onDelete, onUpdate: onUpdate,
            deferred: deferred)
        return self
    }

    /// `GENERATED ALWAYS AS (sql) VIRTUAL|STORED`: a column computed from
    /// the others (<https://www.sqlite.org/gencol.html>).
    @discardableResult
    public func generatedAs(sql: String, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generated = (sql, qualification)
        return self
    }

    /// Creates an index on the column, named `index_<table>_on_<column>`,
    /// right after the table (or the added column).
    @discardableResult
    public func indexed() -> Self {
        isIndexed = true
        return self
    }

    /// The column definition SQL: `"name" TYPE constraints…`.
    /// ` ON CONFLICT REPLACE`, or nothing.
    private static func onConflictSQL(_ conflictResolution: ConflictResolution?) -> String {
        conflictResolution.map { " ON CONFLICT " + $0.rawValue } ?? ""
    }

    /// The column definition in `dialect`: its type, primary key clause and
    /// literals are the dialect's (``SQLDialect/columnTypeSQL(_:)``,
    /// ``SQLDialect/primaryKeyClause(autoincrement:type:)``), and it throws
    /// for what the dialect has not (``SQLDialect/checkColumnDefinition(_:hasConstraintConflictClauses:isVirtualGenerated:)``).
    func sql(_ dialect: any SQLDialect = SQLiteDialect()) throws -> String {
        if let invalidCheck { throw invalidCheck }
        var parts = [name.quotedDatabaseIdentifier]
        if let type { parts.append(dialect.columnTypeSQL(type)) }
        if let primaryKeyAutoincrement {
            parts.append(dialect.primaryKeyClause(autoincrement: primaryKeyAutoincrement, type: type))
        }
        try dialect.checkColumnDefinition(
            name, hasConstraintConflictClauses: (notNullConflict ?? nil) != nil || (uniqueConflict ?? nil) != nil,
            isVirtualGenerated: generated?.qualification == .virtual)
        if let notNullConflict { parts.append("NOT NULL" + Self.onConflictSQL(notNullConflict)) }
        if let uniqueConflict { parts.append("UNIQUE" + Self.onConflictSQL(uniqueConflict)) }
        for check in checks { parts.append("CHECK (\(check))") }
        switch defaultClause {
        case .value(let result)?:
            do {
                parts.append("DEFAULT " + dialect.literal(try result.get(), columnType: type))
            } catch {
                throw DatabaseError.misuse("the default value of column \(name) cannot be encoded: \(error)")
            }
        case .sql(let sql)?:
            parts.append("DEFAULT (\(sql))")
        case nil:
            break
        }
        if let collation { parts.append("COLLATE " + collation.quotedDatabaseIdentifier) }
        if let reference { parts.append(reference.sql()) }
        if let generated {
            parts.append("GENERATED ALWAYS AS (\(generated.sql)) \(generated.qualification.rawValue)")
        }
        return parts.joined(separator: " ")
    }
}

/// The `REFERENCES` clause of a column or table foreign key
/// (<https://www.sqlite.org/syntax/foreign-key-clause.html>).
struct ForeignKeyClause {
    var table: String
    var columns: [String]
    var onDelete: ForeignKeyAction?
    var onUpdate: ForeignKeyAction?
    var deferred: Bool

    func sql() -> String {
        var text = "REFERENCES " + table.quotedDatabaseIdentifier
        if !columns.isEmpty {
            text += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        }
        if let onDelete { text += " ON DELETE " + onDelete.rawValue }
        if let onUpdate { text += " ON UPDATE " + onUpdate.rawValue }
        if deferred { text += " DEFERRABLE INITIALLY DEFERRED" }
        return text
    }
}
