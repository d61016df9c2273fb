// Classic SQL injection payloads through every API that takes a value: filters
// (==, <, IN, BETWEEN), LIKE and text matching, batch-update assignments, record
// insert/update/upsert/save, fetchOne(key:), raw SQL positional and named
// arguments. Each payload is stored and read back verbatim and never executed:
// afterwards the schema and the other rows are unchanged.

import Foundation
import Quarry
import Testing

struct InjectionVictim: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var note: String?
    static let databaseTableName = "victim"
}

/// A record keyed by text, for fetchOne(db, key:) with a payload as the key.
struct InjectionKeyed: Codable, FetchableRecord, PersistableRecord, Equatable {
    var code: String
    var value: String
    static let databaseTableName = "keyed"
}

@Suite("Injection payloads")
struct InjectionTests {
    static let payloads: [String] = [
        "'; DROP TABLE victim; --",
        "\"; DROP TABLE victim; --",
        "' OR 1=1 --",
        "\" OR 1=1 --",
        "' OR '1'='1",
        "') OR ('1'='1",
        "1; DELETE FROM victim",
        "1); DELETE FROM victim; --",
        "x'); DROP TABLE sentinel; --",
        "'||(SELECT sql FROM sqlite_master)||'",
        "' UNION SELECT name, sql, type FROM sqlite_master --",
        "%' --",
        "%",
        "_",
        "%_%",
        "\\'",
        "\\\"",
        "\\",
        "NULL",
        "null",
        "*/",
        "/*",
        "/* comment */ SELECT 1",
        "?",
        "?1",
        ":name",
        "@name",
        "$name",
        "' ; ATTACH DATABASE '/tmp/evil.db' AS evil; --",
        "'; PRAGMA writable_schema = ON; --",
        "' AND randomblob(1000000000) --",
        "\u{2019}; DROP TABLE victim; --",  // right single quotation mark
        "\u{02BC} OR 1=1 --",  // modifier letter apostrophe
        "\u{FF07} OR \u{FF07}1\u{FF07}=\u{FF07}1",  // fullwidth apostrophes
        "'\u{0}'; DROP TABLE victim; --",  // NUL-terminated in C
        "name\u{0}' OR 1=1 --",
        "';\n DROP TABLE victim;\r\n--",
        "`victim`",
        "[victim]",
        "0x27",
        "CHAR(39)",
        "'; SELECT load_extension('evil'); --",
        "'\u{301}; DROP TABLE victim; --",  // a quote and a combining mark: one Character
        "\"\u{308} OR 1=1 --",
        "",
    ]

    /// The schema and the sentinel row, to compare before and after.
    func snapshot(_ db: Database) throws -> (schema: [Row], sentinel: [Row], victims: Int) {
        (try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"),
         try Row.fetchAll(db, sql: "SELECT * FROM sentinel"),
         try InjectionVictim.fetchCount(db))
    }

