// TableDefinition: the body of `db.create(table:)`, which collects columns and
// table constraints and renders the CREATE TABLE statement
// (https://www.sqlite.org/lang_createtable.html).

/// The columns and constraints of a table created with
/// ``Database/create(table:options:body:)``.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull()
///     t.column("score", .integer).notNull().defaults(to: 0)
///     t.belongsTo("team", onDelete: .setNull)
/// }
/// // CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL,
/// //   "score" INTEGER NOT NULL DEFAULT 0, "team_id" INTEGER REFERENCES "team"("id") ON DELETE SET NULL)
/// // CREATE INDEX "index_player_on_team_id" ON "player"("team_id")
/// ```
public final class TableDefinition {
    /// The name of the table being created.
    public let name: String
    let options: TableOptions
    private enum Item {
        case column(ColumnDefinition)
        case literalColumn(String)
        case belongsTo(BelongsTo)
        case constraint(String)
        case foreignKey(columns: [String], clause: ForeignKeyClause)
    }
    private struct BelongsTo {
        var column: ColumnDefinition
        var table: String
        var onDelete: ForeignKeyAction?
        var onUpdate: ForeignKeyAction?
        var deferred: Bool
    }
    private var items: [Item] = []
    /// The error of a check expression that could not be written as SQL,
    /// thrown when the table is created.
    var invalidCheck: (any Error)?

    init(name: String, options: TableOptions) {
        self.name = name
        self.options = options
    }

    /// Adds a column: `"name" TYPE`. Chain modifiers on the result
    /// (see ``ColumnDefinition``). The type may be omitted (no affinity).
    @discardableResult
    public func column(_ name: String, _ type: DatabaseColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        items.append(.column(column))
        return column
    }

    /// Adds an `INTEGER PRIMARY KEY AUTOINCREMENT` column: an alias of the
    /// rowid whose values are never reused, even after deletions
    /// (<https://www.sqlite.org/autoinc.html>).
    @discardableResult
    public func autoIncrementedPrimaryKey(_ name: String) -> ColumnDefinition {
        column(name, .integer).primaryKey(autoincrement: true)
    }

    /// Adds a single-column primary key: `"name" TYPE PRIMARY KEY`.
    ///
    /// An `.integer` primary key is the rowid (<https://www.sqlite.org/lang_createtable.html#rowid>).
    @discardableResult
    public func primaryKey(_ name: String, _ type: DatabaseColumnType) -> ColumnDefinition {
        column(name, type).primaryKey()
    }

    /// Adds a primary key made of several columns defined with ``column(_:_:)``:
    /// `PRIMARY KEY ("a", "b")`.
    public func primaryKey(_ columns: [String]) {
        items.append(.constraint("PRIMARY KEY (" + TableDefinition.columnList(columns) + ")"))
    }

    /// Adds a unique constraint on several columns: `UNIQUE ("a", "b")`.
    public func uniqueKey(_ columns: [String]) {
        items.append(.constraint("UNIQUE (" + TableDefinition.columnList(columns) + ")"))
    }

    /// Adds a table check constraint: `CHECK (sql)`, such as `"start <= end"`.
    /// The SQL must come from your code, never from user input.
    public func check(sql: String) {
        items.append(.constraint("CHECK (\(sql))"))
    }

    /// Adds a table constraint written in SQL, such as `"UNIQUE (a, b) ON CONFLICT REPLACE"`.
    /// The SQL must come from your code, never from user input.
    public func constraint(sql: String) {
        items.append(.constraint(sql))
    }

    /// Adds a column defined in SQL, such as `"name TEXT NOT NULL COLLATE NOCASE"`.
    /// The SQL must come from your code, never from user input.
    public func column(literal sql: String) {
        items.append(.literalColumn(sql))
    }

    /// Adds a foreign key on several columns:
    /// `FOREIGN KEY ("a", "b") REFERENCES "table"("x", "y")`.
    /// Without `destinationColumns`, the key refers to the primary key of `table`.
    public func foreignKey(
        _ columns: [String], references table: String, columns destinationColumns: [String] = [],
        onDelete: ForeignKeyAction? = nil, onUpdate: ForeignKeyAction? = nil, deferred: Bool = false
    ) {
        items.append(.foreignKey(
            columns: columns,
            clause: ForeignKeyClause(
                table: table, columns: destinationColumns, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)))
    }

