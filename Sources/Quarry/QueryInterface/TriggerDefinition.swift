// TriggerDefinition: the body of a trigger built with the query interface —
// batch updates and deletes of requests, inserts of values or of a request's
// rows, SQL literals — and TriggerRow, the NEW and OLD rows they can read.
//
// The statements are kept as values and generated when the trigger is
// created, in the literal mode of SQLGenerationContext: SQLite allows no
// parameters in a trigger, so values are written by the one literal renderer
// (DatabaseValue.sqlLiteral). Identifiers are quoted.

/// The row a trigger runs for: `NEW` (the inserted row, or an updated row
/// after the update) and `OLD` (the deleted row, or an updated row before the
/// update). Its subscripts give expressions for its columns, `NEW."column"`.
///
/// ```swift
/// TriggerRow.new[\Book.id]                        // NEW."id"
/// TriggerRow.old[\Book.title]                     // OLD."title"
/// TriggerRow.new["title", as: String.self]        // NEW."title"
/// TriggerRow.new[\Book.title] != TriggerRow.old[\Book.title]
/// // NEW."title" <> OLD."title"
/// ```
///
/// The expressions fit any request and assignment (their `Root` is inferred
/// from where they are used), so a trigger on `book` can update `author`:
///
/// ```swift
/// t.update(Author.filter(\.id == TriggerRow.new[\Book.authorID]), \.bookCount += 1)
/// // UPDATE "author" SET "book_count" = "book_count" + 1 WHERE "id" = NEW."author_id"
/// ```
public struct TriggerRow: Sendable {
    let isNew: Bool

    /// `NEW`: the row an INSERT inserts, or the values of a row after an
    /// UPDATE. DELETE triggers have no `NEW` row.
    public static let new = TriggerRow(isNew: true)

    /// `OLD`: the row a DELETE deletes, or the values of a row before an
    /// UPDATE. INSERT triggers have no `OLD` row.
    public static let old = TriggerRow(isNew: false)

    /// The column of `keyPath` in this row: `NEW."column"`.
    ///
    /// - parameter keyPath: a key path of the record of the trigger's table.
    public subscript<Table: Decodable, Root, Value>(_ keyPath: KeyPath<Table, Value>) -> QueryExpression<Root, Value> {
        QueryExpression(SQLExpression.column(keyPath).qualified(by: .triggerRow(isNew: isNew)))
    }

    /// A column of this row, by name: `NEW."column"`.
    ///
    /// - parameters:
    ///   - column: the column name.
    ///   - type: the type of the column's values, for comparisons and
    ///     assignments; `DatabaseValue` by default.
    public subscript<Root, Value>(_ column: String, as type: Value.Type = DatabaseValue.self) -> QueryExpression<Root, Value> {
        QueryExpression(SQLExpression(.column(column, .triggerRow(isNew: isNew))))
    }
}

extension SQLInterpolation {
    /// Appends a column of the row a trigger runs for, `NEW."column"`, or an
    /// expression built from such columns, in an SQL literal of a trigger:
    ///
    /// ```swift
    /// t.execute(literal: "DELETE FROM audit WHERE book_id = \(TriggerRow.old[\Book.id])")
    /// // DELETE FROM audit WHERE book_id = OLD."id"
    /// ```
    public mutating func appendInterpolation<Value>(_ expression: QueryExpression<TriggerRow, Value>) {
        elements.append(.expression(expression.sqlExpression))
    }
}

/// The body of a trigger: the statements it runs, in order, for each row.
/// `Database.create(trigger:options:on:timing:event:when:body:)` gives it to
/// its closure.
///
/// ```swift
/// try db.create(trigger: "book_audit", on: "book", timing: .after, event: .insert) { t in
///     t.insert(into: Audit.self, \.action <- "insert", \.bookID <- TriggerRow.new[\Book.id])
///     t.update(Author.filter(\.id == TriggerRow.new[\Book.authorID]), \.bookCount += 1)
/// }
/// // CREATE TRIGGER "book_audit" AFTER INSERT ON "book" FOR EACH ROW BEGIN
/// // INSERT INTO "audit" ("action", "book_id") VALUES ('insert', NEW."id");
/// // UPDATE "author" SET "book_count" = "book_count" + 1 WHERE "id" = NEW."author_id"; END
/// ```
///
/// Values are written into the SQL as literals, since SQLite allows no
/// parameters in a trigger. SQLite restricts the statements of a trigger
/// (<https://www.sqlite.org/lang_createtrigger.html#syntax_restrictions_on_update_delete_and_insert_statements_within_triggers>):
/// no common table expressions (`with`), and the tables they write belong to
/// the trigger's schema.
public final class TriggerDefinition {
    /// One statement of the body, generated when the trigger is created.
    enum Statement {
        case update(SQLSelectQuery, [SQLAssignment])
        case delete(SQLSelectQuery)
        case insertValues(table: String, [SQLAssignment])
        case insertSelect(table: String, columns: [String], query: SQLSelectQuery)
        case literal(SQL)
    }

    var statements: [Statement] = []

    init() {}

