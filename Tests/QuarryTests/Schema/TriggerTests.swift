// Tests of triggers in the schema DSL: create(trigger:) with its timings,
// events, WHEN conditions and bodies (batch updates and deletes, inserts,
// SQL literals), NEW and OLD columns, drop(trigger:), and the typical uses —
// an updated_at column, an audit table, a counter — each pinned to its SQL and
// checked against the same trigger written by hand.

import Foundation
import Quarry
import Testing

private struct TAuthor: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "author"
    var id: Int64
    var name: String
    var bookCount: Int
    enum CodingKeys: String, CodingKey { case id, name, bookCount = "book_count" }
}

private struct TBook: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "book"
    var id: Int64
    var authorID: Int64
    var title: String
    var updatedAt: String
    enum CodingKeys: String, CodingKey { case id, authorID = "author_id", title, updatedAt = "updated_at" }
}

private struct TAudit: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "audit"
    var id: Int64?
    var action: String
    var bookID: Int64
    var title: String
    enum CodingKeys: String, CodingKey { case id, action, bookID = "book_id", title }
}

@Suite struct TriggerTests {
    static let epoch = "2000-01-01 00:00:00"

    /// Opens a database with the author, book and audit tables, installs the
    /// triggers with `install`, and runs `body`.
    func withBooks(_ kind: WriterKind, install: (Database) throws -> Void, _ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL, book_count INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE book (
                    id INTEGER PRIMARY KEY,
                    author_id INTEGER NOT NULL REFERENCES author(id),
                    title TEXT NOT NULL,
                    updated_at TEXT NOT NULL);
                CREATE TABLE audit (id INTEGER PRIMARY KEY, action TEXT NOT NULL, book_id INTEGER NOT NULL, title TEXT NOT NULL);
                """)
            try TAuthor(id: 1, name: "Le Guin", bookCount: 0).insert(db)
            try TAuthor(id: 2, name: "Herbert", bookCount: 0).insert(db)
            try install(db)
            try body(db)
        }
    }

    /// The same work on books, for comparing a DSL trigger with its hand-written twin.
    static func workload(_ db: Database) throws {
        try db.execute(sql: "PRAGMA recursive_triggers = ON")
        try TBook(id: 1, authorID: 1, title: "Earthsea", updatedAt: epoch).insert(db)
        try TBook(id: 2, authorID: 1, title: "The Dispossessed", updatedAt: epoch).insert(db)
        try TBook(id: 3, authorID: 2, title: "Dune", updatedAt: epoch).insert(db)
        try TBook.filter(\.id == 1).updateAll(db, \.title <- "A Wizard of Earthsea")
        try TBook.filter(\.id == 3).updateAll(db, \.updatedAt <- "1999-12-31 00:00:00")
        _ = try TBook.filter(\.id == 2).deleteAll(db)
        try db.execute(sql: "PRAGMA recursive_triggers = OFF")
    }

    /// What the workload leaves in the database, `updated_at` reduced to
    /// whether it moved from the epoch (it holds the current time).
    static func snapshot(_ db: Database) throws -> [[DatabaseValue]] {
        let queries = [
            "SELECT id, title, updated_at = '\(epoch)', updated_at = '1999-12-31 00:00:00' FROM book ORDER BY id",
            "SELECT id, name, book_count FROM author ORDER BY id",
            "SELECT id, action, book_id, title FROM audit ORDER BY id",
        ]
        var result: [[DatabaseValue]] = []
        for sql in queries {
            for row in try Row.fetchAll(db, sql: sql) {
                result.append(try (0..<row.count).map { try row[$0] as DatabaseValue })
            }
        }
        return result
    }

    /// Runs the workload with DSL triggers and with hand-written ones: both
    /// leave the same rows. Returns the DSL triggers' stored SQL.
    func compare(
        _ kind: WriterKind, names: [String], dsl: (Database) throws -> Void, byHand: String
    ) throws -> (sql: [String], snapshot: [[DatabaseValue]]) {
        var sql: [String] = []
        var viaDSL: [[DatabaseValue]] = []
        var viaSQL: [[DatabaseValue]] = []
        try withBooks(kind, install: dsl) { db throws in
            sql = try names.map { try #require(try ViewTests.storedSQL(db, $0)) }
            try Self.workload(db)
            viaDSL = try Self.snapshot(db)
        }
        try withBooks(kind, install: { db throws in try db.execute(sql: byHand) }) { db throws in
            try Self.workload(db)
            viaSQL = try Self.snapshot(db)
        }
        #expect(viaDSL == viaSQL)
        return (sql, viaDSL)
    }

    // MARK: - Typical uses

    @Test(arguments: WriterKind.allCases)
    func maintainUpdatedAt(_ kind: WriterKind) throws {
        let (sql, snapshot) = try compare(
            kind, names: ["book_touch"],
            dsl: { db throws in
                try db.create(
                    trigger: "book_touch", on: "book", timing: .after, event: .update,
                    when: TriggerRow.new[\TBook.updatedAt] == TriggerRow.old[\TBook.updatedAt]
                ) { t in
                    t.update(
                        TBook.filter(\.id == TriggerRow.new[\TBook.id]),
                        \.updatedAt <- QueryExpression(sql: "strftime('%Y-%m-%d %H:%M:%f', 'now')"))
                }
            },
            byHand: """
                CREATE TRIGGER book_touch AFTER UPDATE ON book
                WHEN NEW.updated_at = OLD.updated_at
                BEGIN UPDATE book SET updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE id = NEW.id; END
                """)
        #expect(sql == [
            #"CREATE TRIGGER "book_touch" AFTER UPDATE ON "book" FOR EACH ROW WHEN NEW."updated_at" = OLD."updated_at" "#
                + #"BEGIN UPDATE "book" SET "updated_at" = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE "id" = NEW."id"; END"#
        ])
        // Earthsea was touched; Dune keeps the date its update set.
        #expect(snapshot[0] == [1, "A Wizard of Earthsea", false, false])
        #expect(snapshot[1] == [3, "Dune", false, true])
    }

    @Test(arguments: WriterKind.allCases)
    func writeAnAuditRow(_ kind: WriterKind) throws {
        let (sql, snapshot) = try compare(
            kind, names: ["book_audit_insert", "book_audit_update", "book_audit_delete"],
            dsl: { db throws in
                try db.create(trigger: "book_audit_insert", on: "book", timing: .after, event: .insert) { t in
                    t.insert(
                        into: TAudit.self, \.action <- "insert", \.bookID <- TriggerRow.new[\TBook.id],
                        \.title <- TriggerRow.new[\TBook.title])
                }
                try db.create(
                    trigger: "book_audit_update", on: "book", timing: .after, event: .update(of: ["title"])
                ) { t in
                    t.insert(
                        into: "audit", columns: ["action", "book_id", "title"],
                        select: TBook.all().select(named: [
                            QueryExpression<TBook, String>(sql: "?", arguments: ["rename"]).forKey("action"),
                            TriggerRow.new[\TBook.id].forKey("book_id"),
                            TriggerRow.new[\TBook.title].forKey("title"),
                        ]).filter(\.id == TriggerRow.new[\TBook.id]))
                }
                try db.create(trigger: "book_audit_delete", on: "book", timing: .before, event: .delete) { t in
                    t.execute(literal: """
                        INSERT INTO \(TAudit.self) (action, book_id, title) \
                        VALUES (\("delete"), \(TriggerRow.old[\TBook.id]), \(TriggerRow.old[\TBook.title]))
                        """)
                }
            },
            byHand: """
                CREATE TRIGGER book_audit_insert AFTER INSERT ON book
                BEGIN INSERT INTO audit (action, book_id, title) VALUES ('insert', NEW.id, NEW.title); END;
                CREATE TRIGGER book_audit_update AFTER UPDATE OF title ON book
                BEGIN
                    INSERT INTO audit (action, book_id, title)
                    SELECT 'rename', NEW.id, NEW.title FROM book WHERE id = NEW.id;
                END;
                CREATE TRIGGER book_audit_delete BEFORE DELETE ON book
                BEGIN INSERT INTO audit (action, book_id, title) VALUES ('delete', OLD.id, OLD.title); END;
                """)
        let insertSQL: String = #"CREATE TRIGGER "book_audit_insert" AFTER INSERT ON "book" FOR EACH ROW "#
            + #"BEGIN INSERT INTO "audit" ("action", "book_id", "title") VALUES ('insert', NEW."id", NEW."title"); END"#
        let updateSQL: String = #"CREATE TRIGGER "book_audit_update" AFTER UPDATE OF "title" ON "book" FOR EACH ROW "#
            + #"BEGIN INSERT INTO "audit" ("action", "book_id", "title") "#
            + #"SELECT 'rename' AS "action", NEW."id" AS "book_id", NEW."title" AS "title" "#
            + #"FROM "book" WHERE "id" = NEW."id"; END"#
        let deleteSQL: String = #"CREATE TRIGGER "book_audit_delete" BEFORE DELETE ON "book" FOR EACH ROW "#
            + #"BEGIN INSERT INTO "audit" (action, book_id, title) VALUES ('delete', OLD."id", OLD."title"); END"#
        #expect(sql == [insertSQL, updateSQL, deleteSQL])
        let audit: [[DatabaseValue]] = [
            [1, "insert", 1, "Earthsea"],
            [2, "insert", 2, "The Dispossessed"],
            [3, "insert", 3, "Dune"],
            [4, "rename", 1, "A Wizard of Earthsea"],
            [5, "delete", 2, "The Dispossessed"],
        ]
        #expect(Array(snapshot.suffix(5)) == audit)
    }

    @Test(arguments: WriterKind.allCases)
    func keepACounter(_ kind: WriterKind) throws {
        let (sql, snapshot) = try compare(
            kind, names: ["book_count_insert", "book_count_delete"],
            dsl: { db throws in
                try db.create(trigger: "book_count_insert", on: "book", timing: .after, event: .insert) { t in
                    t.update(TAuthor.filter(\.id == TriggerRow.new[\TBook.authorID]), \.bookCount += 1)
                }
                try db.create(trigger: "book_count_delete", on: "book", timing: .after, event: .delete) { t in
                    t.update(TAuthor.filter(\.id == TriggerRow.old[\TBook.authorID]), \.bookCount -= 1)
                }
            },
            byHand: """
                CREATE TRIGGER book_count_insert AFTER INSERT ON book
                BEGIN UPDATE author SET book_count = book_count + 1 WHERE id = NEW.author_id; END;
                CREATE TRIGGER book_count_delete AFTER DELETE ON book
                BEGIN UPDATE author SET book_count = book_count - 1 WHERE id = OLD.author_id; END;
                """)
        #expect(sql == [
            #"CREATE TRIGGER "book_count_insert" AFTER INSERT ON "book" FOR EACH ROW "#
                + #"BEGIN UPDATE "author" SET "book_count" = "book_count" + 1 WHERE "id" = NEW."author_id"; END"#,
            #"CREATE TRIGGER "book_count_delete" AFTER DELETE ON "book" FOR EACH ROW "#
                + #"BEGIN UPDATE "author" SET "book_count" = "book_count" - 1 WHERE "id" = OLD."author_id"; END"#,
        ])
        #expect(snapshot.contains([1, "Le Guin", 1]))
        #expect(snapshot.contains([2, "Herbert", 1]))
    }

    // MARK: - Options, timings, bodies

    @Test(arguments: WriterKind.allCases)
    func optionsSeveralStatementsAndDeletes(_ kind: WriterKind) throws {
        try withBooks(kind, install: { _ in }) { db throws in
            try db.create(
                trigger: "author_cleanup", options: [.ifNotExists, .temporary], on: "author", timing: .before,
                event: .delete, when: TriggerRow.old[\TAuthor.bookCount] > 0
            ) { t in
                t.delete(TAudit.filter(sql: "book_id IN (SELECT id FROM book WHERE author_id = OLD.id)"))
                t.delete(TBook.filter(\.authorID == TriggerRow.old[\TAuthor.id]))
            }
            // SQLite stores the statement without TEMPORARY and IF NOT EXISTS.
            #expect(try ViewTests.storedSQL(db, "author_cleanup")
                == #"CREATE TRIGGER "author_cleanup" BEFORE DELETE ON "author" FOR EACH ROW WHEN OLD."book_count" > 0 "#
                + #"BEGIN DELETE FROM "audit" WHERE book_id IN (SELECT id FROM book WHERE author_id = OLD.id); "#
                + #"DELETE FROM "book" WHERE "author_id" = OLD."id"; END"#)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_temp_master WHERE type = 'trigger'") == ["author_cleanup"])
            // IF NOT EXISTS: a second creation does nothing.
            try db.create(
                trigger: "author_cleanup", options: [.ifNotExists, .temporary], on: "author", timing: .after, event: .insert
            ) { t in t.execute(literal: "SELECT 1") }
            try TAuthor(id: 3, name: "Banks", bookCount: 1).insert(db)
            try TBook(id: 1, authorID: 3, title: "Excession", updatedAt: Self.epoch).insert(db)
            try TBook(id: 2, authorID: 1, title: "Earthsea", updatedAt: Self.epoch).insert(db)
            try TAudit(id: nil, action: "x", bookID: 1, title: "Excession").insert(db)
            _ = try TAuthor.filter(\.id == 3).deleteAll(db)
            #expect(try TBook.fetchAll(db).map(\.title) == ["Earthsea"])
            #expect(try TAudit.fetchCount(db) == 0)
            try db.drop(trigger: "author_cleanup")
            #expect(try !db.triggerExists("author_cleanup"))
        }
    }

    /// Values in a trigger are written as literals: a hostile string is
    /// stored and compared verbatim.
    @Test(arguments: WriterKind.allCases)
    func hostileValuesInTriggers(_ kind: WriterKind) throws {
        try withBooks(kind, install: { _ in }) { db throws in
            let hostile = "'); DROP TABLE book; --\u{0}\"?\" :x"
            try db.create(
                trigger: "flag", on: "book", timing: .after, event: .insert,
                when: TriggerRow.new[\TBook.title] == hostile
            ) { t in
                t.insert(into: TAudit.self, \.action <- hostile, \.bookID <- TriggerRow.new[\TBook.id], \.title <- "-1")
                t.update(TAuthor.filter(\.name == hostile), \.bookCount <- -5)
                t.execute(literal: "UPDATE author SET book_count = -\(-7) WHERE name = \(hostile) AND \(true)")
            }
            try TAuthor(id: 3, name: hostile, bookCount: 0).insert(db)
            try TBook(id: 1, authorID: 1, title: "Plain", updatedAt: Self.epoch).insert(db)
            #expect(try TAudit.fetchCount(db) == 0)
            try TBook(id: 2, authorID: 1, title: hostile, updatedAt: Self.epoch).insert(db)
            #expect(try TAudit.fetchAll(db) == [TAudit(id: 1, action: hostile, bookID: 2, title: "-1")])
            #expect(try TAuthor.filter(\.id == 3).fetchOne(db)?.bookCount == 7)
            #expect(try db.tableExists("book"))
        }
    }

    @Test(arguments: WriterKind.allCases)
    func insteadOfTriggerOnAView(_ kind: WriterKind) throws {
        try withBooks(kind, install: { _ in }) { db throws in
            try db.create(view: "titles", asLiteral: "SELECT id, title FROM book")
            try db.create(trigger: "titles_update", on: "titles", timing: .insteadOf, event: .update(of: ["title", "id"])) { t in
                t.update(
                    TBook.filter(\.id == TriggerRow.old["id", as: Int64.self]),
                    \.title <- TriggerRow.new["title", as: String.self])
            }
            #expect(try ViewTests.storedSQL(db, "titles_update")
                == #"CREATE TRIGGER "titles_update" INSTEAD OF UPDATE OF "title", "id" ON "titles" FOR EACH ROW "#
                + #"BEGIN UPDATE "book" SET "title" = NEW."title" WHERE "id" = OLD."id"; END"#)
            try TBook(id: 1, authorID: 1, title: "Earthsea", updatedAt: Self.epoch).insert(db)
            try db.execute(sql: "UPDATE titles SET title = 'Tehanu' WHERE id = 1")
            #expect(try TBook.fetchAll(db).map(\.title) == ["Tehanu"])
        }
    }

    // MARK: - Failures

    @Test(arguments: WriterKind.allCases)
    func failures(_ kind: WriterKind) throws {
        try withBooks(kind, install: { _ in }) { db throws in
            let body: (TriggerDefinition) -> Void = { t in t.delete(TAudit.all()) }
            try db.create(trigger: "t1", on: "book", timing: .after, event: .delete, body: body)
            // An existing trigger, without ifNotExists.
            #expect(throws: DatabaseError.self) {
                try db.create(trigger: "t1", on: "book", timing: .after, event: .delete, body: body)
            }
            // A missing table.
            #expect(throws: DatabaseError.self) {
                try db.create(trigger: "t2", on: "nowhere", timing: .after, event: .delete, body: body)
            }
            // BEFORE and AFTER triggers are not allowed on views, INSTEAD OF only on views.
            try db.create(view: "titles", asLiteral: "SELECT id, title FROM book")
            #expect(throws: DatabaseError.self) {
                try db.create(trigger: "t3", on: "titles", timing: .after, event: .delete, body: body)
            }
            #expect(throws: DatabaseError.self) {
                try db.create(trigger: "t4", on: "book", timing: .insteadOf, event: .delete, body: body)
            }
            // An empty body, and UPDATE OF no column.
            #expect(throws: DatabaseError.self) {
                try db.create(trigger: "t5", on: "book", timing: .after, event: .delete) { _ in }
            }
            #expect(throws: DatabaseError.self) {
                try db.create(trigger: "t6", on: "book", timing: .after, event: .update(of: []), body: body)
            }
            // An insert of no column.
            #expect(throws: DatabaseError.self) {
                try db.create(trigger: "t9", on: "book", timing: .after, event: .insert) { t in t.insert(into: TAudit.self) }
            }
            // A fragment whose arguments do not match its parameters.
            #expect(throws: DatabaseError.self) {
                try db.create(trigger: "t7", on: "book", timing: .after, event: .insert) { t in
                    t.execute(literal: "SELECT \(sql: "?, ?", arguments: [1])")
                }
            }
            // An error thrown by the body is rethrown, and nothing is created.
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try db.create(trigger: "t8", on: "book", timing: .after, event: .insert) { _ in throw Stop() }
            }
            #expect(try !db.triggerExists("t8"))
            // Dropping a missing trigger.
            try db.drop(trigger: "t1")
            #expect(throws: DatabaseError.self) { try db.drop(trigger: "t1") }
        }
    }
}
