// A model layer written the way a GRDB 7 service writes it, compiled against
// Quarry with only `import GRDB` changed to `import Quarry`: records with
// `Columns` enums, Identifiable lookups, upserts on `let` values,
// `catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE`, a migrator with GRDB's
// default (deferred) foreign key checks, and a file first migrated by GRDB;
// requests interpolated in SQL (`IN (\(request))`), the static fetching forms
// that take a request, `try cursor.isEmpty`, `insertAndFetch(db, as:)` and
// `statement.arguments = …`, row scopes, GRDB's `Column` expressions
// (arithmetic, `??`, `collating`, ranges, `count`, `lowercased`, `rank`), the
// everyday SQL functions, `upsertAll`, `drop(table:ifExists:)` (issue 32).
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
        migrator.registerMigration("v3") { db in
            try db.create(index: "book_on_recent", on: "book", expressions: [Column("publishedAt").desc])
            try db.checkForeignKeys()
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

    func author(namedCaseInsensitively name: String) throws -> ShelfAuthor? {
        try writer.read { db in try ShelfAuthor.filter(ShelfAuthor.Columns.name.lowercased == name.lowercased()).fetchOne(db) }
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

    /// A request interpolated in SQL, GRDB's `IN (\(request))` idiom, and
    /// the static fetching forms that take a request.
    func namesOfAuthorsWithBooks() throws -> [String] {
        try writer.read { db in
            let authorIDs = ShelfBook.select(ShelfBook.Columns.authorId, as: Int64.self)
            let request = SQLRequest<String>("SELECT name FROM author WHERE id IN (\(authorIDs)) ORDER BY name")
            return try String.fetchAll(db, request)
        }
    }

    func authorCount(inCountry code: String) throws -> Int {
        try writer.read { db in try SQLRequest<Row>("SELECT * FROM author WHERE countryCode = \(code)").fetchCount(db) }
    }

    func authorRows() throws -> [Row] {
        try writer.read { db in try Row.fetchAll(db, ShelfAuthor.order(ShelfAuthor.Columns.name)) }
    }

    func noBookTitled(_ title: String) throws -> Bool {
        try writer.read { db in
            let cursor: RecordCursor<ShelfBook> = try ShelfBook.fetchCursor(db, ShelfBook.filter(ShelfBook.Columns.title == title))
            return try cursor.isEmpty
        }
    }

    /// A partial record in, the full record out.
    func addAuthor(named name: String) throws -> ShelfAuthor {
        try writer.write { db in
            var draft = ShelfAuthorDraft(name: name)
            return try draft.insertAndFetch(db, as: ShelfAuthor.self)
        }
    }

    /// A prepared statement, its arguments set, then executed.
    func setCountry(_ code: String?, ofAuthorsNamed names: [String]) throws {
        try writer.write { db in
            let statement = try db.makeStatement(sql: "UPDATE author SET countryCode = :code WHERE name = :name")
            for name in names {
                statement.arguments = ["code": code, "name": name]
                try statement.execute()
            }
        }
    }
}

/// The everyday SQL of the same service, written with GRDB's untyped
/// `Columns` and the query interface's functions: no SQL strings.
extension Shelf {
    /// Books whose id is in a range, and the number of them.
    func bookCount(idsIn range: ClosedRange<Int64>) throws -> Int? {
        try writer.read { db in
            try Int.fetchOne(db, ShelfBook.filter(range.contains(Column("id"))).select(count(Column("id")), as: Int.self))
        }
    }

    /// The country codes in use, with "??" for none.
    func countryCodes() throws -> Set<String> {
        try writer.read { db in
            try String.fetchSet(db, ShelfAuthor.all().select(ShelfAuthor.Columns.countryCode ?? "??", as: String.self))
        }
    }

    /// Authors by name, ignoring case.
    func authorNamesIgnoringCase() throws -> [String] {
        try writer.read { db in
            try String.fetchAll(db, ShelfAuthor.order(ShelfAuthor.Columns.name.collating(.nocase)).select(\.name))
        }
    }

    /// The next ids, as arithmetic on a column.
    func nextBookIDs() throws -> [Int64] {
        try writer.read { db in
            try Int64.fetchAll(db, ShelfBook.orderByPrimaryKey().select(Column("id") + 1, as: Int64.self))
        }
    }

    /// Trimmed, cut and rewritten titles, and the ISBN as a number.
    func titleLabels() throws -> [String] {
        try writer.read { db in
            let label: QueryExpression<ShelfBook, String> = substr(trim(Column("title")), 1, 3).appending(":").appending(
                cast(Column("isbn"), as: .text, to: String.self))
            return try String.fetchAll(db, ShelfBook.orderByPrimaryKey().select(label, as: String.self))
        }
    }

    /// An SQL literal built in pieces.
    func authorNames(inCountry code: String) throws -> [String] {
        try writer.read { db in
            var sql: SQL = "SELECT name FROM author"
            sql.append(literal: " WHERE countryCode = \(code) ORDER BY name")
            return try String.fetchAll(db, SQLRequest<String>(literal: sql))
        }
    }

    /// Imports authors: one statement per chunk, existing names updated.
    func importAuthors(_ authors: [ShelfAuthor]) throws -> [ShelfAuthor] {
        try writer.write { db in try ShelfAuthor.upsertAll(db, authors) }
    }

    /// A scratch table, dropped whether or not a previous run left it.
    func resetScratch() throws {
        try writer.write { db in
            try db.drop(table: "scratch", ifExists: true)
            try db.create(table: "scratch") { t in t.autoIncrementedPrimaryKey("id") }
            try db.drop(table: "scratch", ifExists: true)
            try db.drop(table: "scratch", ifExists: true)
        }
    }
}

struct ShelfAuthorDraft: Codable, PersistableRecord {
    static let databaseTableName = "author"
    var name: String
}

// MARK: - The same service's maintenance and search code, on a DatabaseQueue

/// A book and its author from one raw-SQL join, each decoded from its own
/// columns (both tables have `id`).
struct ShelfBookWithAuthor {
    var book: ShelfBook
    var author: ShelfAuthor
}

/// A record whose columns are snake_case, read and written with GRDB's
/// strategy names.
struct ShelfLoan: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "loan"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    var id: Int64?
    var bookId: Int64
    var borrowerName: String
}

