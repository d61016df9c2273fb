// Persistence of records: insert with id write-back, update, updateChanges,
// save, upsert, delete, conflict policies, callbacks, record-not-found, and
// fetching, counting and deleting by primary and unique keys.

import Foundation
import Quarry
import Testing

struct Player: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var email: String?
    var score: Int
    var teamID: Int64?

    /// The table, with the schema DSL: the same on SQLite and PostgreSQL.
    static func createTable(_ db: Database) throws {
        try db.create(table: "player") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
            t.column("email", .text).unique()
            t.column("score", .integer).notNull()
            t.column("teamID", .integer)
            t.check(sql: "score >= 0")
        }
    }
}

/// Counts its callbacks.
final class CallbackLog: @unchecked Sendable {
    var events: [String] = []
}

struct Tracked: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    static let databaseTableName = "tracked"
    nonisolated(unsafe) static var log = CallbackLog()
    enum CodingKeys: String, CodingKey { case id, name }

    mutating func willInsert(_ db: Database) throws {
        Self.log.events.append("willInsert")
        if name == "forbidden" { throw CancellationError() }
        name += "!"
    }
    mutating func didInsert(_ inserted: InsertionSuccess) {
        Self.log.events.append("didInsert \(inserted.rowID)")
        id = inserted.rowID
    }
    func willUpdate(_ db: Database, columns: Set<String>) throws { Self.log.events.append("willUpdate \(columns.sorted())") }
    func didUpdate(_ updated: PersistenceSuccess) { Self.log.events.append("didUpdate") }
    mutating func willSave(_ db: Database) throws { Self.log.events.append("willSave") }
    func didSave(_ saved: PersistenceSuccess) { Self.log.events.append("didSave") }
    func willDelete(_ db: Database) throws { Self.log.events.append("willDelete") }
    func didDelete(deleted: Bool) { Self.log.events.append("didDelete \(deleted)") }
}

