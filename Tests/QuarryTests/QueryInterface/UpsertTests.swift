// Tests of upserts with control: conflict targets, key-path assignments that
// read `excluded`, the update strategy, a WHERE on the update, DO NOTHING, and
// batches. Each pins the SQL and checks the rows against hand-written SQL.

import Foundation
@testable import Quarry
import Testing

private struct PageView: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
    var id: Int64?
    var path: String
    var count: Int
    var title: String?
    static let databaseTableName = "pageView"
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

private struct SyncedNote: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: String
    var body: String
    var version: Int
}

/// Creates the tables of the tests on `writer` (DDL that reads the same on
/// SQLite and PostgreSQL: the schema DSL), and returns it.
private func prepareWriter(_ writer: any DatabaseWriter) throws -> any DatabaseWriter {
    try writer.write { db throws in
        try db.create(table: "pageView") { t in
            t.primaryKey("id", .integer)
            t.column("path", .text).notNull().unique()
            t.column("count", .integer).notNull()
            t.column("title", .text)
        }
        // WITHOUT ROWID on SQLite, so that an upsert returns no rowid (PostgreSQL has none).
        try db.create(table: "syncedNote", options: db.isPostgreSQL ? [] : [.withoutRowID]) { t in
            t.primaryKey("id", .text)
            t.column("body", .text).notNull()
            t.column("version", .integer).notNull()
        }
    }
    return writer
}

@Suite("Upserts with control")
struct UpsertTests {
    @Test("a counter adds up through excluded; the id is written back", arguments: Backend.all)
    func counter(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let writer = try prepareWriter(writer)
            try writer.write { db throws in
                var first = PageView(id: nil, path: "/home", count: 1, title: "Home")
                let recorder = SQLRecorder()
                try recorder.record(db) {
                    try first.upsert(db, onConflict: ["path"]) { excluded in [\.count += excluded[\.count]] }
                }
                // On PostgreSQL the NULL id is left out (an identity column
                // fills it), the existing row's column is qualified, and the
                // id comes back by name.
                #expect(recorder.writes == [backend.isPostgreSQL
                    ? #"INSERT INTO "pageView" ("path", "count", "title") VALUES (?, ?, ?) ON CONFLICT ("path") DO UPDATE SET "count" = "pageView"."count" + excluded."count", "title" = excluded."title" RETURNING "id""#
                    : #"INSERT INTO "pageView" ("id", "path", "count", "title") VALUES (?, ?, ?, ?) ON CONFLICT ("path") DO UPDATE SET "count" = "count" + excluded."count", "title" = excluded."title" RETURNING rowid"#])
                #expect(first.id == 1)
                var again = PageView(id: nil, path: "/home", count: 5, title: "Welcome")
                try again.upsert(db, onConflict: ["path"]) { excluded in [\.count += excluded[\.count]] }
                #expect(again.id == 1)  // the existing row's id
                var other = PageView(id: nil, path: "/about", count: 2, title: nil)
                let stored = try other.upsertAndFetch(db, onConflict: ["path"]) { excluded in [\.count += excluded[\.count]] }
                // PostgreSQL's identity consumed a value for each conflicting insert.
                let aboutID: Int64 = backend.isPostgreSQL ? 3 : 2
                #expect(stored == PageView(id: aboutID, path: "/about", count: 2, title: nil))
                var third = PageView(id: nil, path: "/home", count: 10, title: "Home")
                let total = try third.upsertAndFetch(db, onConflict: ["path"]) { excluded in [\.count += excluded[\.count]] }
                #expect(total == PageView(id: 1, path: "/home", count: 16, title: "Home"))
                let rows = try Row.fetchAll(db, sql: #"SELECT id, path, count, title FROM "pageView" ORDER BY id"#)
                    .map { "\(try $0[0] as Int)|\(try $0[1] as String)|\(try $0[2] as Int)|\(try $0[3] as String? ?? "nil")" }
                #expect(rows == ["1|/home|16|Home", "\(aboutID)|/about|2|nil"])
            }
        }
    }

