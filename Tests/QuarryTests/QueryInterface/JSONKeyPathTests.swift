// Key paths into nested structs stored as JSON: `\.address.city` reads
// `"address" ->> '$.city'` in filters, orderings and selections, with renamed
// keys and deeper paths; key paths that cannot be read that way keep a clear
// error.

import Foundation
import Quarry
import Testing

private struct Geo: Codable, Equatable {
    var lat: Double
    var zip: Int
}

private struct PostalAddress: Codable, Equatable {
    var street: String
    var city: String
    var geo: Geo
    var tags: [String]

    enum CodingKeys: String, CodingKey {
        case street, city = "town", geo, tags
    }
}

private struct Client: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "client"
    var id: Int64?
    var name: String
    var address: PostalAddress
    var previous: PostalAddress?
}

@Suite("Key paths into JSON columns")
struct JSONKeyPathTests {
    func withClients(_ backend: Backend, _ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writer = try backend.make(in: directory)
        try writer.write { db throws in
            try db.create(table: "client") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("address", .text).notNull()
                t.column("previous", .text)
            }
            let clients = [
                Client(name: "Ada", address: PostalAddress(street: "1 Main", city: "Oslo", geo: Geo(lat: 59.9, zip: 150), tags: ["a"])),
                Client(name: "Bob", address: PostalAddress(street: "2 High", city: "Bergen", geo: Geo(lat: 60.4, zip: 5003), tags: [])),
                Client(name: "Cy", address: PostalAddress(street: "3 Low", city: "Oslo", geo: Geo(lat: 59.8, zip: 10), tags: ["b"])),
            ]
            try Client.insertAll(db, clients)
            try body(db)
        }
    }

    @Test(arguments: Backend.all)
    func filterOrderAndSelectInsideJSON(_ backend: Backend) throws {
        try withClients(backend) { db throws in
            let request = Client.filter(\.address.city == "Oslo").order(\.address.geo.zip).select(\.name)
            // PostgreSQL's ->> takes one key, and returns text: a path is #>>
            // with an array of keys, and a number is cast for its ordering.
            if backend.isPostgreSQL {
                try expectSQL(request, db, #"""
                    SELECT "name" FROM "client" WHERE (CAST("address" AS JSONB) #>> ?) = ? \#
                    ORDER BY CAST(CAST("address" AS JSONB) #>> ? AS DOUBLE PRECISION)
                    """#, [#"{"town"}"#, "Oslo", #"{"geo","zip"}"#])
            } else {
                try expectSQL(request, db, #"""
                    SELECT "name" FROM "client" WHERE ("address" ->> ?) = ? ORDER BY "address" ->> ?
                    """#, ["$.town", "Oslo", "$.geo.zip"])
            }
            let expected = try String.fetchAll(db, sql: backend.isPostgreSQL
                ? "SELECT name FROM client WHERE address::jsonb #>> '{town}' = 'Oslo' ORDER BY (address::jsonb #>> '{geo,zip}')::numeric"
                : "SELECT name FROM client WHERE address ->> '$.town' = 'Oslo' ORDER BY address ->> '$.geo.zip'")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected == ["Cy", "Ada"])
            let cities = try Client.select(\.address.city).order(\.id).fetchAll(db)
            #expect(cities == ["Oslo", "Bergen", "Oslo"])
            let latitudes = try Client.filter(\.address.geo.lat > 60).select(\.name).fetchAll(db)
            #expect(latitudes == ["Bob"])
            // Numbers compare as numbers on both backends (as text, 150 would not be under 1000).
            #expect(try Client.filter(\.address.geo.zip < 1000).order(\.id).select(\.name).fetchAll(db) == ["Ada", "Cy"])
        }
    }

    /// Paths the JSON operator cannot take keep the key path's error.
    @Test(arguments: Backend.all)
    func unsupportedPathsAreRefused(_ backend: Backend) throws {
        try withClients(backend) { db throws in
            // Through an optional (`?.`): no offset.
            #expect {
                try Client.filter(\.previous?.city == "Oslo").fetchAll(db)
            } throws: { error in
                "\(error)".contains("previous")
            }
            // An assignment needs a column.
            #expect {
                try Client.all().updateAll(db, \.address.city <- "Paris")
            } throws: { error in
                "\(error)".contains("not a member of the JSON in column address")
            }
            #expect(try Client.filter(\.address.city == "Paris").fetchCount(db) == 0)
        }
    }

    /// An injection payload compared inside JSON is bound.
    @Test(arguments: Backend.all) func injectionPayloadIsBound(_ backend: Backend) throws {
        try withClients(backend) { db throws in
            let payload = "Oslo' OR 1=1 --"
            #expect(try Client.filter(\.address.city == payload).fetchCount(db) == 0)
            #expect(try Client.fetchCount(db) == 3)
        }
    }
}