@Suite("Record persistence", .serialized)
struct RecordPersistenceTests {
    func withPlayers(_ storage: Backend, _ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try Player.createTable(db)
            try body(db)
        }
    }

    /// The id the database chooses is written back. SQLite picks one more
    /// than the largest rowid (11 after an explicit 10); PostgreSQL's identity
    /// sequence is not moved by an explicit id and goes on (2).
    @Test(arguments: Backend.allWithMemory)
    func insertWritesBackTheID(storage: Backend) throws {
        try withPlayers(storage) { db in
            var arthur = Player(id: nil, name: "Arthur", email: "a@x", score: 100, teamID: nil)
            let recorder = SQLRecorder()
            try recorder.record(db) { try arthur.insert(db) }
            #expect(recorder.writes == [storage.isPostgreSQL
                ? #"INSERT INTO "player" ("name", "email", "score", "teamID") VALUES (?, ?, ?, ?) RETURNING "id""#
                : #"INSERT INTO "player" ("id", "name", "email", "score", "teamID") VALUES (?, ?, ?, ?, ?)"#])
            #expect(arthur.id == 1)
            var barbara = Player(id: 10, name: "Barbara", email: nil, score: 5, teamID: 2)
            try barbara.insert(db)
            #expect(barbara.id == 10)
            var craig = Player(id: nil, name: "Craig", email: nil, score: 0, teamID: nil)
            try craig.insert(db)
            #expect(craig.id == (storage.isPostgreSQL ? 2 : 11))
            let copy = try Player(id: nil, name: "Dan", email: nil, score: 1, teamID: nil).inserted(db)
            #expect(copy.id == (storage.isPostgreSQL ? 3 : 12))
            #expect(try Player.fetchCount(db) == 4)
            #expect(try Player.fetchAll(db).map(\.name) == ["Arthur", "Barbara", "Craig", "Dan"])
            #expect(try Player.fetchOne(db, key: copy.id) == copy)
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func updateAllColumnsAndSubset(storage: Backend) throws {
        try withPlayers(storage) { db in
            var player = Player(id: nil, name: "Arthur", email: "a@x", score: 100, teamID: nil)
            try player.insert(db)
            player.score = 110
            player.name = "Art"
            let recorder = SQLRecorder()
            try recorder.record(db) { try player.update(db) }
            #expect(recorder.writes == [#"UPDATE "player" SET "name" = ?, "email" = ?, "score" = ?, "teamID" = ? WHERE "id" = ?"#])
            #expect(try Player.fetchOne(db, key: 1) == player)

            var changed = player
            changed.name = "Ignored"
            changed.score = 120
            let subset = SQLRecorder()
            try subset.record(db) { try changed.update(db, columns: ["SCORE"]) }
            #expect(subset.writes == [#"UPDATE "player" SET "score" = ? WHERE "id" = ?"#])
            let stored = try #require(try Player.fetchOne(db, key: 1))
            #expect(stored.name == "Art" && stored.score == 120)
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func updateOfMissingRowThrowsRecordNotFound(storage: Backend) throws {
        try withPlayers(storage) { db in
            let ghost = Player(id: 42, name: "Ghost", email: nil, score: 0, teamID: nil)
            #expect(throws: RecordError.recordNotFound(databaseTableName: "player", key: ["id": .integer(42)])) {
                try ghost.update(db)
            }
            do {
                try ghost.update(db)
            } catch {
                #expect("\(error)" == #"record not found in table "player" with key [id: 42]"#)
            }
            let unsaved = Player(id: nil, name: "New", email: nil, score: 0, teamID: nil)
            #expect(throws: RecordError.recordNotFound(databaseTableName: "player", key: ["id": .null])) {
                try unsaved.update(db)
            }
            #expect(throws: RecordError.recordNotFound(databaseTableName: "player", key: ["id": .integer(42)])) {
                _ = try ghost.updateAndFetch(db)
            }
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func updateChangesIssuesNoUpdateWhenNothingChanged(storage: Backend) throws {
        try withPlayers(storage) { db in
            var player = Player(id: nil, name: "Arthur", email: nil, score: 100, teamID: nil)
            try player.insert(db)
            let old = player
            let changesBefore = db.totalChangesCount
            let recorder = SQLRecorder()
            let updated = try recorder.record(db) { try player.updateChanges(db, from: old) }
            #expect(updated == false)
            #expect(recorder.statements.isEmpty)
            #expect(db.totalChangesCount == changesBefore)

            player.score = 150
            let recorder2 = SQLRecorder()
            #expect(try recorder2.record(db) { try player.updateChanges(db, from: old) })
            #expect(recorder2.writes == [#"UPDATE "player" SET "score" = ? WHERE "id" = ?"#])
            #expect(db.totalChangesCount == changesBefore + 1)

            #expect(try player.updateChanges(db) { $0.teamID = 7 })
            #expect(try player.updateChanges(db) { $0.teamID = 7 } == false)
            #expect(try Player.fetchOne(db, key: 1)?.teamID == 7)
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func saveInsertsThenUpdates(storage: Backend) throws {
        try withPlayers(storage) { db in
            var player = Player(id: nil, name: "Arthur", email: nil, score: 1, teamID: nil)
            try player.save(db)
            #expect(player.id == 1)
            player.score = 2
            let recorder = SQLRecorder()
            try recorder.record(db) { try player.save(db) }
            #expect(recorder.writes == [#"UPDATE "player" SET "name" = ?, "email" = ?, "score" = ?, "teamID" = ? WHERE "id" = ?"#])
            var withUnknownID = Player(id: 99, name: "Zed", email: nil, score: 3, teamID: nil)
            try withUnknownID.save(db)
            #expect(withUnknownID.id == 99)
            #expect(try Player.fetchAll(db).map(\.score) == [2, 3])
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func deleteAndKeyedDeletes(storage: Backend) throws {
        try withPlayers(storage) { db in
            for name in ["a", "b", "c", "d", "e"] {
                var player = Player(id: nil, name: name, email: name + "@x", score: 0, teamID: nil)
                try player.insert(db)
            }
            let first = try #require(try Player.fetchOne(db, key: 1))
            let recorder = SQLRecorder()
            #expect(try recorder.record(db) { try first.delete(db) })
            #expect(recorder.writes == [#"DELETE FROM "player" WHERE "id" = ?"#])
            #expect(try first.delete(db) == false)
            #expect(try first.exists(db) == false)
            #expect(try Player.deleteOne(db, key: 2))
            #expect(try Player.deleteOne(db, key: 2) == false)
            #expect(try Player.deleteOne(db, key: ["email": "c@x"]))
            #expect(try Player.deleteAll(db, keys: [4, 5, 6]) == 2)
            #expect(try Player.fetchCount(db) == 0)
            var again = Player(id: nil, name: "z", email: nil, score: 0, teamID: nil)
            try again.insert(db)
            #expect(try Player.deleteAll(db) == 1)
            #expect(try Player.fetchCount(db) == 0)
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func fetchByKeys(storage: Backend) throws {
        try withPlayers(storage) { db in
            for name in ["a", "b", "c"] {
                var player = Player(id: nil, name: name, email: name + "@x", score: 0, teamID: nil)
                try player.insert(db)
            }
            let recorder = SQLRecorder()
            let b = try recorder.record(db) { try Player.fetchOne(db, key: 2) }
            #expect(b?.name == "b")
            #expect(recorder.writes == [#"SELECT * FROM "player" WHERE "id" = ?"#])
            #expect(try Player.fetchOne(db, key: 9) == nil)
            #expect(try Player.fetchOne(db, key: Int64?.none) == nil)
            #expect(try Player.fetchOne(db, key: ["email": "c@x"])?.id == 3)
            #expect(try Player.fetchOne(db, key: ["EMAIL": "c@x"])?.id == 3)
            #expect(try Player.fetchOne(db, key: ["email": nil]) == nil)
            #expect(try Player.fetchAll(db, keys: [1, 3, 7]).map(\.name).sorted() == ["a", "c"])
            #expect(try Player.fetchAll(db, keys: [Int]()).isEmpty)
            #expect(try Player.exists(db, key: 1))
            #expect(try Player.exists(db, key: 8) == false)
            #expect(try Player.exists(db, key: ["email": "a@x"]))
            #expect(try Player.exists(db, key: ["email": "zz"]) == false)
            #expect(throws: RecordError.notUniqueKey(databaseTableName: "player", columns: ["name"])) {
                _ = try Player.fetchOne(db, key: ["name": "a"])
            }
            #expect(throws: RecordError.notUniqueKey(databaseTableName: "player", columns: ["name"])) {
                _ = try Player.deleteOne(db, key: ["name": "a"])
            }
        }
    }

    /// Conflict policies. A constraint violation fails the insert on both
    /// backends, and `.ignore` skips the row (ON CONFLICT DO NOTHING on
    /// PostgreSQL). INSERT OR REPLACE, OR FAIL, OR ROLLBACK and UPDATE OR
    /// IGNORE are SQLite's: PostgreSQL has no OR clause, and they throw there
    /// before any statement.
    @Test(arguments: Backend.allWithMemory)
    func conflictPolicies(storage: Backend) throws {
        try withPlayers(storage) { db in
            var arthur = Player(id: nil, name: "Arthur", email: "a@x", score: 1, teamID: nil)
            try arthur.insert(db)

            var duplicate = Player(id: nil, name: "Other", email: "a@x", score: 2, teamID: nil)
            do {
                // In a savepoint: after an error, PostgreSQL runs nothing else
                // in the transaction until it rolls back.
                try db.inSavepoint { try duplicate.insert(db); return .commit }
                Issue.record("expected a unique constraint violation")
            } catch let error as DatabaseError {
                #expect(error.isUniqueConstraintViolation)
            }
            #expect(duplicate.id == nil)

            let recorder = SQLRecorder()
            try recorder.record(db) { try duplicate.insert(db, onConflict: .ignore) }
            #expect(recorder.writes == [storage.isPostgreSQL
                ? #"INSERT INTO "player" ("name", "email", "score", "teamID") VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING "id""#
                : #"INSERT OR IGNORE INTO "player" ("id", "name", "email", "score", "teamID") VALUES (?, ?, ?, ?, ?)"#])
            #expect(duplicate.id == nil)  // nothing inserted: didInsert not called
            #expect(try Player.fetchCount(db) == 1)

            var negative = Player(id: nil, name: "Neg", email: nil, score: -1, teamID: nil)
            if storage.isPostgreSQL {
                for policy in [ConflictResolution.replace, .fail, .rollback] {
                    let refusal = SQLRecorder()
                    let error = try refusal.record(db) {
                        try #require(throws: DatabaseError.self) { try duplicate.insert(db, onConflict: policy) }
                    }
                    #expect(error.message == "INSERT OR \(policy.rawValue) is SQLite-only: PostgreSQL has no OR clause; "
                        + "use an upsert, or onConflict: .ignore (ON CONFLICT DO NOTHING)")
                    #expect(refusal.writes.isEmpty)
                }
                arthur.score = 3
                let error = try #require(throws: DatabaseError.self) { try arthur.update(db, onConflict: .ignore) }
                #expect(error.message == "UPDATE OR IGNORE is SQLite-only: PostgreSQL has no OR clause")
                #expect(try Player.fetchAll(db).map(\.score) == [1])
                // ABORT, the default, fails the statement.
                #expect(throws: DatabaseError.self) { try db.inSavepoint { try negative.insert(db, onConflict: .abort); return .commit } }
                #expect(try Player.fetchAll(db).map(\.name) == ["Arthur"])
                return
            }

            try duplicate.insert(db, onConflict: .replace)
            #expect(duplicate.id == 2)
            #expect(try Player.fetchAll(db).map(\.name) == ["Other"])

            // FAIL keeps the changes already made by the statement; ABORT and ROLLBACK fail too.
            for policy in [ConflictResolution.abort, .fail] {
                #expect(throws: DatabaseError.self) { try negative.insert(db, onConflict: policy) }
            }
            try db.execute(sql: "SAVEPOINT s")
            #expect(throws: DatabaseError.self) { try negative.insert(db, onConflict: .rollback) }
            #expect(db.isInsideTransaction == false)  // ROLLBACK ended the transaction
            try db.execute(sql: "BEGIN")  // the writer's transaction is expected to be open at the end
        }
    }

    /// SQLite's upsert without conflict target catches every unique key;
    /// PostgreSQL's conflict target is the primary key, and a conflict on
    /// another unique key fails.
    @Test(arguments: Backend.allWithMemory)
    func upsert(storage: Backend) throws {
        try withPlayers(storage) { db in
            var arthur = Player(id: nil, name: "Arthur", email: "a@x", score: 1, teamID: nil)
            let recorder = SQLRecorder()
            try recorder.record(db) { try arthur.upsert(db) }
            #expect(recorder.writes == [storage.isPostgreSQL
                ? #"INSERT INTO "player" ("name", "email", "score", "teamID") VALUES (?, ?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "email" = excluded."email", "score" = excluded."score", "teamID" = excluded."teamID" RETURNING "id""#
                : #"INSERT INTO "player" ("id", "name", "email", "score", "teamID") VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "name" = excluded."name", "email" = excluded."email", "score" = excluded."score", "teamID" = excluded."teamID" RETURNING rowid"#])
            #expect(arthur.id == 1)
            var sameEmail = Player(id: nil, name: "Arthur II", email: "a@x", score: 50, teamID: nil)
            if storage.isPostgreSQL {
                // In a savepoint: after an error, PostgreSQL runs nothing else
                // in the transaction until it rolls back.
                let error = try #require(throws: DatabaseError.self) { try db.inSavepoint { try sameEmail.upsert(db); return .commit } }
                #expect(error.isUniqueConstraintViolation)
                #expect(sameEmail.id == nil)
                #expect(try Player.fetchAll(db) == [arthur])
            } else {
                // Conflict on the unique email: the existing row is updated, and its id is written back.
                try sameEmail.upsert(db)
                #expect(sameEmail.id == 1)
                #expect(try Player.fetchAll(db) == [Player(id: 1, name: "Arthur II", email: "a@x", score: 50, teamID: nil)])
            }
            // Conflict on the primary key.
            var sameID = Player(id: 1, name: "Third", email: "t@x", score: 3, teamID: nil)
            try sameID.upsert(db)
            #expect(try Player.fetchAll(db) == [sameID])
            let fetched = try sameID.upsertAndFetch(db)
            #expect(fetched == sameID)
        }
    }
    /// An upsert that conflicts on the primary key updates the row, on both
    /// backends (PostgreSQL's conflict target is the primary key).
    @Test(arguments: Backend.allWithMemory)
    func upsertOnThePrimaryKey(storage: Backend) throws {
        try withPlayers(storage) { db in
            var arthur = Player(id: nil, name: "Arthur", email: "a@x", score: 1, teamID: nil)
            let recorder = SQLRecorder()
            try recorder.record(db) { try arthur.upsert(db) }
            #expect(recorder.writes == [storage.isPostgreSQL
                ? #"INSERT INTO "player" ("name", "email", "score", "teamID") VALUES (?, ?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "email" = excluded."email", "score" = excluded."score", "teamID" = excluded."teamID" RETURNING "id""#
                : #"INSERT INTO "player" ("id", "name", "email", "score", "teamID") VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "name" = excluded."name", "email" = excluded."email", "score" = excluded."score", "teamID" = excluded."teamID" RETURNING rowid"#])
            #expect(arthur.id == 1)
            var sameID = Player(id: 1, name: "Second", email: "s@x", score: 3, teamID: nil)
            try sameID.upsert(db)
            #expect(sameID.id == 1)
            #expect(try Player.fetchAll(db) == [sameID])
            sameID.score = 4
            #expect(try sameID.upsertAndFetch(db) == sameID)
            #expect(try Player.fetchAll(db) == [sameID])
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func callbacks(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.create(table: "tracked") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
            }
            Tracked.log = CallbackLog()
            var record = Tracked(id: nil, name: "x")
            try record.insert(db)
            #expect(record.name == "x!" && record.id == 1)
            #expect(try String.fetchOne(db, sql: "SELECT name FROM tracked") == "x!")
            try record.update(db)
            try record.save(db)
            try record.delete(db)
            #expect(Tracked.log.events == [
                "willSave", "willInsert", "didInsert 1", "didSave",
                "willSave", "willUpdate [\"name\"]", "didUpdate", "didSave",
                "willSave", "willUpdate [\"name\"]", "didUpdate", "didSave",
                "willDelete", "didDelete true",
            ])
            var forbidden = Tracked(id: nil, name: "forbidden")
            #expect(throws: CancellationError.self) { try forbidden.insert(db) }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM tracked") == 0)
        }
    }

    /// A composite primary key (a WITHOUT ROWID table on SQLite).
    @Test(arguments: Backend.allWithMemory)
    func compositePrimaryKeys(storage: Backend) throws {
        struct Membership: Codable, FetchableRecord, PersistableRecord, Equatable {
            var teamID: Int64
            var playerID: Int64
            var role: String
        }
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.execute(sql: storage.isPostgreSQL
                ? #"CREATE TABLE membership ("teamID" BIGINT, "playerID" BIGINT, role TEXT, PRIMARY KEY ("teamID", "playerID"))"#
                : "CREATE TABLE membership (teamID INTEGER, playerID INTEGER, role TEXT, PRIMARY KEY (teamID, playerID)) WITHOUT ROWID")
            var membership = Membership(teamID: 1, playerID: 2, role: "captain")
            try membership.insert(db)
            membership.role = "coach"
            let recorder = SQLRecorder()
            try recorder.record(db) { try membership.update(db) }
            #expect(recorder.writes == [#"UPDATE "membership" SET "role" = ? WHERE "teamID" = ? AND "playerID" = ?"#])
            #expect(try Membership.fetchOne(db, key: ["teamID": 1, "playerID": 2]) == membership)
            let error = try #require(throws: RecordError.self) { _ = try Membership.fetchOne(db, key: 1) }
            #expect("\(error)".contains("the primary key has 2 columns (teamID, playerID)"))
            #expect(try membership.deleteAndFetch(db) == membership)
            #expect(try Membership.fetchCount(db) == 0)
        }
    }

    /// The hidden rowid of a table without primary key is SQLite's: on
    /// PostgreSQL such a table has no key, and the key-based methods say so.
    @Test(arguments: Backend.allWithMemory)
    func hiddenRowIDPrimaryKey(storage: Backend) throws {
        struct Note: Codable, FetchableRecord, PersistableRecord, Equatable {
            var text: String
        }
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE note (text TEXT)")
            var note = Note(text: "hello")
            try note.insert(db)
            if storage.isPostgreSQL {
                let noKey = RecordError.invalidKey(databaseTableName: "note", reason: "the table has no primary key")
                #expect(throws: noKey) { _ = try Note.fetchOne(db, key: 1) }
                #expect(throws: noKey) { try note.update(db) }
                #expect(try Note.fetchAll(db) == [note])
                return
            }
            #expect(try Note.fetchOne(db, key: 1) == note)  // the hidden rowid is the key
            #expect(throws: RecordError.missingPrimaryKey(databaseTableName: "note", column: "rowid")) {
                try note.update(db)
            }
        }
    }

    @Test func defaultTableNames() {
        struct PlaylistTrack: TableRecord {}
        struct HTTPRequest: TableRecord {}
        struct URL: TableRecord {}
        struct Box<T>: TableRecord {}
        #expect(Player.databaseTableName == "player")
        #expect(PlaylistTrack.databaseTableName == "playlistTrack")
        #expect(HTTPRequest.databaseTableName == "httpRequest")
        #expect(URL.databaseTableName == "url")
        #expect(Box<Int>.databaseTableName == "box")
    }

    @Test(arguments: Backend.allWithMemory)
    func encodingErrorsAreThrown(storage: Backend) throws {
        struct Big: Codable, PersistableRecord {
            var id: Int64?
            var value: UInt64
        }
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE big (id INTEGER PRIMARY KEY, value INTEGER)")
            var big = Big(id: nil, value: UInt64.max)
            #expect(throws: DatabaseError.self) { try big.insert(db) }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM big") == 0)
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func schemaChangesAreSeen(storage: Backend) throws {
        struct Item: Codable, FetchableRecord, PersistableRecord {
            var code: String
            var label: String
        }
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE item (code TEXT, label TEXT)")
            var item = Item(code: "a", label: "x")
            try item.insert(db)
            #expect(throws: RecordError.self) { try item.update(db) }  // key is the hidden rowid
            try db.execute(sql: "DROP TABLE item; CREATE TABLE item (code TEXT PRIMARY KEY, label TEXT)")
            try item.insert(db)
            item.label = "y"
            try item.update(db)
            #expect(try Item.fetchOne(db, key: "a")?.label == "y")
        }
    }

    /// The schema is checked once per transaction, so the checks that a
    /// transaction skips must not miss its own changes: DDL, and DDL undone
    /// by `ROLLBACK TO`. Each step reads through a cached `SELECT *` whose
    /// decoding layout would be stale if a change were missed.
    @Test(arguments: Backend.allWithMemory)
    func schemaChangesInsideATransactionAreSeen(storage: Backend) throws {
        struct Thing: Codable, FetchableRecord, PersistableRecord, Equatable {
            var id: Int64
            var name: String
        }
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE thing (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        try writer.write { db in
            try Thing(id: 1, name: "a").insert(db)
            #expect(try Thing.fetchAll(db) == [Thing(id: 1, name: "a")])
            try db.inSavepoint {
                // The columns in another order: a layout learned before is wrong now.
                try db.execute(sql: """
                    DROP TABLE thing; CREATE TABLE thing (name TEXT NOT NULL, id INTEGER PRIMARY KEY);
                    INSERT INTO thing VALUES ('b', 2)
                    """)
                #expect(try Thing.fetchAll(db) == [Thing(id: 2, name: "b")])
                try Thing(id: 3, name: "c").insert(db)
                #expect(try Row.fetchAll(db, sql: "SELECT * FROM thing ORDER BY id").map(\.databaseValues) == [
                    [.text("b"), .integer(2)], [.text("c"), .integer(3)],
                ])
                return .rollback
            }
            // Back to (id, name) with its one row.
            #expect(try Thing.fetchAll(db) == [Thing(id: 1, name: "a")])
            try Thing(id: 4, name: "d").insert(db)
            #expect(try Row.fetchAll(db, sql: "SELECT * FROM thing ORDER BY id").map(\.databaseValues) == [
                [.integer(1), .text("a")], [.integer(4), .text("d")],
            ])
        }
        // Another transaction, after the writer changed the schema in one of its own.
        try writer.write { db in
            try db.execute(sql: "DROP TABLE thing; CREATE TABLE thing (name TEXT NOT NULL, id INTEGER PRIMARY KEY)")
            try Thing(id: 5, name: "e").insert(db)
        }
        #expect(try writer.read { db in try Thing.fetchAll(db) } == [Thing(id: 5, name: "e")])
    }
}

