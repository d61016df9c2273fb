// A record's own `init(from:)` and `encode(to:)` run for every row fetched and
// every record written, by every fetch and write form, on every backend
// (issue 48: the direct plans used to skip them after a probe on made-up
// values, which no probe can make safe; they are now opt-in).
//
// `Versioned` is what a service writes when its storage format changed: it
// reads the old spelling "legacy" as "modern", writes "modern" back as
// "legacy" (the spelling older readers know), rejects a name with
// "<script>", and counts its runs. Its properties are plain ones, so the
// direct plans would take it if it opted in.

import Foundation
@testable import Quarry
import Testing

/// How many times `Versioned` ran its coding (the suite is serialized; each
/// test reads the counts before and after).
enum UserCodingRuns {
    static let decodes = LockedCounter()
    static let encodes = LockedCounter()
}

struct VersionedOwner: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "versionedOwner"
    var id: Int64
    var name: String
}

struct Versioned: Codable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "versioned"
    var id: Int64
    var format: String
    var name: String
    var ownerID: Int64?

    enum CodingKeys: String, CodingKey { case id, format, name, ownerID = "owner_id" }

    static let owner = belongsTo(VersionedOwner.self, using: \.ownerID)

    init(id: Int64, format: String = "modern", name: String, ownerID: Int64? = nil) {
        (self.id, self.format, self.name, self.ownerID) = (id, format, name, ownerID)
    }

    /// The names of the rows the tests store: init(from:) counts its runs
    /// on them, not those on the made-up values of key path resolution.
    static let storedNames: Set<String> = ["Ada", "Bo", "Cy"]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        let stored = try container.decode(String.self, forKey: .format)
        format = stored == "legacy" ? "modern" : stored
        name = try container.decode(String.self, forKey: .name)
        if Self.storedNames.contains(name) { UserCodingRuns.decodes.increment() }
        guard !name.contains("<script>") else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: container, debugDescription: "a name with <script>")
        }
        ownerID = try container.decodeIfPresent(Int64.self, forKey: .ownerID)
    }

    func encode(to encoder: any Encoder) throws {
        UserCodingRuns.encodes.increment()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(format == "modern" ? "legacy" : format, forKey: .format)
        try container.encode(name, forKey: .name)
        try container.encode(ownerID, forKey: .ownerID)
    }
}

struct VersionedWithOwner: Decodable, FetchableRecord {
    var versioned: Versioned
    var versionedOwner: VersionedOwner
}