/// The full-text index of the books' titles.
struct ShelfBookFT: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "book_ft"
    var title: String
}

struct ShelfMaintenance {
    let dbQueue: DatabaseQueue

    /// ISBNs are checked by a function, which fails its statement with a
    /// constraint error that callers match on.
    static let validISBN = DatabaseFunction("valid_isbn", argumentCount: 1, pure: true) { values in
        guard let isbn = String.fromDatabaseValue(values[0]), isbn.allSatisfy(\.isNumber) else {
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "invalid ISBN")
        }
        return true
    }

    init(_ dbQueue: DatabaseQueue) throws {
        self.dbQueue = dbQueue
        try dbQueue.inDatabase { db in
            try db.add(function: Self.validISBN)
            try db.execute(sql: """
                CREATE TABLE loan (id INTEGER PRIMARY KEY, book_id INTEGER NOT NULL REFERENCES book(id), borrower_name TEXT NOT NULL);
                CREATE VIRTUAL TABLE book_ft USING fts5(title);
                INSERT INTO book_ft(rowid, title) SELECT id, title FROM book;
                """)
        }
    }

    func booksWithAuthors() throws -> [ShelfBookWithAuthor] {
        try dbQueue.read { db in
            let adapters = splittingRowAdapters(columnCounts: [
                try db.columns(in: "book").count, try db.columns(in: "author").count])
            let adapter = ScopeAdapter(["book": adapters[0], "author": adapters[1]])
            let rows = try Row.fetchAll(
                db, sql: "SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId ORDER BY book.id",
                adapter: adapter)
            return try rows.map { row in ShelfBookWithAuthor(book: try row["book"], author: try row["author"]) }
        }
    }

    /// Titles that start with the words typed.
    func titles(startingWith text: String) throws -> [String] {
        try dbQueue.read { db in
            guard let pattern = FTS5Pattern(matchingPrefixPhrase: text) else { return [] }
            let request = ShelfBookFT.filter(sql: "book_ft MATCH ?", arguments: [pattern]).order(Column.rank)
            return try ShelfBookFT.fetchAll(db, request).map(\.title)
        }
    }

    func lend(bookId: Int64, to name: String) throws {
        try dbQueue.inTransaction { db in
            try ShelfLoan(id: nil, bookId: bookId, borrowerName: name).insert(db)
            return .commit
        }
    }

    func borrowers() throws -> [String] {
        try dbQueue.read { db in try ShelfLoan.fetchAll(db).map(\.borrowerName) }
    }

    func isValidISBN(_ isbn: String) throws -> Bool {
        do {
            return try dbQueue.read { db in try Bool.fetchOne(db, sql: "SELECT valid_isbn(?)", arguments: [isbn]) } ?? false
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return false
        }
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
        #expect(try library.author(namedCaseInsensitively: "TOLKIEN")?.id == tolkienID)
        #expect(try library.authors(named: "To").map(\.name) == ["Tolkien", "Tove Jansson"])
        #expect(try library.authorsWithoutCountry().map(\.name) == ["Tove Jansson"])
        #expect(try library.books(ofAuthors: [tolkienID, toveID]).map(\.title) == ["The Hobbit, Revised", "Moominvalley"])
        #expect(try library.bookTitles(since: published) == ["The Hobbit, Revised"])
        #expect(try library.authorIDs() == [tolkienID, toveID])
        #expect(try library.hasBooks(authorID: toveID))
        #expect(try library.namesOfAuthorsWithBooks() == ["Tolkien", "Tove Jansson"])
        #expect(try library.authorCount(inCountry: "GB") == 1)
        #expect(try library.authorRows().map { try $0["name"] as String } == ["Tolkien", "Tove Jansson"])
        #expect(try library.noBookTitled("Nothing"))
        #expect(try !library.noBookTitled("Moominvalley"))
        #expect(try library.authorsByCountry().map(\.name) == ["Tolkien", "Tove Jansson"])
        #expect(try library.lastBookID() == 2)
        #expect(try library.deleteBooks(ids: [2, 99]) == 1)
        #expect(try !library.hasBooks(authorID: toveID))
        #expect(try library.namesOfAuthorsWithBooks() == ["Tolkien"])
        #expect(try library.bookCount(idsIn: 1...1) == 1)
        #expect(try library.countryCodes() == ["GB", "??"])
        #expect(try library.authorNamesIgnoringCase() == ["Tolkien", "Tove Jansson"])
        // Against the same SQL written by hand.
        let (nextIDs, labels) = try library.writer.read { db in
            (try Int64.fetchAll(db, sql: "SELECT id + 1 FROM book ORDER BY id"),
             try String.fetchAll(db, sql: "SELECT substr(trim(title), 1, 3) || ':' || CAST(isbn AS TEXT) FROM book ORDER BY id"))
        }
        #expect(try library.nextBookIDs() == nextIDs)
        #expect(nextIDs.count == 1)   // book 2 was deleted above
        #expect(try library.titleLabels() == labels)
        #expect(labels == ["The:1"])
        #expect(try library.authorNames(inCountry: "GB") == ["Tolkien"])
        try library.resetScratch()
        let leGuin = try library.addAuthor(named: "Le Guin")
        #expect(leGuin.id != nil && leGuin.countryCode == nil)
        try library.setCountry("US", ofAuthorsNamed: ["Le Guin", "Tove Jansson"])
        #expect(try library.authorCount(inCountry: "US") == 2)
        let imported = try library.importAuthors([
            ShelfAuthor(id: leGuin.id, name: "Ursula K. Le Guin", countryCode: "US"),
            ShelfAuthor(id: nil, name: "Borges", countryCode: "AR"),
        ])
        #expect(imported.map(\.name) == ["Ursula K. Le Guin", "Borges"])
        #expect(imported.allSatisfy { $0.id != nil })
        #expect(try library.authorNames(inCountry: "US") == ["Tove Jansson", "Ursula K. Le Guin"])
    }

    @Test func theMaintenanceCodeRunsOnQuarry() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: directory.path("library.sqlite"))
        let library = try Shelf(dbQueue)
        let tolkien = try library.saveAuthor(ShelfAuthor(id: nil, name: "Tolkien", countryCode: "GB"))
        let tove = try library.saveAuthor(ShelfAuthor(id: nil, name: "Tove Jansson", countryCode: nil))
        try library.addBook(ShelfBook(id: nil, authorId: try #require(tove.id), title: "Moominvalley in November", isbn: "2", publishedAt: nil))
        try library.addBook(ShelfBook(id: nil, authorId: try #require(tolkien.id), title: "The Hobbit", isbn: "1", publishedAt: nil))
        let maintenance = try ShelfMaintenance(dbQueue)

        let pairs = try maintenance.booksWithAuthors()
        #expect(pairs.map(\.book.title) == ["Moominvalley in November", "The Hobbit"])
        #expect(pairs.map(\.author.name) == ["Tove Jansson", "Tolkien"])
        #expect(pairs.map(\.author.id) == [tove.id, tolkien.id])

        #expect(try maintenance.titles(startingWith: "moominvalley in") == ["Moominvalley in November"])
        #expect(try maintenance.titles(startingWith: "in november") == [])   // not at the start

        try maintenance.lend(bookId: 1, to: "Sam")
        #expect(try maintenance.borrowers() == ["Sam"])
        #expect(try maintenance.isValidISBN("978"))
        #expect(try !maintenance.isValidISBN("97x"))
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
            #expect(try Shelf.migrator.appliedIdentifiers(db) == ["v1", "v2", "v3"])
            #expect(try db.indexes(on: "book").contains { $0.name == "index_book_on_title" })
        }
        #expect(try library.authors(named: "Le").map(\.name) == ["Le Guin"])
    }
}
