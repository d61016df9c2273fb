// The Bookshelf schema as Quarry migrations, and opening the database at
// startup (SQLite or PostgreSQL). The SQLite-only pieces have their
// PostgreSQL variant elsewhere: the trigger DSL in MigrationsPostgres.swift,
// the FTS5 table in the text search indexes of PostgresBookSearch.swift.

import Logging
import Quarry
import QuarryPostgres

/// The service's schema: named migrations, applied once each, in order.
///
/// The same migrations, by the same names, run on both backends; four differ
/// by backend (`backend`): `createBookSearch` does nothing on PostgreSQL (no
/// FTS5 there), and `createPostgresBookSearchIndexes` does nothing on SQLite
/// (the text search indexes of `GET /books/search` on PostgreSQL);
/// `createAudit` writes its triggers as a plpgsql function in raw SQL instead
/// of with the trigger DSL on PostgreSQL, and `observeBookChanges` installs
/// the change-notification trigger on `book` there only (SQLite's
/// observation needs none).
public func makeBookshelfMigrator(backend: DatabaseBackend = .sqlite) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("createAuthor") { db in
        try db.create(table: "author") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("bio", .text)
        }
    }
    migrator.registerMigration("createBook") { db in
        try db.create(table: "book") { t in
            t.autoIncrementedPrimaryKey("id")
            // Deleting an author who still has books fails (NO ACTION): the
            // service answers 409.
            t.belongsTo("author").notNull()
            t.column("title", .text).notNull()
            t.column("isbn", .text).notNull().unique()
            t.column("published", .integer).notNull()
            t.column("price_cents", .integer).notNull().check(sql: "price_cents >= 0")
        }
        try db.create(index: "index_book_on_published", on: "book", columns: ["published"])
    }
    migrator.registerMigration("createReview") { db in
        try db.create(table: "review") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("book", onDelete: .cascade).notNull()
            t.column("reviewer", .text).notNull()
            t.column("rating", .integer).notNull().check(sql: "rating BETWEEN 1 AND 5")
            t.column("comment", .text)
        }
    }
    migrator.registerMigration("createBookStats") { db in
        // One row per reviewed book, kept up to date by the review endpoints
        // (BookStats.add/remove/replace) in the transaction of each write.
        try db.create(table: "book_stats") { t in
            t.primaryKey("book_id", .integer).references("book", onDelete: .cascade)
            t.column("review_count", .integer).notNull()
            t.column("rating_total", .integer).notNull()
        }
        // The reviews already stored.
        try db.execute(sql: """
            INSERT INTO book_stats (book_id, review_count, rating_total)
            SELECT book_id, COUNT(*), SUM(rating) FROM review GROUP BY book_id
            """)
    }
    migrator.registerMigration("addReviewCreatedAt") { db in
        // ALTER TABLE … ADD COLUMN cannot default to CURRENT_TIMESTAMP: the
        // column is nullable (NULL for older reviews) and the service sets it.
        try db.alter(table: "review") { t in
            t.add(column: "created_at", .text)
        }
    }
    migrator.registerMigration("createBookSearch") { db in
        // FTS5 is SQLite-only: nothing on PostgreSQL, whose search uses the
        // indexes of `createPostgresBookSearchIndexes`.
        if backend == .sqlite { try createBookSearch(db) }
    }
    migrator.registerMigration("createAudit") { db in
        try createAuditTable(db)
        switch backend {
        case .sqlite: try createAuditTriggers(db)
        case .postgres: try createPostgreSQLAuditTriggers(db)
        }
    }
    migrator.registerMigration("observeBookChanges") { db in
        // `GET /books/events` observes `book`. On PostgreSQL, Quarry's
        // ValueObservation learns of commits by LISTEN/NOTIFY: this trigger
        // (QuarryPostgres) sends a notification after each statement that
        // changes `book`, whichever process commits it. SQLite needs nothing
        // here: its observation sees this process's commits, and other
        // processes' through `Configuration.foreignCommitPollingInterval`
        // (see ``BookshelfConfiguration/foreignCommitPollingInterval``).
        if backend == .postgres { try db.createChangeNotificationTrigger(on: "book") }
    }
    migrator.registerMigration("createPostgresBookSearchIndexes") { db in
        // `GET /books/search` on PostgreSQL: GIN indexes of the title of
        // `book` and the name of `author` as `tsvector` expressions (an index
        // cannot span the join; see ``PostgresBookSearch``). SQLite searches
        // the FTS5 table of `createBookSearch`: nothing to do there.
        if backend == .postgres { try PostgresBookSearch.createIndexes(db) }
    }
    return migrator
}