    /// Adds a column that refers to a row of another table, and an index on it.
    ///
    /// `t.belongsTo("team")` adds the column `team_id`, a foreign key to the
    /// primary key of the table `team`, and the index `index_<table>_on_team_id`:
    ///
    /// ```swift
    /// t.belongsTo("team", onDelete: .setNull)
    /// // "team_id" INTEGER REFERENCES "team"("id") ON DELETE SET NULL
    /// ```
    ///
    /// When the referenced table exists (or is the table being created), the
    /// column takes the name and declared type of its single-column primary
    /// key; otherwise the key refers to `id` with type INTEGER.
    ///
    /// - parameters:
    ///   - name: the name of the relation; the column is `<name>_id`.
    ///   - table: the referenced table; `name` by default.
    ///   - onDelete: the action when the referenced row is deleted.
    ///   - onUpdate: the action when the referenced key changes.
    ///   - deferred: `DEFERRABLE INITIALLY DEFERRED`: the constraint is
    ///     checked at commit instead of after each statement.
    ///   - indexed: whether to create the index (the default). SQLite does
    ///     not index foreign keys by itself, and deletions in the referenced
    ///     table scan the referencing table without one.
    @discardableResult
    public func belongsTo(
        _ name: String, inTable table: String? = nil, onDelete: ForeignKeyAction? = nil,
        onUpdate: ForeignKeyAction? = nil, deferred: Bool = false, indexed: Bool = true
    ) -> ColumnDefinition {
        let column = ColumnDefinition(name: name + "_id", type: nil)
        if indexed { column.indexed() }
        items.append(.belongsTo(BelongsTo(
            column: column, table: table ?? name, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)))
        return column
    }

    /// The statements that create the table: CREATE TABLE, then one CREATE
    /// INDEX per indexed column, in `dialect` (the connection's by default);
    /// `db` looks up the keys `belongsTo` refers to.
    func statements(_ db: Database, dialect: (any SQLDialect)? = nil) throws -> [String] {
        let dialect = dialect ?? db.sqlDialect
        var definitions: [String] = []
        var constraints: [String] = []
        if let invalidCheck { throw invalidCheck }
        var indexedColumns: [String] = []
        for item in items {
            switch item {
            case .column(let column):
                definitions.append(try column.sql(dialect))
                if column.isIndexed { indexedColumns.append(column.name) }
            case .literalColumn(let sql):
                definitions.append(sql)
            case .constraint(let sql):
                constraints.append(sql)
            case .foreignKey(let columns, let clause):
                constraints.append("FOREIGN KEY (" + TableDefinition.columnList(columns) + ") " + clause.sql())
            case .belongsTo(let relation):
                let (keyColumn, keyType) = try referencedKey(of: relation.table, db)
                let column = relation.column
                column.type = keyType
                column.references(
                    relation.table, column: keyColumn, onDelete: relation.onDelete, onUpdate: relation.onUpdate,
                    deferred: relation.deferred)
                definitions.append(try column.sql(dialect))
                if relation.column.isIndexed { indexedColumns.append(column.name) }
            }
        }
        if definitions.isEmpty {
            throw DatabaseError.misuse("table \(name) must have at least one column")
        }
        // Table constraints come after every column, as SQLite requires.
        definitions += constraints
        var create = Database.createClause(
            "TABLE", name, temporary: options.contains(.temporary), ifNotExists: options.contains(.ifNotExists))
        create += " (" + definitions.joined(separator: ", ") + ")"
        var tableOptions: [String] = []
        try dialect.checkTableOptions(name, options)
        if options.contains(.withoutRowID) { tableOptions.append("WITHOUT ROWID") }
        if options.contains(.strict) { tableOptions.append("STRICT") }
        if !tableOptions.isEmpty { create += " " + tableOptions.joined(separator: ", ") }
        return [create] + indexedColumns.map {
            Database.createIndexSQL(
                name: "index_\(name)_on_\($0)", table: name, columns: [$0],
                ifNotExists: options.contains(.ifNotExists), unique: false, condition: nil)
        }
    }

    /// The primary key column and type a `belongsTo` refers to.
    private func referencedKey(of table: String, _ db: Database) throws -> (String, DatabaseColumnType?) {
        if table.asciiLowercased == name.asciiLowercased {
            // A self reference: look at the columns defined so far.
            for case .column(let column) in items where column.isPrimaryKey {
                return (column.name, column.type)
            }
            return ("id", .integer)
        }
        guard try db.tableExists(table) else { return ("id", .integer) }
        let keyColumns = try db.columns(in: table).filter { $0.primaryKeyIndex > 0 }
        switch keyColumns.count {
        case 0:
            throw DatabaseError.misuse(
                "belongsTo(\"\(table)\") in table \(name): \(table) has no declared primary key to refer to")
        case 1:
            let type = keyColumns[0].type
            return (keyColumns[0].name, type.isEmpty ? nil : DatabaseColumnType(rawValue: type))
        default:
            throw DatabaseError.misuse(
                "belongsTo(\"\(table)\") in table \(name): the primary key of \(table) has several columns; "
                    + "use foreignKey(_:references:columns:) instead")
        }
    }

    static func columnList(_ columns: [String]) -> String {
        columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
    }
}
