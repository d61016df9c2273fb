// Tests of db.create(table:): every column and table option, checked against
// sqlite_master and the introspection methods.

import Foundation
import Quarry
import Testing

/// The SQL of a schema object, as stored in sqlite_master.
func schemaSQL(_ db: Database, _ name: String) throws -> String? {
    try String.fetchOne(
        db, sql: "SELECT sql FROM sqlite_master WHERE name = ? UNION ALL SELECT sql FROM sqlite_temp_master WHERE name = ?",
        arguments: [name, name])
}

@Suite struct CreateTableTests {
    @Test func issueExampleWithExactSQL() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "team") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("score", .integer).notNull().defaults(to: 0)
                t.belongsTo("team", onDelete: .setNull)
            }
            #expect(try schemaSQL(db, "team") == #"CREATE TABLE "team" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL)"#)
            #expect(try schemaSQL(db, "player") == #"CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, "score" INTEGER NOT NULL DEFAULT 0, "team_id" INTEGER REFERENCES "team"("id") ON DELETE SET NULL)"#)
            #expect(try schemaSQL(db, "index_player_on_team_id") == #"CREATE INDEX "index_player_on_team_id" ON "player"("team_id")"#)
            let keys = try db.foreignKeys(on: "player")
            #expect(keys.count == 1)
            #expect(keys.first?.destinationTable == "team")
            #expect(keys.first?.originColumns == ["team_id"])
            #expect(keys.first?.destinationColumns == ["id"])
            #expect(keys.first?.onDelete == .setNull)
            #expect(keys.first?.onUpdate == .noAction)
            // ON DELETE SET NULL works.
            try db.execute(sql: "INSERT INTO team (name) VALUES ('Reds')")
            try db.execute(sql: "INSERT INTO player (name, team_id) VALUES ('Arthur', 1)")
            try db.execute(sql: "DELETE FROM team")
            #expect(try Optional<Int>.fetchAll(db, sql: "SELECT team_id FROM player") == [nil])
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player") == 0)
        }
    }

    @Test func quotesKeywordsQuotesAndSpaces() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "order") { t in
                t.primaryKey("group", .integer)
                t.column("we\"ird col", .text).notNull().defaults(to: "x").indexed()
                t.column("select", .integer).unique()
            }
            try db.create(table: "line item") { t in
                t.belongsTo("order", onDelete: .cascade)
                t.column("from", .text)
            }
            #expect(try schemaSQL(db, "order") == #"CREATE TABLE "order" ("group" INTEGER PRIMARY KEY, "we""ird col" TEXT NOT NULL DEFAULT 'x', "select" INTEGER UNIQUE)"#)
            #expect(try schemaSQL(db, "line item") == #"CREATE TABLE "line item" ("order_id" INTEGER REFERENCES "order"("group") ON DELETE CASCADE, "from" TEXT)"#)
            #expect(try db.columns(in: "order").map(\.name) == ["group", "we\"ird col", "select"])
            #expect(try db.indexes(on: "order").map(\.name).contains("index_order_on_we\"ird col"))
            #expect(try db.indexes(on: "line item").map(\.name) == ["index_line item_on_order_id"])
            try db.alter(table: "order") { t in
                t.add(column: "a \"b\"", .integer)
                t.rename(column: "select", to: "where")
            }
            #expect(try db.columns(in: "order").map(\.name) == ["group", "we\"ird col", "where", "a \"b\""])
            try db.create(index: "by \"where\"", on: "order", columns: ["where", "we\"ird col"])
            #expect(try db.indexes(on: "order").first { $0.name == "by \"where\"" }?.columns == ["where", "we\"ird col"])
            try db.rename(table: "line item", to: "group")
            #expect(try db.tableExists("group"))
            try db.drop(table: "group")
            try db.drop(index: "by \"where\"")
            try db.drop(table: "order")
            #expect(try !db.tableExists("order"))
        }
    }

    @Test func columnConstraints() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "item") { t in
                t.column("id", .integer).primaryKey()
                t.column("code", .text).notNull().unique().collate(.nocase)
                t.column("price", .real).check(sql: "price >= 0")
                t.column("createdAt", .datetime).notNull().defaults(sql: "CURRENT_TIMESTAMP")
                t.column("doubled", .real).generatedAs(sql: "price * 2")
                t.column("tripled", .real).generatedAs(sql: "price * 3", .stored)
                t.column("anything")
            }
            #expect(try schemaSQL(db, "item") == #"CREATE TABLE "item" ("id" INTEGER PRIMARY KEY, "code" TEXT NOT NULL UNIQUE COLLATE "NOCASE", "price" REAL CHECK (price >= 0), "createdAt" DATETIME NOT NULL DEFAULT (CURRENT_TIMESTAMP), "doubled" REAL GENERATED ALWAYS AS (price * 2) VIRTUAL, "tripled" REAL GENERATED ALWAYS AS (price * 3) STORED, "anything")"#)
            let columns = try db.columns(in: "item")
            #expect(columns.map(\.name) == ["id", "code", "price", "createdAt", "doubled", "tripled", "anything"])
            #expect(columns.map(\.type) == ["INTEGER", "TEXT", "REAL", "DATETIME", "REAL", "REAL", ""])
            #expect(columns.map(\.isNotNull) == [false, true, false, true, false, false, false])
            #expect(columns.map(\.primaryKeyIndex) == [1, 0, 0, 0, 0, 0, 0])
            #expect(columns.map(\.isGenerated) == [false, false, false, false, true, true, false])
            #expect(columns[3].defaultValueSQL == "CURRENT_TIMESTAMP")
            #expect(try db.indexes(on: "item").map(\.origin) == [.uniqueConstraint])

            try db.execute(sql: "INSERT INTO item (code, price) VALUES ('abc', 2)")
            // UNIQUE with NOCASE collation.
            let unique = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO item (code, price) VALUES ('ABC', 1)")
            }
            #expect(unique?.isUniqueConstraintViolation == true)
            let check = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO item (code, price) VALUES ('x', -1)")
            }
            #expect(check?.isCheckConstraintViolation == true)
            let notNull = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO item (code) VALUES (NULL)")
            }
            #expect(notNull?.isNotNullConstraintViolation == true)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT doubled, tripled, createdAt FROM item"))
            #expect(try row["doubled"] as Double == 4)
            #expect(try row["tripled"] as Double == 6)
            #expect(try (row["createdAt"] as String).count == 19)
        }
    }

    @Test func tableOptions() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "setting", options: [.strict, .withoutRowID]) { t in
                t.primaryKey("key", .text)
                t.column("value", .any)
                t.column("version", .integer).notNull()
            }
            #expect(try schemaSQL(db, "setting") == #"CREATE TABLE "setting" ("key" TEXT PRIMARY KEY, "value" ANY, "version" INTEGER NOT NULL) WITHOUT ROWID, STRICT"#)
            let list = try #require(try Row.fetchOne(db, sql: "SELECT wr, strict FROM pragma_table_list('setting')"))
            #expect(try row(list, "wr") == 1)
            #expect(try row(list, "strict") == 1)
            // STRICT refuses a text in an INTEGER column.
            let strict = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO setting VALUES ('a', 1, 'not a number')")
            }
            #expect(strict?.extendedResultCode == .SQLITE_CONSTRAINT_DATATYPE)
            #expect(try db.primaryKey("setting") == PrimaryKeyInfo(columns: ["key"], rowIDColumn: nil, isHiddenRowID: false))

            // IF NOT EXISTS: a second creation is a no-op; without it, it fails.
            try db.create(table: "setting", options: .ifNotExists) { t in t.column("other") }
            #expect(try db.columns(in: "setting").count == 3)
            #expect(throws: DatabaseError.self) {
                try db.create(table: "setting") { t in t.column("other") }
            }

            // TEMPORARY: in the temp schema, with its belongsTo index.
            try db.create(table: "scratch", options: [.temporary, .ifNotExists]) { t in
                t.column("n", .integer)
                t.belongsTo("setting")
            }
            #expect(try schemaSQL(db, "scratch") == #"CREATE TABLE "scratch" ("n" INTEGER, "setting_id" TEXT REFERENCES "setting"("key"))"#)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_temp_master WHERE name = 'scratch'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'scratch'") == 0)
            #expect(try db.tableExists("scratch"))
            #expect(try db.indexes(on: "scratch").map(\.name) == ["index_scratch_on_setting_id"])
        }
        // Temporary tables disappear with the connection: a new queue does not see it.
    }

    private func row(_ row: Row, _ column: String) throws -> Int { try row[column] }

    @Test func compositeKeysAndTableConstraints() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "country") { t in
                t.column("region", .text).notNull()
                t.column("code", .text).notNull()
                t.primaryKey(["region", "code"])
            }
            try db.create(table: "city") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("region", .text)
                t.column("code", .text)
                t.column("start", .integer)
                t.column("end", .integer)
                t.uniqueKey(["region", "start"])
                t.check(sql: "start <= \"end\"")
                t.foreignKey(["region", "code"], references: "country", onDelete: .cascade, onUpdate: .cascade, deferred: true)
            }
            #expect(try schemaSQL(db, "country") == #"CREATE TABLE "country" ("region" TEXT NOT NULL, "code" TEXT NOT NULL, PRIMARY KEY ("region", "code"))"#)
            #expect(try schemaSQL(db, "city") == #"CREATE TABLE "city" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "region" TEXT, "code" TEXT, "start" INTEGER, "end" INTEGER, UNIQUE ("region", "start"), CHECK (start <= "end"), FOREIGN KEY ("region", "code") REFERENCES "country" ON DELETE CASCADE ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED)"#)
            #expect(try db.primaryKey("country") == PrimaryKeyInfo(columns: ["region", "code"], rowIDColumn: nil, isHiddenRowID: false))
            #expect(try db.columns(in: "country").map(\.primaryKeyIndex) == [1, 2])
            let key = try #require(try db.foreignKeys(on: "city").first)
            #expect(key.originColumns == ["region", "code"])
            #expect(key.destinationColumns == ["region", "code"])  // resolved from the primary key
            #expect(key.onDelete == .cascade)
            #expect(key.onUpdate == .cascade)
            #expect(try db.indexes(on: "city").map(\.isUnique) == [true])
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO city (start, \"end\") VALUES (2, 1)")
            }
            // belongsTo a table with a composite key is refused with a clear message.
            let error = #expect(throws: DatabaseError.self) {
                try db.create(table: "visit") { t in t.belongsTo("country") }
            }
            #expect(error?.message.contains("foreignKey(") == true)
            #expect(try !db.tableExists("visit"))
        }
    }

    @Test func belongsToVariants() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            // Self reference, a missing table (defaults to id INTEGER), another table name, no index.
            try db.create(table: "employee") { t in
                t.primaryKey("badge", .text)
                t.belongsTo("manager", inTable: "employee", onDelete: .restrict, onUpdate: .cascade)
                t.belongsTo("desk", indexed: false).notNull()
            }
            #expect(try schemaSQL(db, "employee") == #"CREATE TABLE "employee" ("badge" TEXT PRIMARY KEY, "manager_id" TEXT REFERENCES "employee"("badge") ON DELETE RESTRICT ON UPDATE CASCADE, "desk_id" INTEGER NOT NULL REFERENCES "desk"("id"))"#)
            #expect(try db.indexes(on: "employee").map(\.name) == ["index_employee_on_manager_id", "sqlite_autoindex_employee_1"])
            #expect(try db.indexes(on: "employee").map(\.origin) == [.createIndex, .primaryKeyConstraint])
            try db.create(table: "note") { t in
                t.column("text")
            }
            let error = #expect(throws: DatabaseError.self) {
                try db.create(table: "tag") { t in t.belongsTo("note") }
            }
            #expect(error?.message.contains("no declared primary key") == true)
        }
    }

    @Test func invalidDefinitionsThrow() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            #expect(throws: DatabaseError.self) { try db.create(table: "empty") { _ in } }
            // A failing index statement rolls back the table too.
            #expect(throws: DatabaseError.self) {
                try db.create(table: "t") { t in
                    t.column("a").indexed()
                    t.column("b").check(sql: "nonsense(")
                }
            }
            #expect(try !db.tableExists("t"))
            // A default value that cannot be encoded names the column.
            let error = #expect(throws: DatabaseError.self) {
                try db.create(table: "t") { t in
                    t.column("ok").defaults(to: 1)
                    t.column("bad").defaults(to: Unencodable())
                }
            }
            #expect(error?.message.contains("column bad") == true)
        }
    }
}

/// A value whose encoding fails.
private struct Unencodable: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get throws { throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "no") } }
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Unencodable? { nil }
}
