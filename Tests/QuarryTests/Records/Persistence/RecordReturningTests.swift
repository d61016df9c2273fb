// RETURNING variants: each returns what the database stored — a column
// DEFAULT, a generated column, and a value set by an AFTER trigger (which
// SQLite's RETURNING does not see, so Quarry reads the row again).

import Foundation
import Quarry
import QuarryTestSupport
import Testing

/// A record that does not write `created` (DEFAULT) nor `doubled` (generated),
/// and reads them back. `audit` is set by an AFTER trigger in the trigger table.
struct Stamped: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var created: String?
    var doubled: Int?
    var audit: String?

    /// The table, with the schema DSL: a stored generated column, which
    /// SQLite and PostgreSQL both have.
    static func createTable(_ db: Database) throws {
        try db.create(table: "stamped") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull().unique()
            t.column("score", .integer).notNull()
            t.column("created", .text).notNull().defaults(to: "the-default")
            t.column("doubled", .integer).generatedAs(sql: "score * 2", .stored)
            t.column("audit", .text)
        }
    }
    static let trigger = """
        CREATE TRIGGER stamped_audit AFTER INSERT ON stamped BEGIN
            UPDATE stamped SET audit = 'inserted ' || NEW.name WHERE id = NEW.id;
        END;
        CREATE TRIGGER stamped_audit_update AFTER UPDATE OF score ON stamped BEGIN
            UPDATE stamped SET audit = 'updated to ' || NEW.score WHERE id = NEW.id;
        END;
        """
    /// The same triggers on PostgreSQL, whose triggers run functions.
    static let postgresTrigger = """
        CREATE FUNCTION stamped_audit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE stamped SET audit = 'inserted ' || NEW.name WHERE id = NEW.id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER stamped_audit AFTER INSERT ON stamped FOR EACH ROW EXECUTE FUNCTION stamped_audit();
        CREATE FUNCTION stamped_audit_update() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE stamped SET audit = 'updated to ' || NEW.score WHERE id = NEW.id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER stamped_audit_update AFTER UPDATE OF score ON stamped FOR EACH ROW EXECUTE FUNCTION stamped_audit_update();
        """
}

