// Enum records (single-table inheritance): one table, a discriminator
// column, the union of the cases' columns; fetch decodes the right case,
// writes fill the case's columns and NULL the others, requests filter by case.

import Foundation
import Quarry
import Testing

private struct MediaBook: Codable, Equatable {
    var id: Int64
    var title: String
    var pages: Int
}

private struct MediaFilm: Codable, Equatable {
    var id: Int64
    var title: String
    var minutes: Int
    var director: String?
}

private enum Media: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "media"
    case book(MediaBook)
    case film(MediaFilm)
    case podcast(id: Int64, title: String)
    case placeholder

    var title: String? {
        switch self {
        case .book(let book): return book.title
        case .film(let film): return film.title
        case .podcast(_, let title): return title
        case .placeholder: return nil
        }
    }
}

/// Renamed cases and another discriminator column.
private enum Shape: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "shape"
    static let databaseDiscriminatorColumn = "type"
    struct Circle: Codable, Equatable { var id: Int64; var radius: Double }
    struct Square: Codable, Equatable { var id: Int64; var side: Double }
    case circle(Circle)
    case square(Square)

    enum CodingKeys: String, CodingKey {
        case circle = "CIRCLE", square = "SQUARE"
    }
}

/// A discriminator named through the record's naming strategy, like its other columns.
private enum Token: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "token"
    static let databaseDiscriminatorColumn = "tokenKind"
    static let databaseColumnEncodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    static let databaseColumnDecodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    struct Word: Codable, Equatable { var id: Int64; var wordText: String }
    case word(Word)
    case number(id: Int64, numberValue: Int)
}

@Suite("Enum records")
struct EnumRecordTests {
    /// The table, with the schema DSL: the same on SQLite and PostgreSQL.
    static func createSchema(_ db: Database) throws {
        try db.create(table: "media") { t in
            t.primaryKey("id", .integer)
            t.column("kind", .text).notNull()
            t.column("title", .text)
            t.column("pages", .integer)
            t.column("minutes", .integer)
            t.column("director", .text)
        }
    }

    func withMedia(_ backend: Backend, _ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writer = try backend.make(in: directory)
        try writer.write { db throws in
            try Self.createSchema(db)
            try Media.book(MediaBook(id: 1, title: "Dune", pages: 412)).insert(db)
            try Media.film(MediaFilm(id: 2, title: "Alien", minutes: 117, director: "Scott")).insert(db)
            try Media.book(MediaBook(id: 3, title: "Emma", pages: 180)).insert(db)
            try Media.podcast(id: 4, title: "Talk").insert(db)
            try moveIdentitySequences(db, tables: ["media"])
            try Media.placeholder.insert(db)
            try body(db)
        }
    }