/// Encodable by hand, skipping `nickname` when nil: its column set varies.
struct VaryingRecord: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var nickname: String?
    static let databaseTableName = "varying"
    enum CodingKeys: String, CodingKey { case id, name, nickname }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        if let nickname { try container.encode(nickname, forKey: .nickname) }
        try container.encode(name, forKey: .name)
    }
}

@Suite("Record encoding layouts")
struct RecordEncodingLayoutTests {
    @Test(arguments: Backend.allWithMemory)
    func recordsWhoseKeysVary(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.create(table: "varying") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
                t.column("nickname", .text).defaults(to: "none")
            }
            let recorder = SQLRecorder()
            try recorder.record(db) {
                for (name, nickname) in [("a", "x"), ("b", nil), ("c", "z"), ("d", nil)] {
                    var record = VaryingRecord(id: nil, name: name, nickname: nickname)
                    try record.insert(db)
                    #expect(record.id != nil)
                }
            }
            // PostgreSQL's identity column has a default: the NULL id is left
            // out too, and the id comes back through RETURNING.
            #expect(recorder.writes == (storage.isPostgreSQL ? [
                #"INSERT INTO "varying" ("nickname", "name") VALUES (?, ?) RETURNING "id""#,
                #"INSERT INTO "varying" ("name") VALUES (?) RETURNING "id""#,
                #"INSERT INTO "varying" ("nickname", "name") VALUES (?, ?) RETURNING "id""#,
                #"INSERT INTO "varying" ("name") VALUES (?) RETURNING "id""#,
            ] : [
                #"INSERT INTO "varying" ("id", "nickname", "name") VALUES (?, ?, ?)"#,
                #"INSERT INTO "varying" ("id", "name") VALUES (?, ?)"#,
                #"INSERT INTO "varying" ("id", "nickname", "name") VALUES (?, ?, ?)"#,
                #"INSERT INTO "varying" ("id", "name") VALUES (?, ?)"#,
            ]))
            #expect(try VaryingRecord.fetchAll(db).map(\.nickname) == ["x", "none", "z", "none"])
            #expect(try VaryingRecord.fetchAll(db).map(\.name) == ["a", "b", "c", "d"])
            #expect(try VaryingRecord.fetchAll(db).map(\.id) == [1, 2, 3, 4])
        }
    }
}