/// Migration `createBookSearch`: the FTS5 table `book_search(title, author)`
/// (rowid = book id; `unicode61` without diacritics, so "hugó" finds "Hugo"),
/// its triggers, and the index of the books already stored.
///
/// The author's name lives in `author`, so the table cannot be an external
/// content table of `book` (`synchronize(withTable:)`): it stores its text,
/// and four triggers keep it in step — after an insert, an update of
/// `id`, `title` or `author_id`, and a delete of a book, and after an update
/// of an author's `name` (all their books).
private func createBookSearch(_ db: Database) throws {
    try db.create(virtualTable: BookSearch.databaseTableName, using: FTS5()) { t in
        t.tokenizer = .unicode61(diacritics: .remove)
        t.column("title")
        t.column("author")
    }
    let indexedColumns = ["rowid", "title", "author"]
    /// The row of `book_search` of the NEW book: its id, title and author's name.
    let newBookRow = Author
        .filter(\.id == TriggerRow.new["author_id", as: Int64?.self])
        .select(TriggerRow.new["id", as: Int64.self], TriggerRow.new[\Book.title], QueryExpression(\Author.name))
    try db.create(trigger: "book_search_after_insert", on: "book", timing: .after, event: .insert) { t in
        t.insert(into: BookSearch.databaseTableName, columns: indexedColumns, select: newBookRow)
    }
    try db.create(
        trigger: "book_search_after_update", on: "book", timing: .after, event: .update(of: ["id", "title", "author_id"])
    ) { t in
        t.delete(BookSearch.filter(BookSearch.rowID == TriggerRow.old["id", as: Int64.self]))
        t.insert(into: BookSearch.databaseTableName, columns: indexedColumns, select: newBookRow)
    }
    try db.create(trigger: "book_search_after_delete", on: "book", timing: .after, event: .delete) { t in
        t.delete(BookSearch.filter(BookSearch.rowID == TriggerRow.old["id", as: Int64.self]))
    }
    try db.create(trigger: "book_search_after_author_rename", on: "author", timing: .after, event: .update(of: ["name"])) { t in
        let books = Book.filter(\.authorID == TriggerRow.new["id", as: Int64.self]).select(\.id)
        t.update(BookSearch.filter(books.contains(BookSearch.rowID)), \.author <- TriggerRow.new[\Author.name])
    }
    // The books already stored. Quarry has INSERT … SELECT only in trigger
    // bodies: the SELECT is a request, wrapped in an SQL literal (in
    // parentheses: Quarry interpolates a request without them).
    let authors = TableAlias()
    let existing = Book
        .joining(required: Book.author.aliased(authors))
        .select(QueryExpression(\Book.id), QueryExpression(\Book.title), authors[\Author.name] as QueryExpression<Book, String>)
    try db.execute(literal: "INSERT INTO \(BookSearch.self)(rowid, title, author) SELECT * FROM (\(existing))")
}

/// Migration `createAudit`, both backends: the table `audit` and its index.
private func createAuditTable(_ db: Database) throws {
    try db.create(table: AuditEntry.databaseTableName) { t in
        t.autoIncrementedPrimaryKey("id")
        t.column("table_name", .text).notNull()
        t.column("row_id", .integer).notNull()
        t.column("action", .text).notNull().check(sql: "action IN ('insert', 'update', 'delete')")
        t.column("old_title", .text)
        t.column("new_title", .text)
        t.column("changed_at", .text).notNull()
    }
    try db.create(index: "index_audit_on_row_id", on: AuditEntry.databaseTableName, columns: ["row_id"])
}