    func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "victim") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("note", .text)
            }
            try db.create(table: "keyed") { t in
                t.primaryKey("code", .text)
                t.column("value", .text).notNull()
            }
            try db.create(table: "sentinel") { t in t.column("canary", .text) }
            try db.execute(sql: "INSERT INTO sentinel VALUES ('alive')")
            var bystander = InjectionVictim(id: nil, name: "bystander", note: "untouched")
            try bystander.insert(db)
        }
        return dbQueue
    }

    @Test(arguments: payloads)
    func payloadIsStoredAndReadBackVerbatimThroughEveryAPI(payload: String) throws {
        let dbQueue = try makeDatabase()
        let bytes = utf8Bytes(payload)
        try dbQueue.write { db in
            let before = try snapshot(db)

            // Record insert, fetchOne(key:), update, save and upsert.
            var victim = InjectionVictim(id: nil, name: payload, note: payload)
            try victim.insert(db)
            let id = try #require(victim.id)
            let inserted = try #require(try InjectionVictim.fetchOne(db, key: id))
            #expect(utf8Bytes(inserted.name) == bytes && inserted.note.map(utf8Bytes) == bytes)
            victim.note = payload + payload
            try victim.update(db)
            #expect(try InjectionVictim.fetchOne(db, key: id)?.note.map(utf8Bytes) == utf8Bytes(payload + payload))
            victim.note = payload
            try victim.save(db)
            var keyed = InjectionKeyed(code: payload, value: "first")
            try keyed.insert(db)
            keyed.value = payload
            try keyed.upsert(db)
            let byKey = try #require(try InjectionKeyed.fetchOne(db, key: payload))
            #expect(utf8Bytes(byKey.value) == bytes)
            #expect(try InjectionKeyed.fetchOne(db, key: ["code": payload])?.code.utf8.elementsEqual(payload.utf8) == true)
            #expect(try InjectionKeyed.fetchAll(db, keys: [payload, "other"]).count == 1)

            // Filters: ==, !=, <, IN, BETWEEN, on a column and on an expression.
            #expect(try InjectionVictim.filter(\.name == payload).fetchAll(db).map(\.id) == [id])
            #expect(try InjectionVictim.filter(\.name != payload).fetchAll(db).map(\.name) == ["bystander"])
            #expect(try InjectionVictim.filter(\.note == payload && \.name == payload).fetchCount(db) == 1)
            let lower = try InjectionVictim.filter(\.name < payload).fetchCount(db)
            #expect(lower == (utf8Bytes("bystander").lexicographicallyPrecedes(bytes) ? 1 : 0))
            #expect(try InjectionVictim.filter([payload, "'", "\""].contains(\.name)).fetchAll(db).map(\.id) == [id])
            #expect(try InjectionVictim.filter((payload...payload).contains(\.name)).fetchAll(db).map(\.id) == [id])
            #expect(try InjectionVictim.filter { $0.name == payload }.fetchCount(db) == 1)

            // Text matching: LIKE (with and without an escape), prefix, suffix, contains.
            var escaped = String.UnicodeScalarView()
            for scalar in payload.unicodeScalars {
                if scalar == "%" || scalar == "_" || scalar == "!" { escaped.append("!") }
                escaped.append(scalar)
            }
            let likeIDs = try InjectionVictim.filter { $0.name.like(String(escaped), escape: "!") }.fetchAll(db).compactMap(\.id)
            #expect(likeIDs == [id], "like \(String(escaped).debugDescription)")
            _ = try InjectionVictim.filter { $0.name.like(payload) }.fetchAll(db)  // may match; must not execute
            #expect(try InjectionVictim.filter { $0.name.hasPrefix(payload) }.fetchAll(db).compactMap(\.id).contains(id))
            #expect(try InjectionVictim.filter { $0.name.hasSuffix(payload) }.fetchAll(db).compactMap(\.id).contains(id))
            #expect(try InjectionVictim.filter { $0.name.contains(payload) }.fetchAll(db).compactMap(\.id).contains(id))

            // Batch update assignments and a filtered delete.
            let updated = try InjectionVictim.filter(\.id == id).updateAll(db, \.note <- payload + "!", \.name <- payload)
            #expect(updated == 1)
            #expect(try InjectionVictim.fetchOne(db, key: id)?.note.map(utf8Bytes) == utf8Bytes(payload + "!"))
            #expect(try InjectionVictim.filter(\.name == payload + "x").deleteAll(db) == 0)

            // Raw SQL: positional and named arguments, and a filter with arguments.
            try db.execute(sql: "INSERT INTO victim (name, note) VALUES (?, :note)", arguments: [payload, payload])
            try db.execute(sql: "INSERT INTO victim (name, note) VALUES (:name, :note)", arguments: ["name": payload, "note": payload])
            let raw = try String.fetchAll(db, sql: "SELECT name FROM victim WHERE name = ? AND note = ?", arguments: [payload, payload])
            #expect(raw.count == 2 && raw.allSatisfy { utf8Bytes($0) == bytes })
            let named = try String.fetchAll(db, sql: "SELECT note FROM victim WHERE name = :p", arguments: ["p": payload])
            #expect(named.count == 3)
            #expect(try InjectionVictim.filter(sql: "name = ?", arguments: [payload]).fetchCount(db) == 3)
            let selected = try String.fetchOne(db, sql: "SELECT ?", arguments: [payload])
            #expect(selected.map(utf8Bytes) == bytes)

            // Nothing was executed: the schema, the sentinel and the bystander are intact.
            let after = try snapshot(db)
            #expect(after.schema == before.schema)
            #expect(after.sentinel == before.sentinel)
            #expect(after.victims == before.victims + 3)
            #expect(try InjectionVictim.filter(\.name == "bystander").fetchOne(db)?.note == "untouched")
            #expect(try db.tableExists("victim") && db.tableExists("sentinel"))
        }
    }

    /// A quote followed by a combining mark is one `Character` in Swift but two
    /// scalars in SQL: quoting must still double it. (It did not: the quoted
    /// identifier ended there, and the rest of the name ran as SQL.)
    @Test func quotesFollowedByCombiningMarksStayQuoted() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let before = try snapshot(db)
            try db.execute(sql: "CREATE TABLE x (a)")
            let name = "x\"\u{301}; DROP TABLE sentinel; --"
            #expect(name.quotedDatabaseIdentifier == "\"x\"\"\u{301}; DROP TABLE sentinel; --\"")
            let error = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "SELECT * FROM \(name.quotedDatabaseIdentifier)")
            }
            #expect(error.message.contains("no such table"))
            #expect(try db.tableExists("sentinel"))

            // The same in table and column names, and in a text DEFAULT.
            let value = "'\u{301}) ; DROP TABLE sentinel; --"
            try db.create(table: name) { t in
                t.column("c\"\u{308}", .text).defaults(to: value)
                t.column("d", .integer)
            }
            try db.execute(sql: "INSERT INTO \(name.quotedDatabaseIdentifier) (d) VALUES (1)")
            let stored = try String.fetchOne(db, sql: "SELECT \("c\"\u{308}".quotedDatabaseIdentifier) FROM \(name.quotedDatabaseIdentifier)")
            #expect(stored.map(utf8Bytes) == utf8Bytes(value))
            #expect(try db.columns(in: name).map(\.name) == ["c\"\u{308}", "d"])
            try db.drop(table: name)
            try db.execute(sql: "DROP TABLE x")
            let after = try snapshot(db)
            #expect(after.schema == before.schema && after.sentinel == before.sentinel)
        }
    }

    /// Parameter names that start with a combining mark: the `:` prefix is one
    /// scalar, though Swift sees `:` and the mark as one Character.
    @Test func namedArgumentsStartingWithCombiningMarks() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let values = try #require(try Row.fetchOne(
                db, sql: "SELECT :\u{301}a, @\u{308}b, $\u{301}",
                arguments: [":\u{301}a": "first", "\u{308}b": "'; DROP TABLE x; --", "$\u{301}": 3]))
            #expect(values.databaseValues == [.text("first"), .text("'; DROP TABLE x; --"), .integer(3)])
            #expect(try String.fetchOne(db, sql: "SELECT ?1 || ?1", arguments: ["'"]) == "''")
        }
    }

    /// The payloads as identifiers: quoted, they name a table and a column and
    /// stay names.
    @Test(arguments: payloads.filter { !$0.isEmpty && !$0.contains("\u{0}") })
    func payloadAsIdentifierStaysAName(payload: String) throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let before = try snapshot(db)
            let table = "t " + payload
            try db.create(table: table) { t in
                t.autoIncrementedPrimaryKey("id")
                t.column(payload, .text)
            }
            try db.execute(
                sql: "INSERT INTO \(table.quotedDatabaseIdentifier) (\(payload.quotedDatabaseIdentifier)) VALUES (?)",
                arguments: [payload])
            #expect(try db.tableExists(table))
            #expect(try db.columns(in: table).map(\.name) == ["id", payload])
            let value = try String.fetchOne(db, sql: "SELECT \(payload.quotedDatabaseIdentifier) FROM \(table.quotedDatabaseIdentifier)")
            #expect(value.map(utf8Bytes) == utf8Bytes(payload))
            try db.drop(table: table)
            let after = try snapshot(db)
            #expect(after.schema == before.schema && after.sentinel == before.sentinel && after.victims == before.victims)
        }
    }
}
