// The query interface against a schema nobody here designed: a copy of
// Chinook. Each query is also written by hand in SQL, and both must agree.

import Foundation
import Quarry
import Testing

struct Genre: Codable, FetchableRecord, TableRecord {
    var genreId: Int64
    var name: String?
    static let databaseTableName = "Genre"
}

struct Playlist: Codable, FetchableRecord, TableRecord {
    var playlistId: Int64
    var name: String?
    static let databaseTableName = "Playlist"
    static let playlistTracks = hasMany(PlaylistTrack.self)
    static let tracks = hasMany(Track.self, through: playlistTracks, using: PlaylistTrack.track)
}

struct Employee: Codable, FetchableRecord, TableRecord {
    var employeeId: Int64
    var lastName: String
    var firstName: String
    var reportsTo: Int64?
    static let databaseTableName = "Employee"
    static let manager = belongsTo(Employee.self, key: "manager", using: \.reportsTo)
}

extension Artist {
    static let albums = hasMany(Album.self)
}

extension Album {
    static let artist = belongsTo(Artist.self)
}

extension Track {
    static let album = belongsTo(Album.self)
    static let genre = belongsTo(Genre.self)
}

extension PlaylistTrack {
    static let track = belongsTo(Track.self)
}

extension Invoice {
    static let invoiceLines = hasMany(InvoiceLine.self)
}

struct InvoiceLine: Codable, FetchableRecord, TableRecord {
    var invoiceLineId: Int64
    var invoiceId: Int64
    var unitPrice: Double
    var quantity: Int
    static let databaseTableName = "InvoiceLine"
}

struct AlbumWithArtist: Decodable, FetchableRecord {
    var album: Album
    var artist: Artist
}

struct TrackInfo: Decodable, FetchableRecord {
    var track: Track
    var album: AlbumWithArtist
}

struct EmployeeWithManager: Decodable, FetchableRecord {
    var employee: Employee
    var manager: Employee?
}

@Suite("Query interface on Chinook")
struct ChinookQueryTests {

    @Test(arguments: Backend.all)
    func fiveArtistsWithTheMostAlbums(backend: Backend) throws {
        try backend.inChinook { db in
            let albums = TableAlias()
            let albumCount: QueryExpression<Artist, Int> = count(albums[\Album.albumId])
            let request = Artist.joining(required: Artist.albums.aliased(albums))
                .select { ($0.name, albumCount) }
                .group(QueryExpression<Artist, Int64?>(\.artistId))
                .order(.desc(albumCount), .asc(\.name))
                .limit(5)
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "?"): \($0.1)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT ar.Name, COUNT(al.AlbumId) AS c FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId
                GROUP BY ar.ArtistId, ar.Name ORDER BY c DESC, ar.Name LIMIT 5
                """).map { "\(try $0[0] as String): \(try $0[1] as Int)" }
            #expect(fetched == expected)
            #expect(fetched.first == "Iron Maiden: 21")
        }
    }

    @Test(arguments: Backend.all)
    func tracksOfAGenreWithAlbumAndArtist(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Track.joining(required: Track.genre.filter(\.name == "Bossa Nova"))
                .including(required: Track.album.including(required: Album.artist))
                .order(\.trackId)
                .asRequest(of: TrackInfo.self)
            let fetched = try request.fetchAll(db).map { "\($0.track.name) / \($0.album.album.title) / \($0.album.artist.name ?? "?")" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT t.Name, al.Title, ar.Name FROM Track t
                JOIN Genre g ON g.GenreId = t.GenreId AND g.Name = 'Bossa Nova'
                JOIN Album al ON al.AlbumId = t.AlbumId JOIN Artist ar ON ar.ArtistId = al.ArtistId
                ORDER BY t.TrackId
                """).map { "\(try $0[0] as String) / \(try $0[1] as String) / \(try $0[2] as String)" }
            #expect(fetched == expected)
            #expect(fetched.count == 15)
        }
    }

    @Test(arguments: Backend.all)
    func customerInvoiceTotalsWithHaving(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Invoice.select { ($0.customerId, total($0.total)) }
                .group(QueryExpression<Invoice, Int64>(\.customerId))
                .having(total(\Invoice.total) > 45)
                .order(\.customerId)
            let fetched = try request.fetchAll(db).map { "\($0.0): \(String(format: "%.2f", $0.1))" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT CustomerId, SUM(Total) FROM Invoice GROUP BY CustomerId HAVING SUM(Total) > 45 ORDER BY CustomerId
                """).map { "\(try $0[0] as Int64): \(String(format: "%.2f", try $0[1] as Double))" }
            #expect(fetched == expected)
            #expect(fetched.count == 5)
        }
    }

    @Test(arguments: Backend.all)
    func employeesWithTheirManager(backend: Backend) throws {
        try backend.inChinook { db in
            let fetched = try Employee.including(optional: Employee.manager).order(\.employeeId)
                .asRequest(of: EmployeeWithManager.self).fetchAll(db)
                .map { "\($0.employee.lastName) -> \($0.manager?.lastName ?? "-")" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT e.LastName, m.LastName FROM Employee e LEFT JOIN Employee m ON m.EmployeeId = e.ReportsTo ORDER BY e.EmployeeId
                """).map { "\(try $0[0] as String) -> \((try $0[1] as String?) ?? "-")" }
            #expect(fetched == expected)
            #expect(fetched.first == "Adams -> -")
            #expect(fetched.count == 8)
        }
    }

    @Test(arguments: Backend.all)
    func playlistsContainingATrack(backend: Backend) throws {
        try backend.inChinook { db in
            let request = Playlist.joining(required: Playlist.tracks.filter(\.trackId == 3403)).order(\.playlistId)
            let fetched = try request.fetchAll(db).map(\.name)
            let expected = try Optional<String>.fetchAll(db, sql: """
                SELECT p.Name FROM Playlist p JOIN PlaylistTrack pt ON pt.PlaylistId = p.PlaylistId
                WHERE pt.TrackId = 3403 ORDER BY p.PlaylistId
                """)
            #expect(fetched == expected)
            #expect(!fetched.isEmpty)
        }
    }

    @Test(arguments: Backend.all)
    func invoicesWithTheirLinesInTwoQueries(backend: Backend) throws {
        struct InvoiceWithLines: Decodable, FetchableRecord {
            var invoice: Invoice
            var invoiceLines: [InvoiceLine]
        }
        try backend.inChinook { db in
            let invoices = try Invoice.including(all: Invoice.invoiceLines).filter(\.customerId == 2)
                .order(\.invoiceId).asRequest(of: InvoiceWithLines.self).fetchAll(db)
            #expect(invoices.count == 7)
            for invoice in invoices {
                let sum = invoice.invoiceLines.reduce(0.0) { $0 + $1.unitPrice * Double($1.quantity) }
                #expect(abs(sum - invoice.invoice.total) < 0.001)
            }
        }
    }
}
