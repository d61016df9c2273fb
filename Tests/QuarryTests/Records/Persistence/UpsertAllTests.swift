// upsertAll: one multi-row INSERT … ON CONFLICT … DO UPDATE per chunk of
// records, the ids written back, the `where:` condition that skips records,
// a key repeated in one batch (split into another statement, which PostgreSQL
// requires), and the cases that run one statement per record. Shared with
// PostgreSQL.

import Foundation
@testable import Quarry
import Testing

private struct Page: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
    var id: Int64?
    var path: String
    var count: Int
    static let databaseTableName = "page"
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

private struct Note: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
    var id: Int64?
    var uid: String
    var body: String
    var version: Int
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A record that logs its persistence callbacks.
private final class UpsertCallbackLog: @unchecked Sendable {
    var events: [String] = []
}

private struct LoggedPage: Codable, MutablePersistableRecord {
    var id: Int64?
    var path: String
    var count: Int
    static let databaseTableName = "page"
    static let log = UpsertCallbackLog()
    enum CodingKeys: String, CodingKey { case id, path, count }
    func willSave(_ db: Database) throws { Self.log.events.append("willSave \(path)") }
    mutating func willInsert(_ db: Database) throws { Self.log.events.append("willInsert \(path)") }
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        Self.log.events.append("aroundSave \(path)")
        _ = try save()
    }
    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
        Self.log.events.append("didInsert \(path)")
    }
    func didSave(_ saved: PersistenceSuccess) { Self.log.events.append("didSave \(path)") }
}

/// Every statement `body` runs, repeats included; a server's `$1…$n` are written `?`.
private final class StatementLog {
    var statements: [String] = []

    func record<T>(_ db: Database, _ body: () throws -> T) rethrows -> T {
        db.trace { [unowned self] event in
            guard case .statement(let sql) = event else { return }
            self.statements.append(sql.replacingOccurrences(of: #"\$[0-9]+"#, with: "?", options: .regularExpression))
        }
        defer { db.trace(nil) }
        return try body()
    }

    var inserts: [String] { statements.filter { $0.hasPrefix("INSERT") } }
}

private func createTables(_ db: Database) throws {
    try db.create(table: "page") { t in
        t.autoIncrementedPrimaryKey("id")
        t.column("path", .text).notNull().unique()
        t.column("count", .integer).notNull()
    }
    try db.create(table: "note") { t in
        t.autoIncrementedPrimaryKey("id")
        t.column("uid", .text).notNull().unique()
        t.column("body", .text).notNull()
        t.column("version", .integer).notNull()
    }
}

/// "path=count" of every page, by path.
private func pages(_ db: Database) throws -> [String] {
    try Row.fetchAll(db, sql: "SELECT path, count FROM page ORDER BY path").map { "\(try $0[0] as String)=\(try $0[1] as Int)" }
}

/// The id of the stored page of `path`.
private func pageID(_ db: Database, _ path: String) throws -> Int64? {
    try Int64.fetchOne(db, sql: "SELECT id FROM page WHERE path = ?", arguments: [path])
}

@Suite("upsertAll")
struct UpsertAllTests {
    @Test("one statement for the batch; ids written back; existing rows updated", arguments: Backend.all)
    func oneStatement(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createTables(db)
                var existing = Page(id: nil, path: "/a", count: 1)
                try existing.insert(db)
                let log = StatementLog()
                let upserted = try log.record(db) {
                    try Page.upsertAll(
                        db, [Page(id: nil, path: "/a", count: 2), Page(id: nil, path: "/b", count: 1), Page(id: nil, path: "/c", count: 5)],
                        onConflict: ["path"]
                    ) { excluded in [\.count += excluded[\.count]] }
                }
                #expect(log.inserts == [backend.isPostgreSQL
                    ? #"INSERT INTO "page" ("path", "count") VALUES (?, ?), (?, ?), (?, ?) ON CONFLICT ("path") DO UPDATE SET "count" = "page"."count" + excluded."count" RETURNING "path", "id""#
                    : #"INSERT INTO "page" ("id", "path", "count") VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?) ON CONFLICT ("path") DO UPDATE SET "count" = "count" + excluded."count" RETURNING "path", rowid"#])
                #expect(try pages(db) == ["/a=3", "/b=1", "/c=5"])
                #expect(upserted.map(\.path) == ["/a", "/b", "/c"])
                #expect(upserted[0].id == existing.id)
                #expect(try upserted.map(\.id) == upserted.map { try pageID(db, $0.path) })
                #expect(upserted.allSatisfy { $0.id != nil })
            }
        }
    }

