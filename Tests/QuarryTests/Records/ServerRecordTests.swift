// Record persistence on a database server connection: the stand-in server of
// Support/StandInServer.swift, in SQLite's dialect, receives the statements as
// a server would. A server has no last inserted rowid, so the id of an
// inserted row comes back through RETURNING; the rest is the SQL SQLite runs.

import Foundation
@testable import Quarry
import QuarryPostgres
import Testing

@Suite("Records on a server connection")
struct ServerRecordTests {
    struct Item: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
        static let databaseTableName = "item"
        var id: Int64?
        var name: String
        var stock: Int
        var createdAt: String?

        enum CodingKeys: String, CodingKey {
            case id, name, stock
            case createdAt = "created_at"
        }
    }

    private func makeDatabase() throws -> (Database, StandInServer) {
        let server = StandInServer(dialect: SQLiteDialect())
        let db = try Database(server: server, configuration: Configuration())
        try db.execute(sql: """
            CREATE TABLE item (
                id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, stock INTEGER NOT NULL,
                created_at TEXT DEFAULT 'today');
            """)
        return (db, server)
    }

    @Test func insertGetsTheIdFromReturning() throws {
        let (db, server) = try makeDatabase()
        var first = Item(id: nil, name: "apple", stock: 3)
        try first.insert(db)
        #expect(first.id == 1)
        // SQLite reports no DEFAULT for an INTEGER PRIMARY KEY: the NULL id is sent.
        #expect(server.received.last?.sql == #"INSERT INTO "item" ("id", "name", "stock") VALUES (?1, ?2, ?3) RETURNING "id""#)
        #expect(server.received.last?.values == [.null, .text("apple"), .integer(3)])
        var second = Item(id: 10, name: "pear", stock: 0)
        try second.insert(db)
        #expect(second.id == 10)
        var third = Item(id: nil, name: "plum", stock: 1)
        try third.insert(db)
        #expect(third.id == 11)
        let stored = try Item.fetchAll(db, sql: "SELECT * FROM item ORDER BY id")
        #expect(stored.map(\.id) == [1, 10, 11])
        #expect(stored.map(\.createdAt) == ["today", "today", "today"])
    }

    @Test func insertAndFetchReturnsTheStoredRowAndTheId() throws {
        let (db, server) = try makeDatabase()
        var item = Item(id: nil, name: "apple", stock: 3)
        let stored = try item.insertAndFetch(db)
        #expect(stored == Item(id: 1, name: "apple", stock: 3, createdAt: "today"))
        #expect(item.id == 1)
        #expect(server.received.last?.sql == #"INSERT INTO "item" ("id", "name", "stock") VALUES (?1, ?2, ?3) RETURNING *, "id""#)
        let row = try Item(id: nil, name: "pear", stock: 1).inserted(db)
        #expect(row.id == 2)
    }

    @Test func ignoredInsertCallsNoDidInsert() throws {
        let (db, _) = try makeDatabase()
        _ = try Item(id: nil, name: "apple", stock: 3).inserted(db)
        var duplicate = Item(id: nil, name: "apple", stock: 5)
        try duplicate.insert(db, onConflict: .ignore)
        #expect(duplicate.id == nil)
        #expect(try Item.fetchCount(db) == 1)
        #expect(throws: DatabaseError.self) { try Item(id: nil, name: "apple", stock: 5).inserted(db) }
    }

    @Test func updateDeleteExistsAndKeysRunOnTheServer() throws {
        let (db, server) = try makeDatabase()
        var item = try Item(id: nil, name: "apple", stock: 3).inserted(db)
        item.stock = 7
        try item.update(db)
        #expect(server.received.last?.sql == #"UPDATE "item" SET "name" = ?1, "stock" = ?2, "created_at" = ?3 WHERE "id" = ?4"#)
        #expect(try Item.fetchOne(db, key: 1)?.stock == 7)
        #expect(try item.updateChanges(db) { $0.stock = 9 })
        #expect(try Item.fetchOne(db, key: ["name": "apple"])?.stock == 9)
        let fresh = try item.updateAndFetch(db)
        #expect(fresh.stock == 9)
        #expect(try item.exists(db))
        #expect(try Item.exists(db, key: 1))
        #expect(try !Item.exists(db, key: 2))
        _ = try Item(id: nil, name: "pear", stock: 1).inserted(db)
        #expect(try Item.fetchAll(db, keys: [1, 2, 3]).map(\.name).sorted() == ["apple", "pear"])
        #expect(try item.delete(db))
        #expect(try !item.delete(db))
        #expect(try Item.deleteOne(db, key: 2))
        #expect(try Item.fetchCount(db) == 0)
        var missing = Item(id: 99, name: "none", stock: 0)
        #expect(throws: RecordError.self) { try missing.update(db) }
        // save inserts a record whose key is not found, then updates it.
        try missing.save(db)
        #expect(missing.id == 99)
        missing.stock = 4
        try missing.save(db)
        #expect(try Item.fetchOne(db, key: 99)?.stock == 4)
        let deleted = try missing.deleteAndFetch(db)
        #expect(deleted?.stock == 4)
    }

    @Test func upsertInsertsThenUpdatesAndReturnsTheId() throws {
        let (db, _) = try makeDatabase()
        var item = Item(id: nil, name: "apple", stock: 3)
        try item.upsert(db)
        #expect(item.id == 1)
        var again = Item(id: 1, name: "apple", stock: 8)
        let stored = try again.upsertAndFetch(db)
        #expect(stored.stock == 8)
        #expect(try Item.fetchCount(db) == 1)
        // A controlled upsert that adds to the stock.
        var delivery = Item(id: nil, name: "apple", stock: 2)
        let added = try delivery.upsertAndFetch(db, onConflict: ["name"], doUpdate: { excluded in
            [\.stock += excluded[\.stock]]
        })
        #expect(added.stock == 10)
        #expect(added.id == 1)
    }

    @Test func insertAllSendsOneMultiRowStatementAndReadsTheIDsInOrder() throws {
        let (db, server) = try makeDatabase()
        let before = server.received.count
        let items = try Item.insertAll(db, [
            Item(id: nil, name: "a", stock: 1), Item(id: 5, name: "b", stock: 2), Item(id: nil, name: "c", stock: 3),
        ])
        // The ids are read by position: SQLite, behind the stand-in, returns
        // the rows of VALUES in order, as PostgreSQL does.
        #expect(items.map(\.id) == [1, 5, 6])
        let inserts = server.received[before...].filter { $0.sql.hasPrefix("INSERT") }
        #expect(inserts.map(\.sql) == [
            #"INSERT INTO "item" ("id", "name", "stock") VALUES (?1, ?2, ?3), (?4, ?5, ?6), (?7, ?8, ?9) RETURNING "id""#,
        ])
        #expect(inserts.first?.values == [.null, .text("a"), .integer(1), .integer(5), .text("b"), .integer(2), .null, .text("c"), .integer(3)])
        let beforeFetch = server.received.count
        let fetched = try Item.insertAllAndFetch(db, [Item(id: nil, name: "d", stock: 4), Item(id: nil, name: "e", stock: 5)])
        #expect(fetched == [Item(id: 7, name: "d", stock: 4, createdAt: "today"), Item(id: 8, name: "e", stock: 5, createdAt: "today")])
        #expect(server.received[beforeFetch...].filter { $0.sql.hasPrefix("INSERT") }.map(\.sql) == [
            #"INSERT INTO "item" ("id", "name", "stock") VALUES (?1, ?2, ?3), (?4, ?5, ?6) RETURNING *, "id""#,
        ])
        // All or none: a duplicate name undoes the records inserted before it.
        #expect(throws: DatabaseError.self) {
            try Item.insertAll(db, [Item(id: nil, name: "f", stock: 1), Item(id: nil, name: "a", stock: 1)])
        }
        #expect(try Item.fetchCount(db) == 5)
    }
}
