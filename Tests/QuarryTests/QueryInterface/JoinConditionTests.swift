// Joins on any condition, RIGHT and FULL joins, and a recursive common table
// expression built from requests (the Chinook employee hierarchy), each
// pinned and compared with the same query written by hand.

import Foundation
import Quarry
import Testing

/// A row of the recursive chain of employees.
private struct Link: Decodable, FetchableRecord, Equatable {
    /// Optional as `Employee.reportsTo`, which it is compared with.
    var id: Int64?
    var depth: Int
}

/// Chinook's artists, with a non-optional id to compare with `Album.artistId`.
private struct ArtistRow: Decodable, FetchableRecord, TableRecord {
    var artistId: Int64
    static let databaseTableName = "Artist"
}

@Suite("Joins on any condition")
struct JoinConditionTests {

    @Test(arguments: Backend.all)
    func joinOnAnExpression(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Album
                .join(required: Track.self) { album, track in
                    track[\Track.albumId] == album[\Album.albumId] && track[\Track.milliseconds] > 1_000_000
                }
                .distinct()
                .order(\.title)  // PostgreSQL orders DISTINCT rows by selected columns only
                .select(\.title)
            try expectChinookSQL(request, db, """
                SELECT DISTINCT "Album"."title" FROM "Album" \
                JOIN "Track" "track" ON (("track"."albumId" = "Album"."albumId") AND ("track"."milliseconds" > ?)) \
                ORDER BY "Album"."title"
                """, [1_000_000])
            let expected = try String.fetchAll(db, sql: """
                SELECT DISTINCT al.Title FROM Album al JOIN Track t ON t.AlbumId = al.AlbumId AND t.Milliseconds > 1000000
                ORDER BY al.Title
                """)
            #expect(try request.fetchAll(db) == expected)
            #expect(!expected.isEmpty)
        }
    }

    /// No foreign key links invoices to the employees of their country.
    @Test(arguments: Backend.all)
    func optionalJoinWithoutForeignKey(backend: Backend) throws {
        try backend.inChinook { db in
            struct Rep: Codable, FetchableRecord, TableRecord {
                var employeeId: Int64
                var country: String?
                static let databaseTableName = "Employee"
            }
            let request = Invoice
                .join(optional: Rep.self) { invoice, rep in rep[\Rep.country] == invoice[\Invoice.billingCountry] }
                .select { count($0.invoiceId) }
            let fetched = try request.fetchOne(db)
            let expected = try Int.fetchOne(db, sql: "SELECT COUNT(i.InvoiceId) FROM Invoice i LEFT JOIN Employee e ON e.Country = i.BillingCountry")
            #expect(fetched == expected)
            // Canada's invoices meet Canada's 8 employees: more rows than invoices.
            #expect((fetched ?? 0) > 412)
        }
    }

    @Test(arguments: Backend.all)
    func rightAndFullJoins(backend: Backend) throws {
        try backend.inChinook { db in
            let artists = TableAlias()
            let byArtist = Album.association(to: ArtistRow.self) { album, artist in album[\Album.artistId] == artist[\ArtistRow.artistId] }
            let right = Album.joining(right: byArtist.aliased(artists))
                .filter(QueryExpression<Album, Int64?>(\.albumId) == nil)
                .select { _ in count(artists[\ArtistRow.artistId] as QueryExpression<Album, Int64>) }
            try expectChinookSQL(right, db, """
                SELECT COUNT("artist"."artistId") FROM "Album" RIGHT JOIN "Artist" "artist" \
                ON ("Album"."artistId" = "artist"."artistId") WHERE "Album"."albumId" IS NULL
                """)
            let expected = try Int.fetchOne(db, sql: """
                SELECT COUNT(ar.ArtistId) FROM Album al RIGHT JOIN Artist ar ON al.ArtistId = ar.ArtistId WHERE al.AlbumId IS NULL
                """)
            #expect(try right.fetchOne(db) == expected)
            #expect(expected == 71)
            let full = Album.joining(full: byArtist).select { count($0.albumId) }
            let expectedFull = try Int.fetchOne(db, sql: "SELECT COUNT(al.AlbumId) FROM Album al FULL JOIN Artist ar ON al.ArtistId = ar.ArtistId")
            #expect(try full.fetchOne(db) == expectedFull)
        }
    }

    /// The Chinook hierarchy (`ReportsTo`), from requests: each employee with
    /// their depth under the general manager.
    @Test(arguments: Backend.all)
    func recursiveCommonTableExpression(backend: Backend) throws {
        try backend.inChinook { db in
            let chain = CommonTableExpression<Link>(recursive: "chain", columns: ["id", "depth"]) { chain -> QueryRequest<Employee, (Int64, Int)> in
                let link = TableAlias()
                let start = Employee.filter(\.reportsTo == nil)
                    .select { ($0.employeeId, QueryExpression<Employee, Int>(sql: "0")) }
                let step = Employee
                    .joining(required: Employee.association(to: chain) { employee, link in
                        employee[\Employee.reportsTo] == link[\Link.id]
                    }.aliased(link))
                    .select { ($0.employeeId, (link[\Link.depth] as QueryExpression<Employee, Int>) + 1) }
                return start.union(step, all: true)
            }
            let request = chain.all().with(chain).asRequest(of: Link.self).order(.asc(\.depth), .asc(\.id))
            try expectChinookSQL(request, db, """
                WITH RECURSIVE "chain"("id", "depth") AS (\
                SELECT "employeeId", 0 FROM "Employee" WHERE "reportsTo" IS NULL \
                UNION ALL \
                SELECT "Employee"."employeeId", "chain"."depth" + ? FROM "Employee" \
                JOIN "chain" ON ("Employee"."reportsTo" = "chain"."id")) \
                SELECT * FROM "chain" ORDER BY "depth", "id"
                """, [1])
            let expected = try Row.fetchAll(db, sql: """
                WITH RECURSIVE chain(id, depth) AS (
                    SELECT EmployeeId, 0 FROM Employee WHERE ReportsTo IS NULL
                    UNION ALL
                    SELECT e.EmployeeId, c.depth + 1 FROM Employee e JOIN chain c ON e.ReportsTo = c.id)
                SELECT id, depth FROM chain ORDER BY depth, id
                """).map { Link(id: try $0[0], depth: try $0[1]) }
            #expect(try request.fetchAll(db) == expected)
            #expect(expected.map(\.depth) == [0, 1, 1, 2, 2, 2, 2, 2])
        }
    }

    /// A condition that cannot be generated names the problem; including(all:)
    /// needs a foreign key.
    @Test(arguments: Backend.all)
    func failures(backend: Backend) throws {
        try backend.inChinook { db in
            let stranger = TableAlias()
            let request = Album.join(required: Track.self) { _, _ in stranger[\Track.albumId] == 1 }
            #expect {
                try request.fetchAll(db)
            } throws: { error in
                "\(error)".contains("alias")
            }
            let tracks = Album.association(to: Track.self) { album, track in track[\Track.albumId] == album[\Album.albumId] }
            struct AlbumWithTracks: Decodable, FetchableRecord {
                var album: Album
                var track: [Track]
            }
            #expect {
                try Album.including(all: tracks).asRequest(of: AlbumWithTracks.self).fetchAll(db)
            } throws: { error in
                "\(error)".contains("single-column key")
            }
        }
    }
}