@Suite("Record RETURNING")
struct RecordReturningTests {
    func withTable(_ storage: Backend, triggers: Bool, _ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try Stamped.createTable(db)
            if triggers { try db.execute(sql: storage.isPostgreSQL ? Stamped.postgresTrigger : Stamped.trigger) }
            try body(db)
        }
    }
    @Test(arguments: Backend.allWithMemory)
    func insertAndFetchWithoutTriggersUsesOneStatement(storage: Backend) throws {
        try withTable(storage, triggers: false) { db in
            var record = Stamped(id: nil, name: "a", score: 21)
            let recorder = SQLRecorder()
            let stored = try recorder.record(db) { try record.insertAndFetch(db) }
            // PostgreSQL: the identity fills the id, which comes last in RETURNING.
            #expect(recorder.writes == [storage.isPostgreSQL
                ? #"INSERT INTO "stamped" ("name", "score", "audit") VALUES (?, ?, ?) RETURNING *, "id""#
                : #"INSERT INTO "stamped" ("id", "name", "score", "audit") VALUES (?, ?, ?, ?) RETURNING *"#])
            #expect(stored == Stamped(id: 1, name: "a", score: 21, created: "the-default", doubled: 42, audit: nil))
            #expect(record.id == 1)
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func insertAndFetchWithTriggersRereads(storage: Backend) throws {
        try withTable(storage, triggers: true) { db in
            var record = Stamped(id: nil, name: "a", score: 21)
            let recorder = SQLRecorder()
            let stored = try recorder.record(db) { try record.insertAndFetch(db) }
            // RETURNING does not see what AFTER triggers write: the row is read
            // again, by rowid on SQLite, by the returned id on PostgreSQL.
            #expect(recorder.writes == (storage.isPostgreSQL ? [
                #"INSERT INTO "stamped" ("name", "score", "audit") VALUES (?, ?, ?) RETURNING "id""#,
                #"SELECT * FROM "stamped" WHERE "id" = ?"#,
            ] : [
                #"INSERT INTO "stamped" ("id", "name", "score", "audit") VALUES (?, ?, ?, ?)"#,
                #"SELECT * FROM "stamped" WHERE "rowid" = ?"#,
            ]))
            #expect(stored == Stamped(id: 1, name: "a", score: 21, created: "the-default", doubled: 42, audit: "inserted a"))
        }
    }

    /// SQLite's upsert catches a conflict on any unique key; PostgreSQL's
    /// targets the primary key, and a conflict on another key throws.
    @Test(arguments: Backend.allWithMemory, [false, true])
    func everyVariantReturnsStoredValues(storage: Backend, triggers: Bool) throws {
        try withTable(storage, triggers: triggers) { db in
            var record = Stamped(id: nil, name: "a", score: 1)
            let inserted = try record.insertAndFetch(db)
            #expect(inserted.created == "the-default")
            #expect(inserted.doubled == 2)
            #expect(inserted.audit == (triggers ? "inserted a" : nil))

            var changed = inserted
            changed.score = 5
            let updated = try changed.updateAndFetch(db)
            #expect(updated.doubled == 10)
            #expect(updated.created == "the-default")
            #expect(updated.audit == (triggers ? "updated to 5" : nil))

            var saved = updated
            saved.score = 6
            let savedFetched = try saved.saveAndFetch(db)
            #expect(savedFetched.doubled == 12)
            #expect(savedFetched.audit == (triggers ? "updated to 6" : nil))

            var newByUpsert = Stamped(id: nil, name: "b", score: 7)
            let upserted = try newByUpsert.upsertAndFetch(db)
            #expect(newByUpsert.id == 2)
            #expect(upserted.id == 2 && upserted.doubled == 14 && upserted.created == "the-default")
            #expect(upserted.audit == (triggers ? "inserted b" : nil))

            // Upsert that conflicts on the unique name updates row 2.
            var conflicting = Stamped(id: nil, name: "b", score: 8)
            if storage.isPostgreSQL {
                let error = try #require(throws: DatabaseError.self) { _ = try db.failingInSavepoint { try conflicting.upsertAndFetch(db) } }
                #expect(error.isUniqueConstraintViolation)
                return
            }
            let upsertedAgain = try conflicting.upsertAndFetch(db)
            #expect(conflicting.id == 2)
            #expect(upsertedAgain.id == 2 && upsertedAgain.doubled == 16)
            #expect(upsertedAgain.audit == (triggers ? "updated to 8" : nil))

            let deleted = try upsertedAgain.deleteAndFetch(db)
            #expect(deleted == upsertedAgain)
            #expect(try upsertedAgain.deleteAndFetch(db) == nil)
            #expect(try Stamped.fetchCount(db) == 1)
        }
    }

    /// SQLite's upsert catches a conflict on any unique key; PostgreSQL's
    /// targets the primary key, and a conflict on another key throws.
    @Test(arguments: Backend.allWithMemory, [false, true])
    func chosenSelection(storage: Backend, triggers: Bool) throws {
        try withTable(storage, triggers: triggers) { db in
            var record = Stamped(id: nil, name: "a", score: 4)
            let row = try record.insertAndFetch(db, selection: ["id", "created", "doubled", "audit"], as: Row.self)
            #expect(row.columnNames == ["id", "created", "doubled", "audit"])
            #expect(row.databaseValues == [.integer(1), .text("the-default"), .integer(8), triggers ? .text("inserted a") : .null])

            record = try #require(try Stamped.fetchOne(db, key: 1))
            record.score = 9
            let updated = try record.updateAndFetch(db, selection: ["doubled"], as: Row.self)
            #expect(updated.databaseValues == [.integer(18)])

            let saved = try record.saveAndFetch(db, selection: ["score"], as: Row.self)
            #expect(saved.databaseValues == [.integer(9)])

            var other = Stamped(id: nil, name: "a", score: 10)
            if storage.isPostgreSQL {
                let error = try #require(throws: DatabaseError.self) {
                    _ = try db.failingInSavepoint { try other.upsertAndFetch(db, selection: ["id", "doubled"], as: Row.self) }
                }
                #expect(error.isUniqueConstraintViolation)
                // The rest is SQLite's (its upsert takes the conflict target PostgreSQL refuses).
                return
            }
            let upserted = try other.upsertAndFetch(db, selection: ["id", "doubled"], as: Row.self)
            #expect(upserted.databaseValues == [.integer(1), .integer(20)])

            let deleted = try record.deleteAndFetch(db, selection: ["name"], as: Row.self)
            #expect(deleted?.databaseValues == [.text("a")])
        }
    }
    @Test(arguments: Backend.allWithMemory)
    func insertAndFetchIgnoredThrows(storage: Backend) throws {
        try withTable(storage, triggers: false) { db in
            var first = Stamped(id: nil, name: "a", score: 1)
            try first.insert(db)
            var duplicate = Stamped(id: nil, name: "a", score: 2)
            #expect(throws: RecordError.self) { _ = try duplicate.insertAndFetch(db, onConflict: .ignore) }
            #expect(duplicate.id == nil)
        }
    }
}