/// Migration `createAudit` on SQLite: three triggers on `book` that add a row
/// to `audit` after each insert, update and delete — in the transaction of the
/// change, whatever statement made it.
private func createAuditTriggers(_ db: Database) throws {
    /// The current time in UTC, ISO 8601: strftime('%Y-%m-%dT%H:%M:%SZ', 'now').
    let now = QueryExpression<AuditEntry, String>(
        (strftime("%Y-%m-%dT%H:%M:%SZ", "now") as QueryExpression<AuditEntry, String?>).sqlExpression)
    try db.create(trigger: "audit_book_after_insert", on: "book", timing: .after, event: .insert) { t in
        t.insert(
            into: AuditEntry.self, \.tableName <- "book", \.rowID <- TriggerRow.new["id", as: Int64.self], \.action <- "insert",
            \.newTitle <- TriggerRow.new["title", as: String?.self], \.changedAt <- now)
    }
    try db.create(trigger: "audit_book_after_update", on: "book", timing: .after, event: .update) { t in
        t.insert(
            into: AuditEntry.self, \.tableName <- "book", \.rowID <- TriggerRow.new["id", as: Int64.self], \.action <- "update",
            \.oldTitle <- TriggerRow.old["title", as: String?.self], \.newTitle <- TriggerRow.new["title", as: String?.self],
            \.changedAt <- now)
    }
    try db.create(trigger: "audit_book_after_delete", on: "book", timing: .after, event: .delete) { t in
        t.insert(
            into: AuditEntry.self, \.tableName <- "book", \.rowID <- TriggerRow.old["id", as: Int64.self], \.action <- "delete",
            \.oldTitle <- TriggerRow.old["title", as: String?.self], \.changedAt <- now)
    }
}

/// Opens (creating if needed) the database file at `path` as a WAL
/// `DatabasePool` and applies the migrations it lacks.
///
/// - throws: a Quarry `DatabaseError` when the file cannot be opened, or a
///   `MigrationError` when a migration fails.
public func openBookshelfDatabase(path: String, logger: Logger) async throws -> DatabasePool {
    let pool = try DatabasePool(path: path)
    try await migrate(BookshelfDatabase(pool), logger: logger)
    logger.info("database ready", metadata: ["path": "\(path)"])
    return pool
}

/// Connects to the PostgreSQL server of `url` (`postgres://user@host:port/db`)
/// with a `PostgresDatabasePool` and applies the migrations it lacks. Several
/// processes may start at once: Quarry's migrator takes an advisory lock, so
/// each migration runs once. `configuration.prepareDatabase` runs on each new
/// connection (`SET search_path TO …`, say).
///
/// - throws: a `PostgresURLError` for a malformed URL, a `DatabaseError` when
///   the server cannot be reached, or a `MigrationError`.
public func openBookshelfDatabase(
    postgresURL url: String, configuration: Configuration = Configuration(), maximumConnectionCount: Int = 8, logger: Logger
) async throws -> PostgresDatabasePool {
    let pool = try PostgresDatabasePool(url: url, maximumConnectionCount: maximumConnectionCount, configuration: configuration)
    try await migrate(BookshelfDatabase(writer: pool, backend: .postgres), logger: logger)
    // `path` is the URL without its password.
    logger.info("database ready", metadata: ["database": "\(pool.path)"])
    return pool
}

/// Opens the database `location` names: a `postgres://` URL on PostgreSQL,
/// anything else an SQLite file path (see ``DatabaseBackend/init(location:)``).
public func openBookshelfDatabase(location: String, logger: Logger) async throws -> BookshelfDatabase {
    switch DatabaseBackend(location: location) {
    case .sqlite: BookshelfDatabase(try await openBookshelfDatabase(path: location, logger: logger))
    case .postgres: BookshelfDatabase(writer: try await openBookshelfDatabase(postgresURL: location, logger: logger), backend: .postgres)
    }
}

/// Applies the migrations `database` lacks; closes it when one fails.
private func migrate(_ database: BookshelfDatabase, logger: Logger) async throws {
    do {
        var migrator = makeBookshelfMigrator(backend: database.backend)
        migrator.logger = logger
        try await migrator.migrate(database.writer)
    } catch {
        database.writer.close()
        throw error
    }
}