    @Test(".noColumnUnlessSpecified changes only the assigned columns; Column assignments work too", arguments: Backend.all)
    func strategy(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let writer = try prepareWriter(writer)
            try writer.write { db throws in
                var page = PageView(id: nil, path: "/a", count: 1, title: "First")
                try page.insert(db)
                var update = PageView(id: nil, path: "/a", count: 7, title: "Second")
                let recorder = SQLRecorder()
                try recorder.record(db) {
                    try update.upsert(db, onConflict: ["path"], updating: .noColumnUnlessSpecified) { excluded in
                        [Column("count").set(to: excluded[Column("count")])]
                    }
                }
                #expect(recorder.writes == [backend.isPostgreSQL
                    ? #"INSERT INTO "pageView" ("path", "count", "title") VALUES (?, ?, ?) ON CONFLICT ("path") DO UPDATE SET "count" = excluded."count" RETURNING "id""#
                    : #"INSERT INTO "pageView" ("id", "path", "count", "title") VALUES (?, ?, ?, ?) ON CONFLICT ("path") DO UPDATE SET "count" = excluded."count" RETURNING rowid"#])
                #expect(try PageView.fetchOne(db, key: 1) == PageView(id: 1, path: "/a", count: 7, title: "First"))
                // No assignment at all: the row is returned unchanged.
                var none = PageView(id: nil, path: "/a", count: 99, title: "Third")
                let unchanged = try none.upsertAndFetch(db, onConflict: ["path"], updating: .noColumnUnlessSpecified)
                #expect(unchanged == PageView(id: 1, path: "/a", count: 7, title: "First"))
                // A value assignment and `<-`.
                var renamed = PageView(id: nil, path: "/a", count: 0, title: nil)
                try renamed.upsert(db, onConflict: ["path"], updating: .noColumnUnlessSpecified) { _ in [\.title <- "Renamed", \.count -= 1] }
                #expect(try PageView.fetchOne(db, key: 1) == PageView(id: 1, path: "/a", count: 6, title: "Renamed"))
            }
        }
    }

    @Test("a WHERE on the update keeps the newest version; false leaves the row and the record alone", arguments: Backend.all)
    func condition(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let writer = try prepareWriter(writer)
            try writer.write { db throws in
                let recorder = SQLRecorder()
                let v2 = SyncedNote(id: "n1", body: "two", version: 2)
                var written = try recorder.record(db) {
                    var copy = v2
                    return try copy.upsert(db, onConflict: ["id"], where: { excluded in excluded[\.version] > \.version })
                }
                #expect(written)
                #expect(recorder.writes == [backend.isPostgreSQL
                    ? #"INSERT INTO "syncedNote" ("id", "body", "version") VALUES (?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "body" = excluded."body", "version" = excluded."version" WHERE excluded."version" > "syncedNote"."version""#
                    : #"INSERT INTO "syncedNote" ("id", "body", "version") VALUES (?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "body" = excluded."body", "version" = excluded."version" WHERE excluded."version" > "version""#])
                var stale = SyncedNote(id: "n1", body: "one", version: 1)
                written = try stale.upsert(db, onConflict: ["id"], where: { excluded in excluded[\.version] > \.version })
                #expect(!written)
                var newer = SyncedNote(id: "n1", body: "three", version: 3)
                written = try newer.upsert(db, onConflict: ["id"], where: { excluded in excluded[\.version] > \.version })
                #expect(written)
                #expect(try Row.fetchAll(db, sql: #"SELECT body, version FROM "syncedNote""#).map { "\(try $0[0] as String)\(try $0[1] as Int)" } == ["three3"])

                var page = PageView(id: nil, path: "/p", count: 1, title: nil)
                try page.insert(db)
                var lower = PageView(id: nil, path: "/p", count: 0, title: "x")
                #expect(try lower.upsertAndFetch(db, onConflict: ["path"], where: { excluded in excluded[\.count] > \.count }) == nil)
                #expect(lower.id == nil)
                var higher = PageView(id: nil, path: "/p", count: 5, title: "y")
                #expect(try higher.upsertAndFetch(db, onConflict: ["path"], where: { excluded in excluded[\.count] > \.count })
                    == PageView(id: 1, path: "/p", count: 5, title: "y"))
            }
        }
    }

    @Test("insert(onConflictDoNothing:) skips a conflict on its target only", arguments: Backend.all)
    func doNothing(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let writer = try prepareWriter(writer)
            try writer.write { db throws in
                var page = PageView(id: nil, path: "/x", count: 1, title: nil)
                let recorder = SQLRecorder()
                let inserted = try recorder.record(db) { try page.insert(db, onConflictDoNothing: ["path"]) }
                #expect(inserted)
                #expect(page.id == 1)
                #expect(recorder.writes == [backend.isPostgreSQL
                    ? #"INSERT INTO "pageView" ("path", "count", "title") VALUES (?, ?, ?) ON CONFLICT ("path") DO NOTHING RETURNING "id""#
                    : #"INSERT INTO "pageView" ("id", "path", "count", "title") VALUES (?, ?, ?, ?) ON CONFLICT ("path") DO NOTHING"#])
                var duplicate = PageView(id: nil, path: "/x", count: 9, title: nil)
                #expect(try !duplicate.insert(db, onConflictDoNothing: ["path"]))
                #expect(duplicate.id == nil)
                // A conflict on another constraint (the primary key) still throws.
                var sameID = PageView(id: 1, path: "/y", count: 1, title: nil)
                // (In a savepoint: after an error, PostgreSQL runs nothing else
                // in the transaction until it rolls back.)
                #expect(throws: DatabaseError.self) {
                    try db.inSavepoint { try sameID.insert(db, onConflictDoNothing: ["path"]); return .commit }
                }
                // A constant PersistableRecord.
                let note = SyncedNote(id: "a", body: "b", version: 1)
                #expect(try note.insert(db, onConflictDoNothing: ["id"]))
                #expect(try !note.insert(db, onConflictDoNothing: ["id"]))
                #expect(try Int.fetchOne(db, sql: #"SELECT count(*) FROM "pageView""#) == 1)
            }
        }
    }

    @Test("upsertAll upserts a batch, returning the records with their ids", arguments: Backend.all)
    func batch(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let writer = try prepareWriter(writer)
            try writer.write { db throws in
                let pages = [
                    PageView(id: nil, path: "/a", count: 1, title: nil), PageView(id: nil, path: "/b", count: 1, title: nil),
                    PageView(id: nil, path: "/a", count: 3, title: nil),
                ]
                let upserted = try PageView.upsertAll(db, pages, onConflict: ["path"]) { excluded in [\.count += excluded[\.count]] }
                #expect(upserted.map(\.id) == [1, 2, 1])
                #expect(try Row.fetchAll(db, sql: #"SELECT path, count FROM "pageView" ORDER BY id"#).map { "\(try $0[0] as String)=\(try $0[1] as Int)" }
                    == ["/a=4", "/b=1"])
            }
        }
    }

    @Test("a failing upsert throws: unknown conflict target, missing column", arguments: Backend.all)
    func failures(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let writer = try prepareWriter(writer)
            try writer.write { db throws in
                var page = PageView(id: nil, path: "/a", count: 1, title: nil)
                // No unique index on "title": the database refuses the conflict target.
                // (In a savepoint: after an error, PostgreSQL runs nothing else
                // in the transaction until it rolls back.)
                #expect(throws: DatabaseError.self) {
                    try db.inSavepoint { try page.upsert(db, onConflict: ["title"]); return .commit }
                }
                // A constant PersistableRecord upsert.
                try SyncedNote(id: "z", body: "1", version: 1).upsert(db, onConflict: ["id"]) { excluded in [\.version += excluded[\.version]] }
                try SyncedNote(id: "z", body: "2", version: 5).upsert(db, onConflict: ["id"]) { excluded in [\.version += excluded[\.version]] }
                #expect(try Int.fetchOne(db, sql: #"SELECT version FROM "syncedNote" WHERE id = 'z'"#) == 6)
            }
        }
    }
}
