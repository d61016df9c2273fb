// Association aggregates on Chinook: annotated(with:), having, filters and
// orderings on Author.books.count-style expressions. Each query's SQL is
// pinned, and its results are compared with the same query written by hand.

import Foundation
import Quarry
import Testing

extension Album {
    static let tracks = hasMany(Track.self)
}

private struct AggCustomer: Codable, FetchableRecord, TableRecord {
    var customerId: Int64
    var supportRepId: Int64?
    static let databaseTableName = "Customer"
}

extension Employee {
    fileprivate static let reports = hasMany(Employee.self, key: "reports", using: \.reportsTo)
    fileprivate static let customers = hasMany(AggCustomer.self, key: "customers", using: \.supportRepId)
}

private struct ArtistInfo: Decodable, FetchableRecord {
    var artist: Artist
    var albumCount: Int
}

private struct AlbumStats: Decodable, FetchableRecord, Equatable {
    var albumId: Int64
    var title: String
    var trackCount: Int
    var averageLength: Double?
    var minTrackMilliseconds: Int?
    var maxTrackMilliseconds: Int?
    var trackMillisecondsSum: Int?
}

@Suite("Association aggregates")
struct AssociationAggregateTests {

    @Test(arguments: Backend.all)
    func annotatedWithCount(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Artist.annotated(with: Artist.albums.count).order(\.artistId).asRequest(of: ArtistInfo.self)
            try expectChinookSQL(request, db, """
                SELECT *, (SELECT COUNT(*) FROM "Album" "albums" WHERE "albums"."ArtistId" = "Artist"."ArtistId") AS "albumCount" \
                FROM "Artist" ORDER BY "artistId"
                """)
            let fetched = try request.fetchAll(db).map { "\($0.artist.artistId ?? 0):\($0.artist.name ?? ""):\($0.albumCount)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT ar.ArtistId, ar.Name, COUNT(al.AlbumId) FROM Artist ar LEFT JOIN Album al ON al.ArtistId = ar.ArtistId
                GROUP BY ar.ArtistId, ar.Name ORDER BY ar.ArtistId
                """).map { "\(try $0[0] as Int64):\(try $0[1] as String? ?? ""):\(try $0[2] as Int)" }
            #expect(fetched == expected)
            #expect(fetched.count == 275)
            #expect(fetched.first == "1:AC/DC:2")
        }
    }

    @Test(arguments: Backend.all)
    func severalAggregatesWithDefaultAndCustomNames(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Album
                .annotated(with: Album.tracks.count, Album.tracks.min(\.milliseconds), Album.tracks.max(\.milliseconds),
                           Album.tracks.sum(\.milliseconds))
                .annotated(with: Album.tracks.average(\.milliseconds).forKey("averageLength"))
                .filter(\.albumId <= 3)
                .order(\.albumId)
                .asRequest(of: AlbumStats.self)
            // Each aggregate is a subquery of its own, with its own alias.
            // PostgreSQL's AVG of integers is a numeric: Quarry makes it a double.
            func average(_ column: String) -> String {
                backend.isPostgreSQL ? "CAST(AVG(\(column)) AS DOUBLE PRECISION)" : "AVG(\(column))"
            }
            func subquery(_ alias: String) -> String {
                #"FROM "Track" "\#(alias)" WHERE "\#(alias)"."AlbumId" = "Album"."AlbumId")"#
            }
            try expectChinookSQL(request, db, """
                SELECT *, (SELECT COUNT(*) \(subquery("tracks")) AS "trackCount", \
                (SELECT MIN("tracks2"."milliseconds") \(subquery("tracks2")) AS "minTrackMilliseconds", \
                (SELECT MAX("tracks3"."milliseconds") \(subquery("tracks3")) AS "maxTrackMilliseconds", \
                (SELECT SUM("tracks4"."milliseconds") \(subquery("tracks4")) AS "trackMillisecondsSum", \
                (SELECT \(average(#""tracks5"."milliseconds""#)) \(subquery("tracks5")) AS "averageLength" \
                FROM "Album" WHERE "albumId" <= ? ORDER BY "albumId"
                """, [3])
            let fetched = try request.fetchAll(db)
            let expected = try Row.fetchAll(db, sql: """
                SELECT al.AlbumId, al.Title, COUNT(t.TrackId), CAST(AVG(t.Milliseconds) AS DOUBLE PRECISION), MIN(t.Milliseconds), MAX(t.Milliseconds), SUM(t.Milliseconds)
                FROM Album al LEFT JOIN Track t ON t.AlbumId = al.AlbumId WHERE al.AlbumId <= 3 GROUP BY al.AlbumId, al.Title ORDER BY al.AlbumId
                """).map { row in
                    AlbumStats(
                        albumId: try row[0], title: try row[1], trackCount: try row[2], averageLength: try row[3],
                        minTrackMilliseconds: try row[4], maxTrackMilliseconds: try row[5], trackMillisecondsSum: try row[6])
                }
            #expect(fetched == expected)
            #expect(fetched.map(\.trackCount) == [10, 1, 3])
        }
    }

    @Test(arguments: Backend.all)
    func havingIsEmpty(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Artist.having(Artist.albums.isEmpty).order(\.artistId).select(\.artistId)
            try expectChinookSQL(request, db, """
                SELECT "artistId" FROM "Artist" \
                WHERE NOT EXISTS (SELECT 1 FROM "Album" "albums" WHERE "albums"."ArtistId" = "Artist"."ArtistId") \
                ORDER BY "artistId"
                """)
            let expected = try Int64?.fetchAll(db, sql: """
                SELECT ArtistId FROM Artist a WHERE NOT EXISTS (SELECT 1 FROM Album WHERE Album.ArtistId = a.ArtistId) ORDER BY ArtistId
                """)
            #expect(try request.fetchAll(db) == expected)
            #expect(expected.count == 71)
            // `!isEmpty` keeps the others.
            #expect(try Artist.having(!Artist.albums.isEmpty).fetchCount(db) == 275 - 71)
        }
    }

    @Test(arguments: Backend.all)
    func filterAndOrderByAggregate(backend: Backend) throws {
        try backend.inChinook { db in
            let albumCount = Artist.albums.count
            let request = Artist.filter(albumCount >= 5).order(.desc(albumCount), .asc(\.name)).select(\.name)
            try expectChinookSQL(request, db, """
                SELECT "name" FROM "Artist" \
                WHERE (SELECT COUNT(*) FROM "Album" "albums" WHERE "albums"."ArtistId" = "Artist"."ArtistId") >= ? \
                ORDER BY (SELECT COUNT(*) FROM "Album" "albums" WHERE "albums"."ArtistId" = "Artist"."ArtistId") DESC, "name"
                """, [5])
            let expected = try String?.fetchAll(db, sql: """
                SELECT ar.Name FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId
                GROUP BY ar.ArtistId, ar.Name HAVING COUNT(*) >= 5 ORDER BY COUNT(*) DESC, ar.Name
                """)
            #expect(try request.fetchAll(db) == expected)
            #expect(expected.first == "Iron Maiden")
        }
    }

    /// Two to-many aggregates (reports and customers of each employee) do
    /// not multiply each other, as a JOIN with GROUP BY would; the
    /// self-referential association gets an alias of its own.
    @Test(arguments: Backend.all)
    func twoToManyAggregatesStayIndependent(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Employee.select { ($0.employeeId, Employee.reports.count, Employee.customers.count) }.order(\.employeeId)
            try expectChinookSQL(request, db, """
                SELECT "employeeId", \
                (SELECT COUNT(*) FROM "Employee" "reports" WHERE "reports"."ReportsTo" = "Employee"."EmployeeId"), \
                (SELECT COUNT(*) FROM "Customer" "customers" WHERE "customers"."SupportRepId" = "Employee"."EmployeeId") \
                FROM "Employee" ORDER BY "employeeId"
                """)
            let fetched = try request.fetchAll(db).map { "\($0.0):\($0.1):\($0.2)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT e.EmployeeId,
                    (SELECT COUNT(*) FROM Employee r WHERE r.ReportsTo = e.EmployeeId),
                    (SELECT COUNT(*) FROM Customer c WHERE c.SupportRepId = e.EmployeeId)
                FROM Employee e ORDER BY e.EmployeeId
                """).map { "\(try $0[0] as Int64):\(try $0[1] as Int):\(try $0[2] as Int)" }
            #expect(fetched == expected)
        }
    }

    /// A track's invoice lines and playlist entries: a JOIN with GROUP BY
    /// would count each invoice line once per playlist entry.
    @Test(arguments: Backend.all)
    func aggregatesOfTwoAssociationsDoNotMultiply(backend: Backend) throws {
        try backend.inChinook { db in
            let invoiceLines = Track.hasMany(InvoiceLine.self)
            let playlistTracks = Track.hasMany(PlaylistTrack.self)
            let request = Track.select { ($0.trackId, invoiceLines.count, playlistTracks.count) }
                .filter(\.trackId <= 50).order(\.trackId)
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? 0):\($0.1):\($0.2)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT t.TrackId,
                    (SELECT COUNT(*) FROM InvoiceLine il WHERE il.TrackId = t.TrackId),
                    (SELECT COUNT(*) FROM PlaylistTrack pt WHERE pt.TrackId = t.TrackId)
                FROM Track t WHERE t.TrackId <= 50 ORDER BY t.TrackId
                """).map { "\(try $0[0] as Int64):\(try $0[1] as Int):\(try $0[2] as Int)" }
            #expect(fetched == expected)
            let joined = try Row.fetchAll(db, sql: """
                SELECT t.TrackId, COUNT(il.InvoiceLineId), COUNT(pt.PlaylistId) FROM Track t
                LEFT JOIN InvoiceLine il ON il.TrackId = t.TrackId LEFT JOIN PlaylistTrack pt ON pt.TrackId = t.TrackId
                WHERE t.TrackId <= 50 GROUP BY t.TrackId ORDER BY t.TrackId
                """).map { "\(try $0[0] as Int64):\(try $0[1] as Int):\(try $0[2] as Int)" }
            #expect(joined != expected)
        }
    }

    @Test(arguments: Backend.all)
    func throughAndFilteredAssociations(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Playlist
                .select { ($0.playlistId, Playlist.tracks.count, Playlist.tracks.filter(\.milliseconds > 300_000).count) }
                .order(\.playlistId)
            try expectChinookSQL(request, db, """
                SELECT "playlistId", \
                (SELECT COUNT(*) FROM "PlaylistTrack" "playlistTracks" JOIN "Track" "tracks" ON "tracks"."TrackId" = "playlistTracks"."TrackId" \
                WHERE "playlistTracks"."PlaylistId" = "Playlist"."PlaylistId"), \
                (SELECT COUNT(*) FROM "PlaylistTrack" "playlistTracks2" JOIN "Track" "tracks2" ON "tracks2"."TrackId" = "playlistTracks2"."TrackId" \
                AND ("tracks2"."milliseconds" > ?) WHERE "playlistTracks2"."PlaylistId" = "Playlist"."PlaylistId") \
                FROM "Playlist" ORDER BY "playlistId"
                """, [300_000])
            let fetched = try request.fetchAll(db).map { "\($0.0):\($0.1):\($0.2)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT p.PlaylistId,
                    (SELECT COUNT(*) FROM PlaylistTrack pt WHERE pt.PlaylistId = p.PlaylistId),
                    (SELECT COUNT(*) FROM PlaylistTrack pt JOIN Track t ON t.TrackId = pt.TrackId
                     WHERE pt.PlaylistId = p.PlaylistId AND t.Milliseconds > 300000)
                FROM Playlist p ORDER BY p.PlaylistId
                """).map { "\(try $0[0] as Int64):\(try $0[1] as Int):\(try $0[2] as Int)" }
            #expect(fetched == expected)
            #expect(fetched.first == "1:3290:\(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM PlaylistTrack pt JOIN Track t USING (TrackId) WHERE pt.PlaylistId = 1 AND t.Milliseconds > 300000") ?? -1)")
        }
    }

    @Test(arguments: Backend.all)
    func countDistinctAndFlatDecoding(backend: Backend) throws {
        try backend.inChinook { db in
            struct ArtistRow: Decodable, FetchableRecord {
                var artistId: Int64
                var name: String?
                var trackAlbumIdDistinctCount: Int
            }
            // Through the album: the number of distinct albums that have tracks.
            let tracks = Artist.hasMany(Track.self, through: Artist.albums, using: Album.tracks, key: "tracks")
            let rows = try Artist.annotated(with: tracks.count(distinct: \.albumId)).filter(\.artistId == 1)
                .asRequest(of: ArtistRow.self).fetchAll(db)
            #expect(rows.map(\.trackAlbumIdDistinctCount) == [2])
            #expect(rows.map(\.name) == ["AC/DC"])
        }
    }

    /// Keys follow GRDB's: `[key]Count`, `hasNo[Key]`, `average[Key][Column]`…
    @Test(arguments: Backend.all)
    func defaultKeys(backend: Backend) throws {
        try backend.withWriter { writer in try writer.write { db throws in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE book (id INTEGER PRIMARY KEY, "authorId" INTEGER REFERENCES author(id), rating INTEGER);
                INSERT INTO author VALUES (1, 'a'), (2, 'b');
                INSERT INTO book VALUES (1, 1, 4), (2, 1, 2);
                """)
            struct Author: Codable, FetchableRecord, TableRecord {
                var id: Int64
                var name: String
                static let books = hasMany(Book.self)
            }
            struct Book: Codable, FetchableRecord, TableRecord {
                var id: Int64
                var authorId: Int64
                var rating: Int
            }
            struct Annotated: Decodable, FetchableRecord, Equatable {
                var id: Int64
                var name: String
                var bookCount: Int
                var hasNoBook: Bool
                var averageBookRating: Double?
            }
            let request = Author.annotated(with: Author.books.count, Author.books.isEmpty, Author.books.average(\.rating))
                .order(\.id).asRequest(of: Annotated.self)
            func average(_ column: String) -> String {
                backend.isPostgreSQL ? "CAST(AVG(\(column)) AS DOUBLE PRECISION)" : "AVG(\(column))"
            }
            func books(_ alias: String) -> String {
                #"FROM "book" "\#(alias)" WHERE "\#(alias)"."authorId" = "author"."id")"#
            }
            try expectSQL(request, db, """
                SELECT *, (SELECT COUNT(*) \(books("books")) AS "bookCount", NOT EXISTS (SELECT 1 \(books("books2")) AS "hasNoBook", \
                (SELECT \(average(#""books3"."rating""#)) \(books("books3")) AS "averageBookRating" FROM "author" ORDER BY "id"
                """)
            #expect(try request.fetchAll(db) == [
                Annotated(id: 1, name: "a", bookCount: 2, hasNoBook: false, averageBookRating: 3),
                Annotated(id: 2, name: "b", bookCount: 0, hasNoBook: true, averageBookRating: nil),
            ])
        } }
    }

    @Test(arguments: Backend.all)
    func unnamedExpressionIsRefused(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Artist.annotated(with: QueryExpression<Artist, Int>(sql: "1"))
            #expect {
                try request.fetchAll(db)
            } throws: { error in
                "\(error)".contains("forKey")
            }
        }
    }

    /// An association the schema cannot resolve names the tables.
    @Test(arguments: Backend.all)
    func associationWithoutForeignKeyIsRefused(backend: Backend) throws {
        try backend.inChinook { db in
            let genres = Artist.hasMany(Genre.self)
            #expect {
                try Artist.annotated(with: genres.count).fetchAll(db)
            } throws: { error in
                "\(error)".contains("Genre") && "\(error)".contains("Artist")
            }
        }
    }
}