@Suite(.serialized) struct UserCodingRunsTests {
    private func makeTables(_ db: Database) throws {
        try db.create(table: "versionedOwner") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
        }
        try db.create(table: "versioned") { t in
            t.primaryKey("id", .integer)
            t.column("format", .text).notNull()
            t.column("name", .text).notNull()
            t.column("owner_id", .integer).references("versionedOwner")
        }
        try db.execute(sql: "INSERT INTO \"versionedOwner\" (id, name) VALUES (1, 'Ann')")
        for (id, format, name, owner) in [(1, "legacy", "Ada", 1), (2, "modern", "Bo", 1), (3, "legacy", "Cy", nil)] as [(Int64, String, String, Int64?)] {
            try db.execute(sql: "INSERT INTO versioned (id, format, name, owner_id) VALUES (?, ?, ?, ?)", arguments: [id, format, name, owner])
        }
    }

    /// The format stored in the row of `id`, as written.
    private func storedFormat(_ db: Database, _ id: Int64) throws -> String? {
        try String.fetchOne(db, sql: "SELECT format FROM versioned WHERE id = ?", arguments: [id])
    }

    @Test(arguments: Backend.all)
    func everyFetchFormRunsInitFromForEveryRow(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeTables(db) }
            let decodesBefore = UserCodingRuns.decodes.value
            var expected = 0
            try writer.read { db in
                // Many times over: a type is not trusted after a few fetches either.
                for _ in 0..<10 {
                    let all = try Versioned.order(\.id).fetchAll(db)
                    #expect(all.map(\.format) == ["modern", "modern", "modern"])
                    expected += 3
                    #expect(try Versioned.order(\.id).fetchOne(db)?.format == "modern")
                    expected += 1
                    #expect(try Versioned.fetchOne(db, key: 3)?.format == "modern")
                    expected += 1
                    let cursor = try Versioned.order(\.id).fetchCursor(db)
                    var formats: [String] = []
                    while let record = try cursor.next() { formats.append(record.format) }
                    #expect(formats == ["modern", "modern", "modern"])
                    expected += 3
                    #expect(try Versioned.fetchSet(db).map(\.format) == ["modern", "modern", "modern"])
                    expected += 3
                    let raw = try Versioned.fetchAll(db, sql: "SELECT * FROM versioned WHERE id <= ? ORDER BY id", arguments: [2])
                    #expect(raw.map(\.format) == ["modern", "modern"])
                    expected += 2
                    let joined = try Versioned.including(required: Versioned.owner).order(\.id)
                        .asRequest(of: VersionedWithOwner.self).fetchAll(db)
                    #expect(joined.map(\.versioned.format) == ["modern", "modern"])
                    #expect(joined.map(\.versionedOwner.name) == ["Ann", "Ann"])
                    expected += 2
                    let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM versioned WHERE id = 1"))
                    #expect(try Versioned(row: row).format == "modern")
                    expected += 1
                }
            }
            #expect(UserCodingRuns.decodes.value - decodesBefore == expected)
        }
    }

    @Test(arguments: Backend.all)
    func aRowThatInitFromRejectsThrowsFromEveryFetchForm(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try makeTables(db)
                try db.execute(sql: "INSERT INTO versioned (id, format, name, owner_id) VALUES (4, 'modern', '<script>x</script>', 1)")
            }
            try writer.read { db in
                // Fetched many times first: the rejection must hold every time.
                for _ in 0..<10 { _ = try Versioned.filter(\.id < 4).fetchAll(db) }
                #expect(throws: DecodingError.self) { try Versioned.fetchAll(db) }
                #expect(throws: DecodingError.self) { try Versioned.fetchOne(db, key: 4) }
                #expect(throws: DecodingError.self) { try Versioned.fetchSet(db) }
                #expect(throws: DecodingError.self) {
                    let cursor = try Versioned.order(\.id).fetchCursor(db)
                    while try cursor.next() != nil {}
                }
                #expect(throws: DecodingError.self) { try Versioned.fetchAll(db, sql: "SELECT * FROM versioned") }
                #expect(throws: DecodingError.self) {
                    try Versioned.including(required: Versioned.owner).asRequest(of: VersionedWithOwner.self).fetchAll(db)
                }
                // The connection is still good for the rows init(from:) accepts.
                #expect(try Versioned.filter(\.id < 4).fetchCount(db) == 3)
                #expect(try Versioned.filter(\.id < 4).fetchAll(db).count == 3)
            }
        }
    }

    @Test(arguments: Backend.all)
    func everyWriteFormRunsEncodeTo(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try makeTables(db)
                let encodesBefore = UserCodingRuns.encodes.value
                var written = 0
                func check(_ ids: [Int64], _ form: String) throws {
                    written += ids.count
                    for id in ids { #expect(try storedFormat(db, id) == "legacy", "\(form) wrote record \(id) without encode(to:)") }
                    let encodes = UserCodingRuns.encodes.value - encodesBefore
                    #expect(encodes >= written, "\(form): encode(to:) ran \(encodes) times for \(written) records")
                }
                try Versioned(id: 10, name: "insert").insert(db)
                try check([10], "insert")
                try Versioned(id: 2, name: "update").update(db)
                try check([2], "update")
                try Versioned(id: 11, name: "save, new").save(db)
                try Versioned(id: 3, name: "save, existing").save(db)
                try check([11, 3], "save")
                try Versioned(id: 12, name: "upsert, new").upsert(db)
                try Versioned(id: 1, name: "upsert, existing").upsert(db)
                try check([12, 1], "upsert")
                try Versioned.insertAll(db, [Versioned(id: 13, name: "insertAll"), Versioned(id: 14, name: "insertAll")])
                try check([13, 14], "insertAll")
                try Versioned.upsertAll(db, [Versioned(id: 15, name: "upsertAll"), Versioned(id: 13, name: "upsertAll again")])
                try check([15, 13], "upsertAll")
                // The …AndFetch forms encode the record, and decode the row they return.
                let decodesBefore = UserCodingRuns.decodes.value
                let inserted = try Versioned(id: 16, name: "Ada").insertAndFetch(db)
                let upserted = try Versioned(id: 16, name: "Bo").upsertAndFetch(db)
                try check([16, 16], "insertAndFetch, upsertAndFetch")
                #expect(inserted.format == "modern" && upserted.format == "modern")
                #expect(UserCodingRuns.decodes.value == decodesBefore + 2)
                #expect(try String.fetchAll(db, sql: "SELECT DISTINCT format FROM versioned") == ["legacy"])
            }
        }
    }

    /// A record that opts in to the direct plans gets them: its hand-written
    /// coding is then skipped, which is why the default is off.
    @Test func optingInSkipsTheRecordsOwnCoding() throws {
        struct Trusted: Codable, FetchableRecord, PersistableRecord {
            static let databaseTableName = "versioned"
            static let databaseDecodesStoredPropertiesDirectly = true
            var id: Int64
            var format: String
            var name: String
            var owner_id: Int64?
            init(from decoder: any Decoder) throws {
                UserCodingRuns.decodes.increment()
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(Int64.self, forKey: .id)
                format = try container.decode(String.self, forKey: .format)
                name = try container.decode(String.self, forKey: .name)
                owner_id = try container.decodeIfPresent(Int64.self, forKey: .owner_id)
            }
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try makeTables(db) }
        let afterFirstFetch = try dbQueue.read { db throws -> Int in
            #expect(try Trusted.fetchAll(db).count == 3)
            return UserCodingRuns.decodes.value
        }
        let rows = try dbQueue.read { db in try (0..<5).flatMap { _ in try Trusted.fetchAll(db) } }
        #expect(rows.count == 15)
        // After the first fetch (the probe's made-up values), init(from:) ran for no row.
        #expect(UserCodingRuns.decodes.value == afterFirstFetch)
    }
}
