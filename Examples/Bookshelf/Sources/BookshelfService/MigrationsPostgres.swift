// The PostgreSQL variant of the audit triggers (migration `createAudit`):
// Quarry's trigger DSL writes SQLite triggers, and a PostgreSQL trigger runs
// a function, so this is raw SQL — one plpgsql function, three triggers.

import Quarry

/// Migration `createAudit` on PostgreSQL: the function `audit_book_change()`
/// and three `AFTER … FOR EACH ROW` triggers on `book` that call it, so that
/// each insert, update and delete of a book adds a row to `audit` in the
/// transaction of the change, as the SQLite triggers do. `changed_at` is the
/// statement's time in UTC, in the SQLite variant's format
/// (`2026-11-25T23:01:48Z`).
func createPostgreSQLAuditTriggers(_ db: Database) throws {
    try db.execute(sql: """
        CREATE FUNCTION "audit_book_change"() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            stamp text := to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO "audit" ("table_name", "row_id", "action", "new_title", "changed_at")
                VALUES ('book', NEW."id", 'insert', NEW."title", stamp);
            ELSIF TG_OP = 'UPDATE' THEN
                INSERT INTO "audit" ("table_name", "row_id", "action", "old_title", "new_title", "changed_at")
                VALUES ('book', NEW."id", 'update', OLD."title", NEW."title", stamp);
            ELSE
                INSERT INTO "audit" ("table_name", "row_id", "action", "old_title", "changed_at")
                VALUES ('book', OLD."id", 'delete', OLD."title", stamp);
            END IF;
            RETURN NULL;
        END
        $$
        """)
    for (name, event) in [("audit_book_after_insert", "INSERT"), ("audit_book_after_update", "UPDATE"), ("audit_book_after_delete", "DELETE")] {
        try db.execute(sql: """
            CREATE TRIGGER "\(name)" AFTER \(event) ON "book" FOR EACH ROW EXECUTE FUNCTION "audit_book_change"()
            """)
    }
}
