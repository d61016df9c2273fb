// A model layer written the way a GRDB 7 service writes it, compiled against
// Quarry with only `import GRDB` changed to `import Quarry`: records with
// `Columns` enums, Identifiable lookups, upserts on `let` values,
// `catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE`, a migrator with GRDB's
// default (deferred) foreign key checks, and a file first migrated by GRDB.
// The code of the "Moving from GRDB" article comes from here.

import Foundation
import Quarry
import Testing

// MARK: - The model layer, as written for GRDB

struct ShelfAuthor: Codable, Identifiable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "author"
    var id: Int64?
    var name: String
    var countryCode: String?

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let countryCode = Column(CodingKeys.countryCode)
    }

    static let books = hasMany(ShelfBook.self)
}

struct ShelfBook: Codable, Identifiable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "book"
    var id: Int64?
    var authorId: Int64
    var title: String
    var isbn: String
    var publishedAt: Date?

    enum Columns {
        static let authorId = Column(CodingKeys.authorId)
        static let title = Column(CodingKeys.title)
        static let isbn = Column(CodingKeys.isbn)
    }

    static let author = belongsTo(ShelfAuthor.self)
}

enum ShelfError: Error, Equatable {
    case duplicateISBN(String)
}

struct Shelf {
    let writer: any DatabaseWriter

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "author") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("countryCode", .text)
            }
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("authorId", .integer).notNull().indexed()
                    .references("author", onDelete: .cascade)
                t.column("title", .text).notNull()
                t.column("isbn", .text).notNull().unique()
                t.column("publishedAt", .datetime)
            }
        }
        migrator.registerMigration("v2") { db in
            try db.create(indexOn: "book", columns: ["title"])
        }
        return migrator
    }

    init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    func saveAuthor(_ author: ShelfAuthor) throws -> ShelfAuthor {
        try writer.write { db in try author.saveAndFetch(db) }
    }

    func addBook(_ book: ShelfBook) throws {
        do {
            try writer.write { db in try book.insert(db) }
        } catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE {
            throw ShelfError.duplicateISBN(book.isbn)
        }
    }

    func upsertBook(_ book: ShelfBook) throws {
        try writer.write { db in try book.upsert(db) }
    }

    func author(id: Int64) throws -> ShelfAuthor? {
        try writer.read { db in try ShelfAuthor.fetchOne(db, id: id) }
    }

    func authors(named prefix: String) throws -> [ShelfAuthor] {
        try writer.read { db in
            try ShelfAuthor.filter(ShelfAuthor.Columns.name.like("\(prefix)%")).order(ShelfAuthor.Columns.name).fetchAll(db)
        }
    }

    func authorsWithoutCountry() throws -> [ShelfAuthor] {
        try writer.read { db in try ShelfAuthor.filter(Column("countryCode") == nil).fetchAll(db) }
    }

    func books(ofAuthors ids: [Int64]) throws -> [ShelfBook] {
        try writer.read { db in
            try ShelfBook.filter(ids.contains(ShelfBook.Columns.authorId)).order(ShelfBook.Columns.title.desc).fetchAll(db)
        }
    }

    func bookTitles(since date: Date) throws -> [String] {
        try writer.read { db in
            try ShelfBook.filter(sql: "publishedAt >= :date", arguments: ["date": date])
                .select(ShelfBook.Columns.title, as: String.self)
                .orderByPrimaryKey()
                .fetchAll(db)
        }
    }

    func deleteBooks(ids: [Int64]) throws -> Int {
        try writer.write { db in try ShelfBook.deleteAll(db, ids: ids) }
    }

    func authorIDs() throws -> Set<Int64> {
        try writer.read { db in try Set(ShelfAuthor.selectID().fetchCursor(db)) }
    }

    func authorsByCountry() throws -> [ShelfAuthor] {
        try writer.read { db in
            try ShelfAuthor.order(ShelfAuthor.Columns.countryCode.ascNullsLast, ShelfAuthor.Columns.name.asc).fetchAll(db)
        }
    }

    func lastBookID() throws -> Int64? {
        try writer.read { db in try ShelfBook.select(max(Column("id")), as: Int64.self).fetchOne(db) }
    }

    func hasBooks(authorID: Int64) throws -> Bool {
        try writer.read { db in try !ShelfBook.filter(ShelfBook.Columns.authorId == authorID).isEmpty(db) }
    }
}

