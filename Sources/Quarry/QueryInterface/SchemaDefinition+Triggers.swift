// Creating triggers (https://www.sqlite.org/lang_createtrigger.html): timing,
// event, WHEN condition and body from the query interface. GRDB has no
// trigger DSL; the spelling follows create(table:) and create(view:).
//
// SQLite allows no parameters in a trigger, so the condition and the body
// are generated in the literal mode of SQLGenerationContext (values written
// by DatabaseValue.sqlLiteral). Identifiers are quoted.

extension Database {
    /// Creates a trigger (<https://www.sqlite.org/lang_createtrigger.html>):
    /// statements that SQLite runs for each row that an INSERT, UPDATE or
    /// DELETE on a table (or view) changes.
    ///
    /// ```swift
    /// // Maintain updated_at, unless the update sets it.
    /// try db.create(
    ///     trigger: "book_touch", on: "book", timing: .after, event: .update,
    ///     when: TriggerRow.new[\Book.updatedAt] == TriggerRow.old[\Book.updatedAt]
    /// ) { t in
    ///     t.update(Book.filter(\.id == TriggerRow.new[\Book.id]),
    ///              \.updatedAt <- QueryExpression(sql: "datetime('now')"))
    /// }
    /// // CREATE TRIGGER "book_touch" AFTER UPDATE ON "book" FOR EACH ROW
    /// // WHEN NEW."updated_at" = OLD."updated_at"
    /// // BEGIN UPDATE "book" SET "updated_at" = datetime('now') WHERE "id" = NEW."id"; END
    /// ```
    ///
    /// The body reads the changed row through ``TriggerRow``: `TriggerRow.new`
    /// and `TriggerRow.old`. Values in the condition and the body are written
    /// into the SQL as literals, since SQLite allows no parameters in a
    /// trigger; they never change the meaning of the SQL, whatever they hold.
    /// SQLite triggers are always `FOR EACH ROW`.
    ///
    /// - parameters:
    ///   - name: the trigger name.
    ///   - options: `.ifNotExists`, `.temporary` (see ``TriggerOptions``).
    ///   - table: the table, or the view for `.insteadOf`, whose changes fire
    ///     the trigger.
    ///   - timing: `.before`, `.after` (tables) or `.insteadOf` (views).
    ///   - event: `.insert`, `.delete`, `.update` or `.update(of:)` some columns.
    ///   - condition: the `WHEN` condition, built from the columns of
    ///     `TriggerRow.new` and `TriggerRow.old` (and subqueries): the trigger
    ///     runs only for the rows where it is true. Nil runs it for every row.
    ///   - body: adds the statements of the trigger to the ``TriggerDefinition``
    ///     it receives; at least one. An error it throws is rethrown, and no
    ///     trigger is created.
    public func create(
        trigger name: String, options: TriggerOptions = [], on table: String, timing: TriggerTiming,
        event: TriggerEvent, when condition: QueryExpression<TriggerRow, Bool>? = nil,
        body: (TriggerDefinition) throws -> Void
    ) throws {
        // A PostgreSQL trigger runs a function: its syntax has nothing in common.
        try require(.triggerDSL, "the trigger DSL (create(trigger:))")
        let definition = TriggerDefinition()
        try body(definition)
        var sql = Self.createClause("TRIGGER", name, temporary: options.contains(.temporary), ifNotExists: options.contains(.ifNotExists))
        sql += " " + timing.rawValue + " " + (try event.sql())
        sql += " ON " + table.quotedDatabaseIdentifier + " FOR EACH ROW"
        if let condition {
            let context = SQLGenerationContext(db: self, rendersValuesAsLiterals: true)
            sql += " WHEN " + (try context.sql(condition.sqlExpression))
        }
        sql += " BEGIN " + (try definition.bodySQL(self)) + "END"
        try makeStatement(sql: sql).execute()
    }
}
