// Tests of requests written with SQL literals: SQLRequest, and filter / order
// / select / group / having (literal:) on query-interface requests. Results
// are checked against the same queries written by hand in SQL, on Chinook.

import Foundation
import Quarry
import QuarryTestSupport
import Testing

private struct ArtistAlbumCount: Decodable, Equatable {
    var name: String
    var albums: Int
}

@Suite("SQL literal requests")
struct SQLLiteralRequestTests {
    // Chinook's columns are spelled "artistId" on PostgreSQL (ChinookBackends.swift):
    // the literals name them by key path, or quoted in that spelling, which
    // SQLite matches case-insensitively.
    @Test("SQLRequest fetches rows, values, optional values, records and Decodable types", arguments: Backend.all)
    func sqlRequest(_ backend: Backend) throws {
        try backend.inChinook { db in
            let artistID: Int64 = 90
            let albums: SQLRequest<Album> = "SELECT * FROM \(Album.self) WHERE \(\Album.artistId) = \(artistID) ORDER BY \(\Album.albumId)"
            try expectGenerated(albums.sql(db), "SELECT * FROM \"Album\" WHERE \"artistId\" = ? ORDER BY \"albumId\"", [90])
            let handWritten = try Album.fetchAll(db, sql: "SELECT * FROM Album WHERE ArtistId = 90 ORDER BY AlbumId")
            #expect(try albums.fetchAll(db) == handWritten)
            #expect(handWritten.count == 21)
            #expect(try albums.fetchOne(db) == handWritten.first)
            let cursor = try albums.fetchCursor(db)
            var fromCursor: [Album] = []
            while let album = try cursor.next() { fromCursor.append(album) }
            #expect(fromCursor == handWritten)

            let titles = SQLRequest<String>(sql: "SELECT Title FROM Album WHERE ArtistId = ? ORDER BY AlbumId", arguments: [artistID])
            #expect(try titles.fetchAll(db) == handWritten.map(\.title))
            #expect(try titles.fetchSet(db).count == Set(handWritten.map(\.title)).count)
            let composer: SQLRequest<String?> = "SELECT Composer FROM \(Track.self) WHERE \(\Track.trackId) = \(1)"
            #expect(try composer.fetchOne(db) == .some("Angus Young, Malcolm Young, Brian Johnson"))
            let noComposer: SQLRequest<String?> = "SELECT Composer FROM \(Track.self) WHERE \(\Track.trackId) = \(63)"
            #expect(try noComposer.fetchOne(db) == .some(nil))

            let counts: SQLRequest<ArtistAlbumCount> = """
                SELECT \(\Artist.name) AS name, count(*) AS albums FROM \(Artist.self) JOIN \(Album.self) USING ("artistId")
                GROUP BY "artistId", \(\Artist.name) HAVING count(*) >= \(10) ORDER BY albums DESC, name
                """
            let expected = try Row.fetchAll(db, sql: """
                SELECT Artist.Name, count(*) FROM Artist JOIN Album USING (ArtistId)
                GROUP BY ArtistId, Artist.Name HAVING count(*) >= 10 ORDER BY 2 DESC, 1
                """).map { ArtistAlbumCount(name: try $0[0], albums: try $0[1]) }
            #expect(try counts.fetchAll(db) == expected)
            #expect(expected.first == ArtistAlbumCount(name: "Iron Maiden", albums: 21))

            let row = try #require(try SQLRequest<Row>(literal: "SELECT \(1) AS one, \("two") AS two").fetchOne(db))
            if backend.isPostgreSQL {
                // Arguments are sent untyped: a bare parameter in a select list is text there.
                #expect(try row["one"] as String? == "1")
            } else {
                #expect(try row["one"] as Int? == 1)
            }
            #expect(try row["two"] as String? == "two")
        }
    }