    @Test("a key repeated in the batch starts another statement", arguments: Backend.all)
    func repeatedKeys(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createTables(db)
                let log = StatementLog()
                let batch = [
                    Page(id: nil, path: "/a", count: 1), Page(id: nil, path: "/b", count: 1),
                    Page(id: nil, path: "/a", count: 3), Page(id: nil, path: "/c", count: 1), Page(id: nil, path: "/a", count: 10),
                ]
                let upserted = try log.record(db) {
                    try Page.upsertAll(db, batch, onConflict: ["path"]) { excluded in [\.count += excluded[\.count]] }
                }
                // [/a, /b], [/a, /c], [/a]: each statement updates a row once,
                // as PostgreSQL requires, and sees the rows of the previous ones.
                #expect(log.inserts.count == 3)
                #expect(log.inserts.map { $0.components(separatedBy: "), (").count } == [2, 2, 1])
                #expect(try pages(db) == ["/a=14", "/b=1", "/c=1"])
                #expect(try upserted.map(\.id) == upserted.map { try pageID(db, $0.path) })
            }
        }
    }

    @Test("where: skips the records whose update it refuses, in one statement", arguments: Backend.all)
    func condition(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createTables(db)
                _ = try Note.insertAll(db, [
                    Note(id: nil, uid: "x", body: "x1", version: 1), Note(id: nil, uid: "y", body: "y5", version: 5),
                ])
                let log = StatementLog()
                let incoming = [
                    Note(id: nil, uid: "x", body: "x2", version: 2),  // newer: updated
                    Note(id: nil, uid: "y", body: "y3", version: 3),  // older: skipped
                    Note(id: nil, uid: "z", body: "z1", version: 1),  // new: inserted
                ]
                let written = try log.record(db) {
                    try Note.upsertAll(db, incoming, onConflict: ["uid"], where: { excluded in excluded[\.version] > \.version })
                }
                #expect(log.inserts == [backend.isPostgreSQL
                    ? #"INSERT INTO "note" ("uid", "body", "version") VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?) ON CONFLICT ("uid") DO UPDATE SET "body" = excluded."body", "version" = excluded."version" WHERE excluded."version" > "note"."version" RETURNING "uid", "id""#
                    : #"INSERT INTO "note" ("id", "uid", "body", "version") VALUES (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?) ON CONFLICT ("uid") DO UPDATE SET "body" = excluded."body", "version" = excluded."version" WHERE excluded."version" > "version" RETURNING "uid", rowid"#])
                #expect(written.map(\.uid) == ["x", "z"])
                #expect(try written.map(\.id) == written.map { try Int64.fetchOne(db, sql: "SELECT id FROM note WHERE uid = ?", arguments: [$0.uid]) })
                #expect(try Row.fetchAll(db, sql: "SELECT uid, body FROM note ORDER BY uid").map { "\(try $0[0] as String)=\(try $0[1] as String)" }
                    == ["x=x2", "y=y5", "z=z1"])
                // The assignments and the condition bind their values once, after the rows'.
                let bonus = try Note.upsertAll(
                    db, [Note(id: nil, uid: "x", body: "x3", version: 3), Note(id: nil, uid: "y", body: "y9", version: 9)],
                    onConflict: ["uid"], updating: .noColumnUnlessSpecified,
                    doUpdate: { _ in [\.body <- "merged"] }, where: { excluded in excluded[\.version] > 8 })
                #expect(bonus.map(\.uid) == ["y"])
                #expect(try String.fetchAll(db, sql: "SELECT body FROM note ORDER BY uid") == ["x2", "merged", "z1"])
            }
        }
    }

    @Test("chunks of 1,000 rows at most", arguments: Backend.all)
    func chunks(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createTables(db)
                let log = StatementLog()
                let batch = (0..<2_500).map { Page(id: nil, path: "/\($0)", count: $0) }
                let upserted = try log.record(db) { try Page.upsertAll(db, batch, onConflict: ["path"]) }
                #expect(log.inserts.count == 3)
                #expect(upserted.count == 2_500)
                let ids = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT path, id FROM page").map {
                    (try $0[0] as String, try $0[1] as Int64)
                })
                #expect(upserted.allSatisfy { $0.id == ids[$0.path] })
            }
        }
    }

    /// Without a conflict target SQLite may meet a conflict on any unique
    /// key: each record gets its own statement. PostgreSQL targets the
    /// primary key, which matches the returned rows.
    @Test("no conflict target", arguments: Backend.all)
    func noConflictTarget(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createTables(db)
                _ = try Page.insertAll(db, [Page(id: 1, path: "/a", count: 1)])
                let log = StatementLog()
                let upserted = try log.record(db) {
                    try Page.upsertAll(db, [Page(id: 1, path: "/a", count: 7), Page(id: 2, path: "/b", count: 1)])
                }
                #expect(log.inserts.count == (backend.isPostgreSQL ? 1 : 2))
                #expect(upserted.map(\.id) == [1, 2])
                #expect(try pages(db) == ["/a=7", "/b=1"])
            }
        }
    }

    @Test("a failing statement writes nothing", arguments: Backend.all)
    func failure(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try createTables(db)
                // No unique index on "count": the database refuses the conflict target.
                #expect(throws: DatabaseError.self) {
                    try Page.upsertAll(db, [Page(id: nil, path: "/a", count: 1), Page(id: nil, path: "/b", count: 1)], onConflict: ["count"])
                }
                // The last statement fails (the id 1 of "b" is the row of "a",
                // a conflict on another key than the target): the statements
                // before it are undone too, and the transaction goes on.
                #expect(throws: DatabaseError.self) {
                    try Note.upsertAll(
                        db,
                        [Note(id: nil, uid: "a", body: "1", version: 1), Note(id: nil, uid: "a", body: "2", version: 2),
                         Note(id: 1, uid: "b", body: "3", version: 3)],
                        onConflict: ["uid"])
                }
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM page") == 0)
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM note") == 0)
            }
        }
    }

    /// A key the database returns in another form than the record sent it
    /// (an integer into a TEXT column): the chunk is undone and its records
    /// are upserted one by one. SQLite's column affinity (PostgreSQL refuses
    /// an integer for a TEXT column).
    @Test("a returned key in another form: one statement per record", arguments: Backend.sqlite)
    func convertedKeys(_ backend: Backend) throws {
        struct Code: Codable, MutablePersistableRecord {
            var id: Int64?
            var code: Int
            var label: String
            mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
        }
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE code (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, label TEXT NOT NULL)")
                try db.execute(sql: "INSERT INTO code (code, label) VALUES ('1', 'one')")
                let log = StatementLog()
                let upserted = try log.record(db) {
                    try Code.upsertAll(db, [Code(id: nil, code: 1, label: "uno"), Code(id: nil, code: 2, label: "dos")], onConflict: ["code"])
                }
                #expect(log.inserts.count == 3)  // the undone chunk, then one per record
                #expect(upserted.map(\.id) == [1, 2])
                #expect(try String.fetchAll(db, sql: "SELECT label FROM code ORDER BY id") == ["uno", "dos"])
            }
        }
    }
    /// willSave and willInsert for every record before the statement,
    /// didInsert and didSave after it; aroundSave is not called, since one
    /// statement writes many records (as with insertAll).
    @Test("callbacks", .serialized, arguments: Backend.all)
    func callbacks(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createTables(db)
                LoggedPage.log.events = []
                let log = StatementLog()
                let upserted = try log.record(db) {
                    try LoggedPage.upsertAll(
                        db, [LoggedPage(id: nil, path: "/a", count: 1), LoggedPage(id: nil, path: "/b", count: 1)], onConflict: ["path"])
                }
                #expect(log.inserts.count == 1)
                #expect(LoggedPage.log.events == [
                    "willSave /a", "willInsert /a", "willSave /b", "willInsert /b",
                    "didInsert /a", "didSave /a", "didInsert /b", "didSave /b",
                ])
                #expect(upserted.map(\.id) == [1, 2])
            }
        }
    }

    @Test("no record, no statement", arguments: Backend.all)
    func empty(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createTables(db)
                let log = StatementLog()
                let upserted = try log.record(db) { try Page.upsertAll(db, [Page](), onConflict: ["path"]) }
                #expect(upserted.isEmpty)
                #expect(log.inserts.isEmpty)
            }
        }
    }

    /// A WITHOUT ROWID table returns no rowid: the records are matched by
    /// key, and their rows are written in one statement.
    /// (On PostgreSQL, where no table has a rowid, the same table without the option.)
    @Test("WITHOUT ROWID", arguments: Backend.all)
    func withoutRowID(_ backend: Backend) throws {
        struct Setting: Codable, MutablePersistableRecord {
            var key: String
            var value: String
        }
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.create(table: "setting", options: backend.isPostgreSQL ? [] : .withoutRowID) { t in
                    t.primaryKey("key", .text)
                    t.column("value", .text).notNull()
                }
                try db.execute(sql: "INSERT INTO setting VALUES ('a', 'old')")
                let log = StatementLog()
                let upserted = try log.record(db) {
                    try Setting.upsertAll(db, [Setting(key: "a", value: "new"), Setting(key: "b", value: "b")], onConflict: ["key"])
                }
                #expect(log.inserts == [#"INSERT INTO "setting" ("key", "value") VALUES (?, ?), (?, ?) ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value" RETURNING "key""#])
                #expect(upserted.map(\.key) == ["a", "b"])
                #expect(try String.fetchAll(db, sql: "SELECT value FROM setting ORDER BY key") == ["new", "b"])
            }
        }
    }

    /// A table with triggers: one statement per record, as insertAll does.
    @Test("a table with triggers", arguments: Backend.all)
    func triggers(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createTables(db)
                try db.execute(sql: "CREATE TABLE audit (path TEXT)")
                if backend.isPostgreSQL {
                    try db.execute(sql: """
                        CREATE FUNCTION page_audit() RETURNS trigger LANGUAGE plpgsql AS $$
                        BEGIN
                            INSERT INTO audit VALUES (NEW.path);
                            RETURN NULL;
                        END
                        $$;
                        CREATE TRIGGER page_audit AFTER INSERT ON page FOR EACH ROW EXECUTE FUNCTION page_audit();
                        """)
                } else {
                    try db.execute(sql: "CREATE TRIGGER page_audit AFTER INSERT ON page BEGIN INSERT INTO audit VALUES (NEW.path); END")
                }
                let log = StatementLog()
                let upserted = try log.record(db) {
                    try Page.upsertAll(db, [Page(id: nil, path: "/a", count: 1), Page(id: nil, path: "/b", count: 2)], onConflict: ["path"])
                }
                let pageInserts = log.inserts.filter { $0.hasPrefix("INSERT INTO \"page\"") }
                if backend.isPostgreSQL {
                    #expect(pageInserts.count == 2)
                } else {
                    // (SQLite traces a statement again for each trigger program it runs.)
                    #expect(pageInserts.count >= 2)
                }
                #expect(pageInserts.allSatisfy { !$0.contains("), (") })
                #expect(upserted.map(\.id) == [1, 2])
                #expect(try String.fetchAll(db, sql: "SELECT path FROM audit ORDER BY path") == ["/a", "/b"])
            }
        }
    }
}
