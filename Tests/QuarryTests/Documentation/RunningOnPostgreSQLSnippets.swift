// The code of the section "A caught error still aborts the transaction" of
// the DocC article "Running on PostgreSQL" (QuarryPostgres), verbatim inside
// functions, compiled and run on every backend: the first form commits the
// order on SQLite and throws on PostgreSQL; the second commits it on both.

import Foundation
import Quarry
import Testing

enum RunningOnPostgreSQLArticle {
    struct Order: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
    }

    struct Audit: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
    }

    static func caught(_ pool: any DatabaseWriter, order: Order, audit: Audit) throws {
        try pool.write { db in
            try order.insert(db)
            // SQLite commits the order. PostgreSQL rolls it back, and `write` throws.
            do { try audit.insert(db) } catch { /* a duplicate audit row is fine */ }
        }
    }

    static func inSavepoint(_ pool: any DatabaseWriter, order: Order, audit: Audit) throws {
        try pool.write { db in
            try order.insert(db)
            do {
                try db.inSavepoint {
                    try audit.insert(db)
                    return .commit
                }
            } catch let error as DatabaseError where error.isUniqueConstraintViolation {
                // Only the audit row is gone; the order commits.
            }
        }
    }
}

@Suite struct RunningOnPostgreSQLSnippetTests {
    typealias Article = RunningOnPostgreSQLArticle

    static func setUp(_ writer: any DatabaseWriter) throws {
        try writer.write { db in
            try db.create(table: "order") { t in t.primaryKey("id", .integer) }
            try db.create(table: "audit") { t in t.primaryKey("id", .integer) }
            try Article.Audit(id: 1).insert(db)
        }
    }

    static func orderIDs(_ writer: any DatabaseWriter) throws -> [Int64] {
        try writer.read { db in try Article.Order.fetchAll(db).map(\.id) }
    }

    @Test(arguments: Backend.all)
    func aCaughtErrorCommitsOnSQLiteAndThrowsOnPostgreSQL(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try Self.setUp(writer)
            let outcome = Result { try Article.caught(writer, order: Article.Order(id: 1), audit: Article.Audit(id: 1)) }
            if backend.isPostgreSQL {
                let error = try #require(throws: DatabaseError.self) { try outcome.get() }
                #expect(error.sqlState == "25P02")
                #expect(try Self.orderIDs(writer) == [])
            } else {
                try outcome.get()
                #expect(try Self.orderIDs(writer) == [1])
            }
        }
    }

    @Test(arguments: Backend.all)
    func aSavepointCommitsTheOrderOnBothBackends(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try Self.setUp(writer)
            try Article.inSavepoint(writer, order: Article.Order(id: 1), audit: Article.Audit(id: 1))
            #expect(try Self.orderIDs(writer) == [1])
        }
    }
}