    @Test("SQLRequest reports a decoding mismatch and an SQL error", arguments: Backend.all)
    func sqlRequestFailures(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.read { db throws in
                #expect(throws: RowDecodingError.self) { try db.failingInSavepoint { try SQLRequest<Int>(literal: "SELECT \("ten")").fetchOne(db) } }
                #expect(throws: RowDecodingError.self) { try db.failingInSavepoint { try SQLRequest<Int>(literal: "SELECT NULL").fetchOne(db) } }
                #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try SQLRequest<Row>(literal: "SELECT * FROM missing").fetchAll(db) } }
            }
        }
    }

    @Test("filter, order, select, group and having take literals", arguments: Backend.all)
    func requestLiterals(_ backend: Backend) throws {
        try backend.inChinook { db in
            let minimum = 300_000
            let request = Track
                .filter(literal: "\(\Track.milliseconds) > \(minimum) AND \(\Track.genreId) = \(1)")
                .order(literal: "\(\Track.milliseconds) DESC, \(\Track.trackId)")
                .limit(5)
            try expectSQL(
                request, db,
                "SELECT * FROM \"Track\" WHERE \"milliseconds\" > ? AND \"genreId\" = ? ORDER BY \"milliseconds\" DESC, \"trackId\" LIMIT ?",
                [300_000, 1, 5])
            let expected = try Track.fetchAll(db, sql: """
                SELECT * FROM Track WHERE Milliseconds > 300000 AND GenreId = 1 ORDER BY Milliseconds DESC, TrackId LIMIT 5
                """)
            #expect(try request.fetchAll(db) == expected)
            #expect(expected.count == 5)

            // PostgreSQL's sum of integers is a numeric: cast, for an integer division on both.
            let minutes = Track.all().select(literal: "CAST(sum(\(\Track.milliseconds)) AS BIGINT) / \(60_000)", as: Int.self)
            #expect(try minutes.fetchOne(db) == (try Int.fetchOne(db, sql: "SELECT CAST(sum(Milliseconds) AS BIGINT) / 60000 FROM Track")))

            let genres = Track.all()
                .select(literal: "\(\Track.genreId) AS genre, count(*) AS tracks", as: Row.self)
                .group(literal: "\(\Track.genreId)")
                .having(literal: "count(*) > \(100)")
            let genreRows = try genres.order(literal: "genre").fetchAll(db).map { [try $0["genre"] as Int64?, try $0["tracks"] as Int64?] }
            let handGenres = try Row.fetchAll(db, sql: "SELECT GenreId, count(*) FROM Track GROUP BY GenreId HAVING count(*) > 100 ORDER BY GenreId")
                .map { [try $0[0] as Int64?, try $0[1] as Int64?] }
            #expect(genreRows == handGenres)
            #expect(!handGenres.isEmpty)

            // select(literal:) keeps the record type.
            let partial = try Album.all()
                .select(literal: "\(\Album.albumId), upper(\(\Album.title)) AS title, \(\Album.artistId)")
                .filter(literal: "\(\Album.albumId) = \(1)").fetchOne(db)
            #expect(partial?.title == "FOR THOSE ABOUT TO ROCK WE SALUTE YOU")

            // In a joined request, key paths in literals are qualified by their table.
            let joined = Album.joining(required: Album.artist).filter(literal: "\(\Album.title) LIKE \("A%")")
            let joinedSQL = try joined.sql(db).sql
            #expect(joinedSQL.contains("WHERE \"Album\".\"title\" LIKE ?"))
            #expect(try joined.fetchCount(db) == (try Int.fetchOne(db, sql: "SELECT count(*) FROM Album JOIN Artist USING (ArtistId) WHERE Title LIKE 'A%'")))

            // Static shortcuts.
            #expect(try Album.filter(literal: "\(\Album.artistId) = \(1)").fetchCount(db) == 2)
            #expect(try Album.order(literal: "\(\Album.title)").fetchOne(db)?.title == (try String.fetchOne(db, sql: "SELECT Title FROM Album ORDER BY Title")))
        }
    }

    @Test("execute(literal:) runs several statements, each with its own arguments", arguments: Backend.all)
    func executeLiteral(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE t (a INTEGER, b TEXT)")
                try db.execute(literal: "INSERT INTO t VALUES (\(1), \("x")); INSERT INTO t VALUES (\(2), \("y'; --"))")
                #expect(try Row.fetchAll(db, sql: "SELECT a, b FROM t ORDER BY a").map { "\(try $0[0] as Int)\(try $0[1] as String)" } == ["1x", "2y'; --"])
                let score = 7
                try db.execute(literal: "UPDATE t SET a = a + \(score) WHERE b = \("x")")
                #expect(try Int.fetchOne(db, sql: "SELECT a FROM t WHERE b = 'x'") == 8)
            }
        }
    }
}
