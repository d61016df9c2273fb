// Records against a database nobody here designed: a copy of Chinook.
//
// Expected values were produced with the sqlite3 CLI on
// ../shared/data/chinook.sqlite; each check names its query.

import Foundation
import Quarry
import Testing

/// Chinook's columns are PascalCase (`ArtistId`): the camelCase properties
/// match them because column names are compared case-insensitively.
struct Artist: Codable, FetchableRecord, PersistableRecord, Equatable {
    var artistId: Int64?
    var name: String?
    static let databaseTableName = "Artist"
}

struct Album: Codable, FetchableRecord, PersistableRecord, Equatable {
    var albumId: Int64?
    var title: String
    var artistId: Int64
    static let databaseTableName = "Album"
}

struct Track: Codable, FetchableRecord, PersistableRecord, Equatable {
    var trackId: Int64?
    var name: String
    var albumId: Int64?
    var mediaTypeId: Int64
    var genreId: Int64?
    var composer: String?
    var milliseconds: Int
    var bytes: Int?
    var unitPrice: Double
    static let databaseTableName = "Track"
}

struct Invoice: Codable, FetchableRecord, PersistableRecord {
    var invoiceId: Int64?
    var customerId: Int64
    var invoiceDate: Date
    var billingAddress: String?
    var billingCity: String?
    var billingState: String?
    var billingCountry: String?
    var billingPostalCode: String?
    var total: Double
    static let databaseTableName = "Invoice"
}

/// The same table, with money as Decimal and explicit CodingKeys.
struct DecimalInvoice: Codable, FetchableRecord, TableRecord {
    var id: Int64
    var date: Date
    var total: Decimal
    static let databaseTableName = "Invoice"
    enum CodingKeys: String, CodingKey {
        case id = "InvoiceId", date = "InvoiceDate", total = "Total"
    }
}

struct PlaylistTrack: Codable, FetchableRecord, PersistableRecord, Equatable {
    var playlistId: Int64
    var trackId: Int64
    static let databaseTableName = "PlaylistTrack"
}

@Suite("Records on Chinook")
struct ChinookRecordTests {
    @Test(arguments: Backend.all)
    func countsMatchTheCLI(backend: Backend) throws {
        try backend.inChinook(writing: true) { db in
            // sqlite3 chinook.sqlite "select count(*) from Artist" → 275
            #expect(try Artist.fetchAll(db).count == 275)
            #expect(try Artist.fetchCount(db) == 275)
            // "select count(*) from Album" → 347
            #expect(try Album.fetchAll(db).count == 347)
            // "select count(*) from Track" → 3503
            let tracks = try Track.fetchAll(db)
            #expect(tracks.count == 3503)
            // "select count(*) from Track where Composer is null" → 977
            #expect(tracks.filter { $0.composer == nil }.count == 977)
            // "select count(*) from Invoice" → 412
            #expect(try Invoice.fetchCount(db) == 412)
            // "select count(*) from PlaylistTrack" → 8715
            #expect(try PlaylistTrack.fetchAll(db).count == 8715)
            // "select count(*) from Album where ArtistId = 90" → 21
            #expect(try Album.fetchAll(db, sql: "SELECT * FROM Album WHERE ArtistId = ?", arguments: [90]).count == 21)
        }
    }

