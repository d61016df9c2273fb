// Full-text queries of the query interface: matching(_:) on a record of the
// FTS5 table and on its content table, bm25 ranking, highlight and snippet,
// each pinned, checked against SQL written by hand, and compared with the
// answers of the sqlite3 shell on the same database file.

import Foundation
import Quarry
import Testing

/// A book with its highlighted title, for annotated requests.
private struct HighlightedBook: Decodable, FetchableRecord, Equatable {
    var id: Int64
    var title: String
    var highlightedTitle: String
}

@Suite("FTS5 queries")
struct FTS5QueryTests {

    @Test(arguments: WriterKind.allCases)
    func matchingTheFullTextTable(kind: WriterKind) throws {
        try inLibrary(kind) { db, path in
            let pattern = try #require(FTS5Pattern(matchingAllTokensIn: "the sea"))
            let request = BookFT.matching(pattern)
            try expectSQL(request, db, #"SELECT * FROM "book_ft" WHERE "book_ft" MATCH ?"#, [#""the" "sea""#])
            let titles = try request.fetchAll(db).map(\.title)
            let expected = try String.fetchAll(db, sql: "SELECT title FROM book_ft WHERE book_ft MATCH '\"the\" \"sea\"'")
            #expect(titles == expected)
            #expect(Set(titles) == ["The Old Man and the Sea", "Moby-Dick", "Le Comte de Monte-Cristo",
                                    "Twenty Thousand Leagues Under the Seas", "Dune"])
            if let shell = try SQLiteShell.rows(path, "SELECT title FROM book_ft WHERE book_ft MATCH '\"the\" \"sea\"'") {
                #expect(titles == shell)
            }

            // Key paths name the columns of the full-text table.
            let authors = BookFT.matching(pattern).select(\.author).order(\.author)
            try expectSQL(authors, db, #"SELECT "author" FROM "book_ft" WHERE "book_ft" MATCH ? ORDER BY "author""#, [#""the" "sea""#])
            #expect(try authors.fetchAll(db).first == "Alexandre Dumas")

            // Diacritics are removed by the tokenizer of the fixture.
            let miserables = try #require(FTS5Pattern(matchingPhrase: "les MISERABLES"))
            #expect(try BookFT.matching(miserables).fetchAll(db).map(\.author) == ["Victor Hugo"])

            // A nil pattern matches nothing.
            try expectSQL(BookFT.matching(nil), db, #"SELECT * FROM "book_ft" WHERE 0"#)
            #expect(try BookFT.matching(nil).fetchAll(db).isEmpty)
            #expect(try BookFT.all().matching(FTS5Pattern(matchingAnyTokenIn: "...")).fetchCount(db) == 0)
            // Combined with other filters.
            let filtered = BookFT.filter(\.author != "Herman Melville").matching(pattern)
            try expectSQL(filtered, db, #"SELECT * FROM "book_ft" WHERE ("author" <> ?) AND ("book_ft" MATCH ?)"#,
                          ["Herman Melville", #""the" "sea""#])
            #expect(try filtered.fetchCount(db) == 4)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func matchingTheContentTable(kind: WriterKind) throws {
        try inLibrary(kind) { db, path in
            let pattern = try #require(FTS5Pattern(matchingAnyTokenIn: "whale nemo"))
            let request = FTSBook.matching(pattern, in: "book_ft").order(\.id)
            try expectSQL(request, db, """
                SELECT "book".* FROM "book" JOIN "book_ft" ON "book_ft"."rowid" = "book"."id" \
                WHERE "book_ft" MATCH ? ORDER BY "book"."id"
                """, [#""whale" OR "nemo""#])
            let ids = try request.fetchAll(db).map(\.id)
            #expect(ids == [2, 5])
            let handWritten = try Int64.fetchAll(db, sql: """
                SELECT b.id FROM book b JOIN book_ft f ON f.rowid = b.id WHERE book_ft MATCH ? ORDER BY b.id
                """, arguments: [pattern])
            #expect(ids == handWritten)
            if let shell = try SQLiteShell.rows(path, """
                SELECT b.id FROM book b JOIN book_ft f ON f.rowid = b.id WHERE book_ft MATCH 'whale OR nemo' ORDER BY b.id
                """) {
                #expect(ids.map { $0.map(String.init) ?? "" } == shell)
            }
            // The record type of the full-text table names it too.
            try expectSQL(FTSBook.matching(pattern, in: BookFT.self), db, """
                SELECT "book".* FROM "book" JOIN "book_ft" ON "book_ft"."rowid" = "book"."id" WHERE "book_ft" MATCH ?
                """, [#""whale" OR "nemo""#])
            // A nil pattern matches nothing.
            #expect(try FTSBook.matching(nil, in: "book_ft").fetchAll(db).isEmpty)
            // Other filters and the match combine.
            let later = FTSBook.filter(\.id > 2).matching(pattern, in: "book_ft")
            #expect(try later.fetchAll(db).map(\.id) == [5])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func ranking(kind: WriterKind) throws {
        try inLibrary(kind) { db, path in
            let pattern = try #require(FTS5Pattern(matchingAllTokensIn: "sea"))
            // FTS5's rank column.
            let byRank = BookFT.matching(pattern).order(FTS5.rank(of: BookFT.self)).select(\.title)
            try expectSQL(byRank, db, #"SELECT "title" FROM "book_ft" WHERE "book_ft" MATCH ? ORDER BY "book_ft"."rank""#, ["\"sea\""])
            let ranked = try byRank.fetchAll(db)
            let handWritten = try String.fetchAll(db, sql: "SELECT title FROM book_ft WHERE book_ft MATCH 'sea' ORDER BY rank")
            #expect(ranked == handWritten)
            #expect(ranked.count == 5)
            if let shell = try SQLiteShell.rows(path, "SELECT title FROM book_ft WHERE book_ft MATCH 'sea' ORDER BY rank") {
                #expect(ranked == shell)
            }

            // bm25, as rank, and with column weights.
            let byBM25 = BookFT.matching(pattern).order(bm25()).select(\.title)
            try expectSQL(byBM25, db, #"SELECT "title" FROM "book_ft" WHERE "book_ft" MATCH ? ORDER BY bm25("book_ft")"#, ["\"sea\""])
            #expect(try byBM25.fetchAll(db) == ranked)
            let weighted = BookFT.matching(pattern).order(bm25(weights: ["title": 10, "body": 0.5])).select(\.title)
            try expectSQL(weighted, db, #"SELECT "title" FROM "book_ft" WHERE "book_ft" MATCH ? ORDER BY bm25("book_ft", ?, ?, ?)"#,
                          ["\"sea\"", 10.0, 1.0, 0.5])
            let weightedSQL = "SELECT title FROM book_ft WHERE book_ft MATCH 'sea' ORDER BY bm25(book_ft, 10.0, 1.0, 0.5)"
            let weightedTitles = try weighted.fetchAll(db)
            #expect(weightedTitles == (try String.fetchAll(db, sql: weightedSQL)))
            #expect(weightedTitles.first == "The Old Man and the Sea")
            if let shell = try SQLiteShell.rows(path, weightedSQL) {
                #expect(weightedTitles == shell)
            }
            // Weights stop at the last weighted column.
            try expectSQL(BookFT.all().order(bm25(weights: ["title": 2])), db,
                          #"SELECT * FROM "book_ft" ORDER BY bm25("book_ft", ?)"#, [2.0])

            // Content records, ranked through the joined full-text table.
            let books = FTSBook.matching(pattern, in: BookFT.self).order(bm25(BookFT.self, weights: ["title": 10, "body": 0.5]))
            try expectSQL(books, db, """
                SELECT "book".* FROM "book" JOIN "book_ft" ON "book_ft"."rowid" = "book"."id" \
                WHERE "book_ft" MATCH ? ORDER BY bm25("book_ft", ?, ?, ?)
                """, ["\"sea\"", 10.0, 1.0, 0.5])
            #expect(try books.fetchAll(db).map(\.title) == weightedTitles)
            let byContentRank = FTSBook.matching(pattern, in: BookFT.self).order(FTS5.rank(of: BookFT.self))
            #expect(try byContentRank.fetchAll(db).map(\.title) == ranked)
            // An unknown column in the weights names it.
            let error = #expect(throws: DatabaseError.self) {
                try BookFT.matching(pattern).order(bm25(weights: ["publisher": 2])).fetchAll(db)
            }
            #expect(error?.message.contains("publisher") == true)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func highlightAndSnippet(kind: WriterKind) throws {
        try inLibrary(kind) { db, path in
            let pattern = try #require(FTS5Pattern(matchingAllTokensIn: "sea"))
            let highlighted = BookFT.matching(pattern)
                .select(highlight(\.title, open: "[", close: "]"))
                .order(FTS5.rank(of: BookFT.self))
            try expectSQL(highlighted, db, """
                SELECT highlight("book_ft", ?, ?, ?) FROM "book_ft" WHERE "book_ft" MATCH ? ORDER BY "book_ft"."rank"
                """, [0, "[", "]", "\"sea\""])
            let titles = try highlighted.fetchAll(db)
            let highlightSQL = "SELECT highlight(book_ft, 0, '[', ']') FROM book_ft WHERE book_ft MATCH 'sea' ORDER BY rank"
            #expect(titles == (try String.fetchAll(db, sql: highlightSQL)))
            #expect(titles.contains("The Old Man and the [Sea]"))
            #expect(titles.contains("Twenty Thousand Leagues Under the Seas"))
            if let shell = try SQLiteShell.rows(path, highlightSQL) {
                #expect(titles == shell)
            }

            let snippets = BookFT.matching(pattern)
                .select(snippet(\.body, open: "<", close: ">", ellipsis: "…", tokenCount: 6))
                .order(FTS5.rank(of: BookFT.self))
            try expectSQL(snippets, db, """
                SELECT snippet("book_ft", ?, ?, ?, ?, ?) FROM "book_ft" WHERE "book_ft" MATCH ? ORDER BY "book_ft"."rank"
                """, [2, "<", ">", "…", 6, "\"sea\""])
            let snippetSQL = "SELECT snippet(book_ft, 2, '<', '>', '…', 6) FROM book_ft WHERE book_ft MATCH 'sea' ORDER BY rank"
            let bodies = try snippets.fetchAll(db)
            #expect(bodies == (try String.fetchAll(db, sql: snippetSQL)))
            #expect(bodies.allSatisfy { $0.contains("<sea") || $0.contains("<Sea") })
            if let shell = try SQLiteShell.rows(path, snippetSQL) {
                #expect(bodies == shell)
            }
            // The best column of each row.
            let anyColumn = BookFT.matching(pattern).select(snippet(BookFT.self, open: "<", close: ">", ellipsis: "…", tokenCount: 4))
            try expectSQL(anyColumn, db, #"SELECT snippet("book_ft", ?, ?, ?, ?, ?) FROM "book_ft" WHERE "book_ft" MATCH ?"#,
                          [-1, "<", ">", "…", 4, "\"sea\""])
            let anySQL = "SELECT snippet(book_ft, -1, '<', '>', '…', 4) FROM book_ft WHERE book_ft MATCH 'sea'"
            #expect(try anyColumn.fetchAll(db) == (try String.fetchAll(db, sql: anySQL)))

            // Hostile markers are bound, never written into the SQL.
            // (SQLite reads markers up to their first NUL character.)
            let hostile = BookFT.matching(pattern).select(highlight(\.title, open: "'); DROP TABLE book; --", close: "\"x\u{0}y"))
            let hostileTitles = try hostile.fetchAll(db)
            #expect(hostileTitles.contains("The Old Man and the '); DROP TABLE book; --Sea\"x"), "\(hostileTitles)")

            // Content records annotated with a highlight of the joined table.
            let annotated = FTSBook.matching(pattern, in: BookFT.self)
                .select(\.id, \.title)
                .annotated(with: highlight(\BookFT.title, open: "*", close: "*").forKey("highlightedTitle"))
                .asRequest(of: HighlightedBook.self)
            let annotatedBooks = try annotated.fetchAll(db)
            #expect(annotatedBooks.contains(HighlightedBook(id: 1, title: "The Old Man and the Sea", highlightedTitle: "The Old Man and the *Sea*")))
            #expect(annotatedBooks.count == 5)
            let annotatedSQL = """
                SELECT b.id, highlight(book_ft, 0, '*', '*') FROM book b JOIN book_ft f ON f.rowid = b.id \
                WHERE book_ft MATCH 'sea' ORDER BY b.id
                """
            if let shell = try SQLiteShell.rows(path, annotatedSQL) {
                let ours = annotatedBooks.sorted { $0.id < $1.id }.map { "\($0.id)\u{1F}\($0.highlightedTitle)" }
                #expect(ours == shell)
            }
            // A key path that names no column of the full-text table names it.
            struct NotFTS: Codable, TableRecord { var title: String; static let databaseTableName = "book_ft"; var publisher: String }
            let error = #expect(throws: DatabaseError.self) {
                try BookFT.matching(pattern).select(highlight(\NotFTS.publisher, open: "[", close: "]")).fetchAll(db)
            }
            #expect(error?.message.contains("publisher") == true)
        }
    }

    /// The content table changes; the queries see the index the triggers keep.
    @Test(arguments: WriterKind.allCases)
    func synchronizedQueries(kind: WriterKind) throws {
        try inLibrary(kind) { db, _ in
            let kraken = try #require(FTS5Pattern(matchingAllTokensIn: "kraken"))
            #expect(try FTSBook.matching(kraken, in: BookFT.self).fetchCount(db) == 0)
            var book = FTSBook(id: nil, title: "The Kraken Wakes", author: "John Wyndham", body: "Things from the deep sea")
            try book.insert(db)
            #expect(try FTSBook.matching(kraken, in: BookFT.self).fetchAll(db) == [book])
            book.title = "Out of the Deeps"
            try book.update(db)
            #expect(try FTSBook.matching(kraken, in: BookFT.self).fetchCount(db) == 0)
            let deeps = try #require(FTS5Pattern(matchingAllPrefixesIn: "dee"))
            #expect(try FTSBook.matching(deeps, in: BookFT.self).fetchAll(db).map(\.title) == ["Out of the Deeps"])
            _ = try book.delete(db)
            #expect(try FTSBook.matching(deeps, in: BookFT.self).fetchCount(db) == 0)
            #expect(try BookFT.matching(deeps).fetchCount(db) == 0)
        }
    }
}