    @Test(arguments: Backend.all)
    func insertWritesTheCaseColumnsAndNullsTheOthers(_ backend: Backend) throws {
        try withMedia(backend) { db throws in
            let rows = try Row.fetchAll(db, sql: "SELECT id, kind, title, pages, minutes, director FROM media ORDER BY id")
            #expect(rows.map(\.databaseValues) == [
                [.integer(1), .text("book"), .text("Dune"), .integer(412), .null, .null],
                [.integer(2), .text("film"), .text("Alien"), .null, .integer(117), .text("Scott")],
                [.integer(3), .text("book"), .text("Emma"), .integer(180), .null, .null],
                [.integer(4), .text("podcast"), .text("Talk"), .null, .null, .null],
                [.integer(5), .text("placeholder"), .null, .null, .null, .null],
            ])
        }
    }

    @Test(arguments: Backend.all)
    func fetchDecodesTheRightCase(_ backend: Backend) throws {
        try withMedia(backend) { db throws in
            let media = try Media.fetchAll(db, sql: "SELECT * FROM media ORDER BY id")
            #expect(media == [
                .book(MediaBook(id: 1, title: "Dune", pages: 412)),
                .film(MediaFilm(id: 2, title: "Alien", minutes: 117, director: "Scott")),
                .book(MediaBook(id: 3, title: "Emma", pages: 180)),
                .podcast(id: 4, title: "Talk"),
                .placeholder,
            ])
            #expect(try Media.fetchOne(db, key: 2) == media[1])
            #expect(try Media.fetchCount(db) == 5)
        }
    }

    @Test(arguments: Backend.all)
    func updateToAnotherCaseLeavesNothingStale(_ backend: Backend) throws {
        try withMedia(backend) { db throws in
            try Media.film(MediaFilm(id: 1, title: "Dune", minutes: 155, director: nil)).update(db)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT kind, title, pages, minutes FROM media WHERE id = 1"))
            #expect(row.databaseValues == [.text("film"), .text("Dune"), .null, .integer(155)])
            #expect(try Media.fetchOne(db, key: 1) == .film(MediaFilm(id: 1, title: "Dune", minutes: 155, director: nil)))
            // save() and upsert go through the same columns.
            try Media.book(MediaBook(id: 9, title: "Ulysses", pages: 730)).save(db)
            #expect(try Media.fetchOne(db, key: 9) == .book(MediaBook(id: 9, title: "Ulysses", pages: 730)))
            try Media.book(MediaBook(id: 1, title: "Dune", pages: 500)).upsert(db)
            #expect(try Int.fetchOne(db, sql: "SELECT minutes FROM media WHERE id = 1") == nil)
            #expect(try Int.fetchOne(db, sql: "SELECT pages FROM media WHERE id = 1") == 500)
        }
    }

    @Test(arguments: Backend.all)
    func insertAllWritesMixedCasesInMultiRowStatements(_ backend: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try backend.make(in: directory)
        try writer.write { db throws in
            try Self.createSchema(db)
            let media: [Media] = (1...50).map { index in
                switch index % 3 {
                case 0: return .book(MediaBook(id: Int64(index), title: "B\(index)", pages: index))
                case 1: return .film(MediaFilm(id: Int64(index), title: "F\(index)", minutes: index, director: nil))
                default: return .podcast(id: Int64(index), title: "P\(index)")
                }
            }
            try Media.insertAll(db, media)
            #expect(try Media.fetchAll(db, sql: "SELECT * FROM media ORDER BY id") == media)
            let counts = try Row.fetchAll(db, sql: "SELECT kind, COUNT(*), COUNT(pages), COUNT(minutes) FROM media GROUP BY kind ORDER BY kind")
            #expect(counts.map(\.databaseValues) == [
                [.text("book"), .integer(16), .integer(16), .integer(0)],
                [.text("film"), .integer(17), .integer(0), .integer(17)],
                [.text("podcast"), .integer(17), .integer(0), .integer(0)],
            ])
        }
    }

    @Test(arguments: Backend.all)
    func requestsFilterByCase(_ backend: Backend) throws {
        try withMedia(backend) { db throws in
            let books = Media.filter(case: Media.book).order(sql: "id")
            try expectSQL(books, db, #"SELECT * FROM "media" WHERE "kind" = ? ORDER BY id"#, ["book"])
            let expected = try Media.fetchAll(db, sql: "SELECT * FROM media WHERE kind = 'book' ORDER BY id")
            #expect(try books.fetchAll(db) == expected)
            #expect(expected.count == 2)

            let long = Media.filter(case: Media.book, \.pages > 300)
            try expectSQL(long, db, #"SELECT * FROM "media" WHERE ("kind" = ?) AND ("pages" > ?)"#, ["book", 300])
            #expect(try long.fetchAll(db) == [.book(MediaBook(id: 1, title: "Dune", pages: 412))])

            let podcasts = Media.filter(case: Media.podcast)
            try expectSQL(podcasts, db, #"SELECT * FROM "media" WHERE "kind" = ?"#, ["podcast"])
            #expect(try podcasts.fetchAll(db) == [.podcast(id: 4, title: "Talk")])

            let placeholders = Media.all().filter(case: .placeholder)
            try expectSQL(placeholders, db, #"SELECT * FROM "media" WHERE "kind" = ?"#, ["placeholder"])
            #expect(try placeholders.fetchCount(db) == 1)
            #expect(try Media.filter(case: Media.film).deleteAll(db) == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM media WHERE kind = 'film'") == 0)
        }
    }

    @Test(arguments: Backend.all)
    func renamedCasesAndAnotherDiscriminator(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE shape (id INTEGER PRIMARY KEY, type TEXT NOT NULL, radius REAL, side REAL)")
                try Shape.circle(.init(id: 1, radius: 2)).insert(db)
                try Shape.square(.init(id: 2, side: 3)).insert(db)
                let rows = try Row.fetchAll(db, sql: "SELECT type, radius, side FROM shape ORDER BY id")
                #expect(rows.map(\.databaseValues) == [
                    [.text("CIRCLE"), .real(2), .null], [.text("SQUARE"), .null, .real(3)],
                ])
                let squares = Shape.filter(case: Shape.square)
                try expectSQL(squares, db, #"SELECT * FROM "shape" WHERE "type" = ?"#, ["SQUARE"])
                #expect(try squares.fetchAll(db) == [.square(.init(id: 2, side: 3))])
            }
        }
    }

    @Test(arguments: Backend.all)
    func theDiscriminatorFollowsTheNamingStrategy(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE token (id INTEGER PRIMARY KEY, token_kind TEXT NOT NULL, word_text TEXT, number_value INTEGER)")
                try Token.word(.init(id: 1, wordText: "hi")).insert(db)
                try Token.number(id: 2, numberValue: 7).insert(db)
                let rows = try Row.fetchAll(db, sql: "SELECT token_kind, word_text, number_value FROM token ORDER BY id")
                #expect(rows.map(\.databaseValues) == [[.text("word"), .text("hi"), .null], [.text("number"), .null, .integer(7)]])
                #expect(try Token.fetchAll(db, sql: "SELECT * FROM token ORDER BY id") == [
                    .word(.init(id: 1, wordText: "hi")), .number(id: 2, numberValue: 7),
                ])
                let numbers = Token.filter(case: Token.number)
                try expectSQL(numbers, db, #"SELECT * FROM "token" WHERE "token_kind" = ?"#, ["number"])
                #expect(try numbers.fetchAll(db) == [.number(id: 2, numberValue: 7)])
            }
        }
    }

    @Test(arguments: Backend.all)
    func badRowsGiveClearErrors(_ backend: Backend) throws {
        try withMedia(backend) { db throws in
            try db.execute(sql: "INSERT INTO media (id, kind, title) VALUES (10, 'vinyl', 'Kind of Blue')")
            let unknown = #expect(throws: RowDecodingError.self) { _ = try Media.fetchOne(db, key: 10) }
            #expect(unknown?.column == "kind")
            #expect(unknown.map { "\($0)" }?.contains(#"names no case of Media ("book", "film", "podcast", "placeholder")"#) == true)
            let missing = #expect(throws: RowDecodingError.self) {
                _ = try Media.fetchAll(db, sql: "SELECT id, title FROM media")
            }
            #expect(missing?.column == "kind")
            // A book row whose pages are NULL.
            try db.execute(sql: "UPDATE media SET pages = NULL WHERE id = 3")
            let null = #expect(throws: RowDecodingError.self) { _ = try Media.fetchOne(db, key: 3) }
            #expect(null?.column == "pages")
        }
    }

    @Test(arguments: Backend.all)
    func keyPathsOfAnEnumRecordAreRefused(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.read { db throws in
                let error = #expect(throws: KeyPathColumnError.self) { _ = try Media.filter(\.title == "Dune").sql(db) }
                #expect(error?.reason.contains("Media is an enum record") == true)
                #expect(error?.reason.contains("filter(case:)") == true)
            }
        }
    }
}