    @Test(arguments: Backend.all)
    func valuesMatchTheCLI(backend: Backend) throws {
        try backend.inChinook(writing: true) { db in
            // "select * from Artist where ArtistId=1" → 1|AC/DC
            #expect(try Artist.fetchOne(db, key: 1) == Artist(artistId: 1, name: "AC/DC"))
            // "select * from Album where AlbumId=1" → 1|For Those About To Rock We Salute You|1
            #expect(try Album.fetchOne(db, key: 1) == Album(albumId: 1, title: "For Those About To Rock We Salute You", artistId: 1))
            // "select Title from Album where AlbumId = 148" → Black Album
            #expect(try Album.fetchOne(db, key: 148)?.title == "Black Album")
            // "select * from Track where TrackId=1" →
            // 1|For Those About To Rock (We Salute You)|1|1|1|Angus Young, Malcolm Young, Brian Johnson|343719|11170334|0.99
            #expect(try Track.fetchOne(db, key: 1) == Track(
                trackId: 1, name: "For Those About To Rock (We Salute You)", albumId: 1, mediaTypeId: 1, genreId: 1,
                composer: "Angus Young, Malcolm Young, Brian Johnson", milliseconds: 343_719, bytes: 11_170_334, unitPrice: 0.99))
            // "select TrackId, Name, AlbumId, MediaTypeId, GenreId, ifnull(Composer,'<NULL>'), Milliseconds, Bytes,
            //  UnitPrice from Track where TrackId = 65" → 65|Samba De Uma Nota Só (One Note Samba)|8|1|2|<NULL>|137273|4535401|0.99
            #expect(try Track.fetchOne(db, key: 65) == Track(
                trackId: 65, name: "Samba De Uma Nota Só (One Note Samba)", albumId: 8, mediaTypeId: 1, genreId: 2,
                composer: nil, milliseconds: 137_273, bytes: 4_535_401, unitPrice: 0.99))
            // "select TrackId, Name from Track where Name glob '*[^ -~]*' order by TrackId limit 3"
            // → 65|Samba De Uma Nota Só (One Note Samba), 66|Por Causa De Você, 70|Se Todos Fossem Iguais A Você (Instrumental)
            let nonASCII = try Track.fetchAll(db).filter { !$0.name.unicodeScalars.allSatisfy(\.isASCII) }.prefix(3)
            #expect(nonASCII.map(\.trackId) == [65, 66, 70])
            #expect(nonASCII.map(\.name) == [
                "Samba De Uma Nota Só (One Note Samba)", "Por Causa De Você", "Se Todos Fossem Iguais A Você (Instrumental)",
            ])
        }
    }

    @Test(arguments: Backend.all)
    func invoicesAsDoubleAndDecimalWithTextDates(backend: Backend) throws {
        try backend.inChinook(writing: true) { db in
            // "select InvoiceId, CustomerId, InvoiceDate, Total, typeof(Total), typeof(InvoiceDate) from Invoice
            //  where InvoiceId in (1, 98)" → 1|2|2021-01-01 00:00:00|1.98|real|text, 98|1|2022-03-11 00:00:00|3.98|real|text
            let first = try #require(try Invoice.fetchOne(db, key: 1))
            #expect(first.customerId == 2)
            #expect(first.total == 1.98)
            #expect(first.invoiceDate == Date(timeIntervalSince1970: 1_609_459_200))  // 2021-01-01 00:00:00 UTC
            // "select BillingCountry, BillingCity, BillingState from Invoice where InvoiceId = 1" → Germany|Stuttgart|
            #expect(first.billingCountry == "Germany" && first.billingCity == "Stuttgart" && first.billingState == nil)
            let decimal = try #require(try DecimalInvoice.fetchOne(db, key: 98))
            #expect(decimal.total == Decimal(string: "3.98"))
            #expect(decimal.date == Date(timeIntervalSince1970: 1_646_956_800))  // 2022-03-11 00:00:00 UTC
            // "select printf('%.2f', sum(Total)) from Invoice" → 2328.60: exact with Decimal.
            let decimalSum = try DecimalInvoice.fetchAll(db).reduce(Decimal(0)) { $0 + $1.total }
            #expect(decimalSum == Decimal(string: "2328.6"))
            let doubleSum = try Invoice.fetchAll(db).reduce(0.0) { $0 + $1.total }
            #expect(abs(doubleSum - 2328.6) < 1e-6)
            // "select count(*), sum(Total) from Invoice where CustomerId = 2" → 7|37.62
            let customer2 = try DecimalInvoice.fetchAll(db, sql: "SELECT * FROM Invoice WHERE CustomerId = ?", arguments: [2])
            #expect(customer2.count == 7)
            #expect(customer2.reduce(Decimal(0)) { $0 + $1.total } == Decimal(string: "37.62"))
        }
    }

    @Test(arguments: Backend.all)
    func playlistTrackCompositeKey(backend: Backend) throws {
        try backend.inChinook(writing: true) { db in
            // "select PlaylistId from PlaylistTrack where TrackId = 3402 order by 1" → 1, 8, 9
            #expect(try PlaylistTrack.fetchOne(db, key: ["PlaylistId": 1, "TrackId": 3402]) == PlaylistTrack(playlistId: 1, trackId: 3402))
            #expect(try PlaylistTrack.fetchOne(db, key: ["PlaylistId": 2, "TrackId": 3402]) == nil)
            #expect(try PlaylistTrack.exists(db, key: ["playlistid": 9, "trackid": 3402]))
            #expect(throws: RecordError.notUniqueKey(databaseTableName: "PlaylistTrack", columns: ["TrackId"])) {
                _ = try PlaylistTrack.fetchOne(db, key: ["TrackId": 3402])
            }
            // "select count(*) from PlaylistTrack where TrackId = 1" → 3
            #expect(try PlaylistTrack.fetchAll(db, sql: "SELECT * FROM PlaylistTrack WHERE TrackId = 1").count == 3)
            let entry = PlaylistTrack(playlistId: 8, trackId: 3402)
            #expect(try entry.delete(db))
            #expect(try PlaylistTrack.exists(db, key: ["PlaylistId": 8, "TrackId": 3402]) == false)
            var back = entry
            try back.insert(db)
            #expect(try PlaylistTrack.deleteOne(db, key: ["PlaylistId": 8, "TrackId": 3402]))
        }
    }

    @Test(arguments: Backend.all)
    func writesToChinook(backend: Backend) throws {
        try backend.inChinook(writing: true) { db in
            // "select max(ArtistId) from Artist" → 275, so the next id is 276.
            var artist = Artist(artistId: nil, name: "Björk")
            try artist.insert(db)
            #expect(artist.artistId == 276)
            var album = Album(albumId: nil, title: "Homogénic", artistId: 276)
            try album.insert(db)
            var track = Track(
                trackId: nil, name: "Jóga", albumId: album.albumId, mediaTypeId: 1, genreId: nil, composer: nil,
                milliseconds: 305_000, bytes: nil, unitPrice: 1.29)
            let stored = try track.insertAndFetch(db)
            #expect(stored == track)
            #expect(track.trackId == 3504)
            #expect(try String.fetchOne(db, sql: "SELECT Name FROM Track WHERE TrackId = 3504") == "Jóga")
            track.composer = "Björk, Sjón"
            try track.update(db)
            #expect(try Track.fetchOne(db, key: 3504)?.composer == "Björk, Sjón")
        }
    }
}