// MARK: - Tests

@Suite struct GRDBStyleModelLayerTests {
    @Test(arguments: WriterKind.allCases)
    func theModelLayerRunsOnQuarry(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let library = try Shelf(try kind.make(in: directory))
        let tolkien = try library.saveAuthor(ShelfAuthor(id: nil, name: "Tolkien", countryCode: "GB"))
        let tove = try library.saveAuthor(ShelfAuthor(id: nil, name: "Tove Jansson", countryCode: nil))
        let tolkienID = try #require(tolkien.id)
        let toveID = try #require(tove.id)

        let published = Date(timeIntervalSince1970: 1_000_000_000)
        try library.addBook(ShelfBook(id: nil, authorId: tolkienID, title: "The Hobbit", isbn: "1", publishedAt: published))
        try library.addBook(ShelfBook(id: nil, authorId: toveID, title: "Moominvalley", isbn: "2", publishedAt: nil))
        #expect(throws: ShelfError.duplicateISBN("1")) {
            try library.addBook(ShelfBook(id: nil, authorId: toveID, title: "Copy", isbn: "1", publishedAt: nil))
        }
        try library.upsertBook(ShelfBook(id: 1, authorId: tolkienID, title: "The Hobbit, Revised", isbn: "1", publishedAt: published))

        #expect(try library.author(id: tolkienID)?.name == "Tolkien")
        #expect(try library.author(id: 42) == nil)
        #expect(try library.authors(named: "To").map(\.name) == ["Tolkien", "Tove Jansson"])
        #expect(try library.authorsWithoutCountry().map(\.name) == ["Tove Jansson"])
        #expect(try library.books(ofAuthors: [tolkienID, toveID]).map(\.title) == ["The Hobbit, Revised", "Moominvalley"])
        #expect(try library.bookTitles(since: published) == ["The Hobbit, Revised"])
        #expect(try library.authorIDs() == [tolkienID, toveID])
        #expect(try library.hasBooks(authorID: toveID))
        #expect(try library.authorsByCountry().map(\.name) == ["Tolkien", "Tove Jansson"])
        #expect(try library.lastBookID() == 2)
        #expect(try library.deleteBooks(ids: [2, 99]) == 1)
        #expect(try !library.hasBooks(authorID: toveID))
    }

    @Test func aFileFirstMigratedByGRDBIsNotMigratedAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("library.sqlite")
        // The file as GRDB leaves it after migration "v1".
        try DatabaseQueue(path: path).write { db throws in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                CREATE TABLE "author" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, "countryCode" TEXT);
                CREATE TABLE "book" ("id" INTEGER PRIMARY KEY AUTOINCREMENT,
                    "authorId" INTEGER NOT NULL REFERENCES "author"("id") ON DELETE CASCADE,
                    "title" TEXT NOT NULL, "isbn" TEXT NOT NULL UNIQUE, "publishedAt" DATETIME);
                CREATE INDEX "book_on_authorId" ON "book"("authorId");
                INSERT INTO grdb_migrations VALUES ('v1');
                INSERT INTO author (name) VALUES ('Le Guin');
                """)
        }
        let library = try Shelf(try DatabasePool(path: path))
        try library.writer.read { db throws in
            #expect(try Shelf.migrator.appliedIdentifiers(db) == ["v1", "v2"])
            #expect(try db.indexes(on: "book").contains { $0.name == "index_book_on_title" })
        }
        #expect(try library.authors(named: "Le").map(\.name) == ["Le Guin"])
    }
}
