// The Bookshelf schema as Quarry migrations, and opening the database at startup.

import Logging
import Quarry

/// The service's schema: named migrations, applied once each, in order.
public func makeBookshelfMigrator() -> DatabaseMigrator {
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
    return migrator
}

/// Opens (creating if needed) the database file at `path` as a WAL
/// `DatabasePool` and applies the migrations it lacks.
///
/// - throws: a Quarry `DatabaseError` when the file cannot be opened, or a
///   `MigrationError` when a migration fails.
public func openBookshelfDatabase(path: String, logger: Logger) async throws -> DatabasePool {
    let pool = try DatabasePool(path: path)
    do {
        var migrator = makeBookshelfMigrator()
        migrator.logger = logger
        try await migrator.migrate(pool)
    } catch {
        pool.close()
        throw error
    }
    logger.info("database ready", metadata: ["path": "\(path)"])
    return pool
}
