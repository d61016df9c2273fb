// JSON and string aggregation on Chinook: json_object, json_array,
// json_group_array, json_group_object, group_concat and FILTER, each pinned
// and compared with the same query written by hand.

import Foundation
import Quarry
import QuarryTestSupport
import Testing

private struct ArtistTitles: Decodable, FetchableRecord, Equatable {
    var name: String?
    var titles: [String]
}

@Suite("JSON and string aggregation")
struct JSONAggregationTests {

    @Test(arguments: Backend.all)
    func objectAndArray(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Artist.filter(\.artistId == 1)
                .select { (jsonObject(("id", $0.artistId), ("name", $0.name)), jsonArray($0.artistId, $0.name)) }
            if backend.isPostgreSQL {
                // Keys are cast to text: the server cannot type a bound key.
                try expectChinookSQL(request, db, #"""
                    SELECT json_build_object(CAST(? AS TEXT), "artistId", CAST(? AS TEXT), "name"), \#
                    json_build_array("artistId", "name") FROM "Artist" WHERE "artistId" = ?
                    """#, ["id", "name", 1])
            } else {
                try expectChinookSQL(request, db, #"""
                    SELECT json_object(?, "artistId", ?, "name"), json_array("artistId", "name") FROM "Artist" WHERE "artistId" = ?
                    """#, ["id", "name", 1])
            }
            let fetched = try request.fetchOne(db)
            let expected = try Row.fetchOne(db, sql: backend.isPostgreSQL
                ? "SELECT json_build_object('id', ArtistId, 'name', Name), json_build_array(ArtistId, Name) FROM Artist WHERE ArtistId = 1"
                : "SELECT json_object('id', ArtistId, 'name', Name), json_array(ArtistId, Name) FROM Artist WHERE ArtistId = 1")
            #expect(fetched?.0 == (try expected?[0] as String?))
            #expect(fetched?.1 == (try expected?[1] as String?))
            // Each server writes JSON text its own way.
            #expect(fetched?.0 == (backend.isPostgreSQL ? #"{"id" : 1, "name" : "AC/DC"}"# : #"{"id":1,"name":"AC/DC"}"#))
        }
    }

    /// One query returns each artist with a JSON array of their album
    /// titles, decoded into `[String]`.
    @Test(arguments: Backend.all)
    func jsonGroupArrayOfAJoinedTable(backend: Backend) throws {
        try backend.inChinook { db in
            let albums = TableAlias()
            let request = Artist.joining(required: Artist.albums.aliased(albums))
                .select(named: [QueryExpression(\Artist.name).forKey("name"), jsonGroupArray(albums[\Album.title]).forKey("titles")])
                .group(\.artistId)
                .filter(\.artistId <= 3)
                .order(\.artistId)
                .asRequest(of: ArtistTitles.self)
            try expectChinookSQL(request, db, #"""
                SELECT "Artist"."name" AS "name", \#(backend.isPostgreSQL ? "json_agg" : "json_group_array")("albums"."title") AS "titles" FROM "Artist" \#
                JOIN "Album" "albums" ON "albums"."ArtistId" = "Artist"."ArtistId" \#
                WHERE "Artist"."artistId" <= ? GROUP BY "Artist"."artistId" ORDER BY "Artist"."artistId"
                """#, [3])
            let fetched = try request.fetchAll(db)
            let expected = try Row.fetchAll(db, sql: """
                SELECT ar.Name, \(backend.isPostgreSQL ? "json_agg" : "json_group_array")(al.Title) FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId
                WHERE ar.ArtistId <= 3 GROUP BY ar.ArtistId, ar.Name ORDER BY ar.ArtistId
                """).map { row in
                    ArtistTitles(
                        name: try row[0], titles: try JSONDecoder().decode([String].self, from: Data((try row[1] as String).utf8)))
                }
            #expect(fetched == expected)
            #expect(fetched.first == ArtistTitles(name: "AC/DC", titles: ["For Those About To Rock We Salute You", "Let There Be Rock"]))
        }
    }

    @Test(arguments: Backend.all)
    func groupObject(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Album.filter(\.artistId == 1).select(jsonGroupObject(key: QueryExpression(\.title), value: QueryExpression(\.albumId)))
            let function = backend.isPostgreSQL ? "json_object_agg" : "json_group_object"
            try expectChinookSQL(request, db, #"""
                SELECT \#(function)("title", "albumId") FROM "Album" WHERE "artistId" = ?
                """#, [1])
            let expected = try String.fetchOne(db, sql: "SELECT \(function)(Title, AlbumId) FROM Album WHERE ArtistId = 1")
            #expect(try request.fetchOne(db) == expected)
            #expect(expected == (backend.isPostgreSQL
                ? #"{ "For Those About To Rock We Salute You" : 1, "Let There Be Rock" : 4 }"#
                : #"{"For Those About To Rock We Salute You":1,"Let There Be Rock":4}"#))
        }
    }

    /// The separator is bound: an injection payload is joined verbatim.
    @Test(arguments: Backend.all)
    func groupConcatBindsItsSeparator(backend: Backend) throws {
        try backend.inChinook { db in
            let payload = "'); DROP TABLE Artist; --"
            let request = Album.filter(\.artistId == 1).select(groupConcat(\.title, separator: payload))
            if backend.isPostgreSQL {
                try expectChinookSQL(request, db, #"SELECT string_agg(CAST("title" AS TEXT), ?) FROM "Album" WHERE "artistId" = ?"#, [payload, 1])
            } else {
                try expectChinookSQL(request, db, #"SELECT group_concat("title", ?) FROM "Album" WHERE "artistId" = ?"#, [payload, 1])
            }
            let expected = try String.fetchOne(
                db, sql: "SELECT \(backend.isPostgreSQL ? "string_agg" : "group_concat")(Title, ?) FROM Album WHERE ArtistId = 1",
                arguments: [payload])
            #expect(try request.fetchOne(db) == expected)
            #expect(expected?.contains(payload) == true)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Artist") == 275)
            // No value: nil.
            #expect(try Album.filter(\.artistId == -1).select(groupConcat(\.title)).fetchOne(db) == .some(nil))
        }
    }

    @Test(arguments: Backend.all)
    func aggregateFilter(backend: Backend) throws {
        try backend.inChinook { db in
            let long: QueryExpression<Track, Bool> = QueryExpression(\.milliseconds) > 300_000
            let rock: QueryExpression<Track, Bool> = QueryExpression(\.genreId) == 1
            let request = Track.select { (count($0.trackId), count($0.trackId).filter(long), total($0.bytes).filter(rock)) }
            if backend.isPostgreSQL {
                // The filter goes inside the translation of TOTAL.
                try expectChinookSQL(request, db, #"""
                    SELECT COUNT("trackId"), COUNT("trackId") FILTER (WHERE "milliseconds" > ?), \#
                    CAST(COALESCE(SUM("bytes") FILTER (WHERE "genreId" = ?), 0) AS DOUBLE PRECISION) FROM "Track"
                    """#, [300_000, 1])
            } else {
                try expectChinookSQL(request, db, #"""
                    SELECT COUNT("trackId"), COUNT("trackId") FILTER (WHERE "milliseconds" > ?), TOTAL("bytes") FILTER (WHERE "genreId" = ?) FROM "Track"
                    """#, [300_000, 1])
            }
            let fetched = try request.fetchOne(db)
            let bytesOfRock = backend.isPostgreSQL ? "COALESCE(SUM(Bytes) FILTER (WHERE GenreId = 1), 0)" : "TOTAL(Bytes) FILTER (WHERE GenreId = 1)"
            let expected = try Row.fetchOne(db, sql: """
                SELECT COUNT(TrackId), COUNT(TrackId) FILTER (WHERE Milliseconds > 300000), \(bytesOfRock) FROM Track
                """)
            #expect(fetched?.0 == (try expected?[0] as Int?))
            #expect(fetched?.1 == (try expected?[1] as Int?))
            #expect(fetched?.2 == (try expected?[2] as Double?))
        }
    }

    /// SQLite and PostgreSQL refuse FILTER on a function that is not an aggregate.
    @Test(arguments: Backend.all)
    func filterOnANonAggregateThrows(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Track.select { $0.name.lowercased.filter($0.milliseconds > 1) }
            #expect {
                try db.failingInSavepoint { try request.fetchAll(db) }
            } throws: { error in
                (error as? DatabaseError)?.message.contains("FILTER") == true
            }
        }
    }
}
