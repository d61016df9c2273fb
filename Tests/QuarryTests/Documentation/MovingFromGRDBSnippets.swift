// The code of the DocC article "Moving from GRDB", verbatim (inside a
// namespace, so that its type names do not clash with other tests), compiled
// and run.

import Foundation
import Quarry
import Testing

enum MovingFromGRDBArticle {
    struct Author: Codable, Identifiable, FetchableRecord, PersistableRecord {
        var id: Int64?
        var name: String
        var countryCode: String?

        enum Columns {
            static let name = Column(CodingKeys.name)
            static let countryCode = Column(CodingKeys.countryCode)
        }
    }

    static func steps(_ dbQueue: DatabaseQueue) throws -> (authors: [Author], found: Author?) {
        try dbQueue.write { db in
            let author = Author(id: nil, name: "Tove Jansson", countryCode: nil)
            try author.insert(db)                                 // a `let` value, as in GRDB
            let authors = try Author.filter(Column("countryCode") == nil)
                .order(Author.Columns.name)
                .fetchAll(db)                                     // ... WHERE "countryCode" IS NULL ORDER BY "name"
            let found = try Author.fetchOne(db, id: 1)
            return (authors, found)
        }
    }

    static func adoption(_ dbPool: DatabasePool) throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in /* as in GRDB */ }
        migrator.registerMigration("v2") { db in
            try db.create(indexOn: "book", columns: ["title"])
        }
        try migrator.migrate(dbPool)   // on a file GRDB migrated to "v1": runs "v2" only
    }
}

@Suite struct MovingFromGRDBSnippetTests {
    @Test func theStepsSnippetRuns() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "author") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("countryCode", .text)
            }
        }
        let (authors, found) = try MovingFromGRDBArticle.steps(dbQueue)
        #expect(authors.map(\.name) == ["Tove Jansson"])
        #expect(found?.name == "Tove Jansson")
    }

    @Test func theAdoptionSnippetRunsV2Only() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try DatabaseQueue(path: path).write { db throws in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT);
                INSERT INTO grdb_migrations VALUES ('v1');
                """)
        }
        let dbPool = try DatabasePool(path: path)
        try MovingFromGRDBArticle.adoption(dbPool)
        try dbPool.read { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT name FROM quarry_migrations ORDER BY rowid") == ["v1", "v2"])
            #expect(try db.indexes(on: "book").map(\.name) == ["index_book_on_title"])
        }
    }
}
