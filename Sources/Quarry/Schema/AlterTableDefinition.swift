// AlterTableDefinition: the body of `db.alter(table:)`, which collects the
// column changes SQLite's ALTER TABLE supports (https://www.sqlite.org/lang_altertable.html).

/// The changes made to a table by ``Database/alter(table:body:)``.
///
/// ```swift
/// try db.alter(table: "player") { t in
///     t.add(column: "email", .text).indexed()
///     t.rename(column: "score", to: "points")
///     t.drop(column: "nickname")
/// }
/// // ALTER TABLE "player" ADD COLUMN "email" TEXT
/// // CREATE INDEX "index_player_on_email" ON "player"("email")
/// // ALTER TABLE "player" RENAME COLUMN "score" TO "points"
/// // ALTER TABLE "player" DROP COLUMN "nickname"
/// ```
///
/// SQLite restricts added columns: no PRIMARY KEY or UNIQUE, no STORED
/// generated column, a NOT NULL column needs a non-NULL default, and a
/// foreign key column must default to NULL. For other changes, rebuild the
/// table (see the Migrations article).
public final class AlterTableDefinition {
    /// The name of the altered table.
    public let name: String
    private enum Change {
        case add(ColumnDefinition)
        case rename(String, String)
        case drop(String)
    }
    private var changes: [Change] = []

    init(name: String) { self.name = name }

    /// Adds a column: `ALTER TABLE … ADD COLUMN`. Chain modifiers on the result.
    @discardableResult
    public func add(column name: String, _ type: DatabaseColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.add(column))
        return column
    }

    /// Renames a column: `ALTER TABLE … RENAME COLUMN … TO …`. References
    /// in indexes, triggers and views are updated by SQLite.
    public func rename(column name: String, to newName: String) {
        changes.append(.rename(name, newName))
    }

    /// Drops a column: `ALTER TABLE … DROP COLUMN`. SQLite refuses to drop a
    /// column that is part of a key, an index, or used elsewhere in the schema.
    public func drop(column name: String) {
        changes.append(.drop(name))
    }

    /// The statements, in the order the changes were declared, in `dialect`.
    func statements(_ dialect: any SQLDialect = SQLiteDialect()) throws -> [String] {
        let table = name.quotedDatabaseIdentifier
        var statements: [String] = []
        for change in changes {
            switch change {
            case .add(let column):
                statements.append("ALTER TABLE \(table) ADD COLUMN " + (try column.sql(dialect)))
                if column.isIndexed {
                    statements.append(Database.createIndexSQL(
                        name: "index_\(name)_on_\(column.name)", table: name, columns: [column.name],
                        ifNotExists: false, unique: false, condition: nil))
                }
            case .rename(let old, let new):
                statements.append(
                    "ALTER TABLE \(table) RENAME COLUMN \(old.quotedDatabaseIdentifier) TO \(new.quotedDatabaseIdentifier)")
            case .drop(let column):
                statements.append("ALTER TABLE \(table) DROP COLUMN \(column.quotedDatabaseIdentifier)")
            }
        }
        return statements
    }
}