    /// Adds a batch update of the rows a request matches:
    /// `UPDATE "table" SET … WHERE …`.
    ///
    /// ```swift
    /// t.update(Book.filter(\.id == TriggerRow.new[\Book.id]), \.updatedAt <- QueryExpression(sql: "datetime('now')"))
    /// // UPDATE "book" SET "updated_at" = datetime('now') WHERE "id" = NEW."id"
    /// ```
    ///
    /// - parameters:
    ///   - request: the rows to update, as for `updateAll(_:_:)`.
    ///   - assignments: the columns to set; at least one.
    public func update<Root, Result>(_ request: QueryRequest<Root, Result>, _ assignments: ColumnAssignment<Root>...) {
        statements.append(.update(request.query, assignments.map(\.assignment)))
    }

    /// Adds a batch delete of the rows a request matches: `DELETE FROM "table" WHERE …`.
    ///
    /// ```swift
    /// t.delete(Book.filter(\.authorID == TriggerRow.old[\Author.id]))
    /// // DELETE FROM "book" WHERE "author_id" = OLD."id"
    /// ```
    ///
    /// - parameter request: the rows to delete, as for `deleteAll(_:)`.
    public func delete<Root, Result>(_ request: QueryRequest<Root, Result>) {
        statements.append(.delete(request.query))
    }

    /// Adds an insert of one row into the table of a record type, whose
    /// columns take the values of the assignments:
    /// `INSERT INTO "table" ("a", "b") VALUES (…, …)`.
    ///
    /// ```swift
    /// t.insert(into: Audit.self, \.action <- "insert", \.bookID <- TriggerRow.new[\Book.id])
    /// // INSERT INTO "audit" ("action", "book_id") VALUES ('insert', NEW."id")
    /// ```
    ///
    /// - parameters:
    ///   - type: the record type whose `databaseTableName` receives the row.
    ///   - assignments: the inserted columns and their values; at least one.
    public func insert<Record: TableRecord>(into type: Record.Type, _ assignments: ColumnAssignment<Record>...) {
        statements.append(.insertValues(table: Record.databaseTableName, assignments.map(\.assignment)))
    }

    /// Adds an insert of the rows a request selects:
    /// `INSERT INTO "table" ("a", "b") SELECT …`.
    ///
    /// ```swift
    /// t.insert(into: "audit", columns: ["book_id", "title"],
    ///          select: Book.select(\.id, \.title).filter(\.id == TriggerRow.new[\Book.id]))
    /// // INSERT INTO "audit" ("book_id", "title") SELECT "id", "title" FROM "book" WHERE "id" = NEW."id"
    /// ```
    ///
    /// - parameters:
    ///   - table: the table that receives the rows.
    ///   - columns: the columns the request's selection fills, in order.
    ///   - request: the rows to insert.
    public func insert<Root, Result>(into table: String, columns: [String], select request: QueryRequest<Root, Result>) {
        statements.append(.insertSelect(table: table, columns: columns, query: request.query))
    }

    /// Adds a statement written in SQL.
    ///
    /// ```swift
    /// t.execute(literal: "UPDATE author SET book_count = book_count + \(1) WHERE id = \(TriggerRow.new[\Book.authorID])")
    /// // UPDATE author SET book_count = book_count + 1 WHERE id = NEW."author_id"
    /// ```
    ///
    /// Interpolated values are written as SQL literals; a `?` written in the
    /// SQL text itself makes SQLite throw.
    ///
    /// - parameter sqlLiteral: one INSERT, UPDATE, DELETE or SELECT statement,
    ///   without its final semicolon.
    public func execute(literal sqlLiteral: SQL) {
        statements.append(.literal(sqlLiteral))
    }

    /// The SQL of the statements, each followed by `; `.
    func bodySQL(_ db: Database) throws -> String {
        guard !statements.isEmpty else {
            throw DatabaseError.misuse("a trigger needs at least one statement in its body")
        }
        return try statements.map { statement in
            let context = SQLGenerationContext(db: db, rendersValuesAsLiterals: true)
            return try Self.sql(statement, context) + "; "
        }.joined()
    }

    private static func sql(_ statement: Statement, _ context: SQLGenerationContext) throws -> String {
        switch statement {
        case .update(let query, let assignments):
            return try context.updateSQL(query, assignments: assignments, conflictResolution: nil, returning: nil)
        case .delete(let query):
            return try context.deleteSQL(query, returning: nil)
        case .insertValues(let table, let assignments):
            guard !assignments.isEmpty else {
                throw DatabaseError.misuse("an insert into \(table) in a trigger needs at least one column")
            }
            let values = try assignments.map { try context.sql($0.value) }
            return "INSERT INTO " + table.quotedDatabaseIdentifier
                + " (" + TableDefinition.columnList(assignments.map(\.column)) + ") VALUES (" + values.joined(separator: ", ") + ")"
        case .insertSelect(let table, let columns, let query):
            return "INSERT INTO " + table.quotedDatabaseIdentifier + " (" + TableDefinition.columnList(columns) + ") "
                + (try context.selectSQL(query))
        case .literal(let literal):
            return try context.sql(literal)
        }
    }
}
