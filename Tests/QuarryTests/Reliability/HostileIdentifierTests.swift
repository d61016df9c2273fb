// Hostile identifiers: tables and columns named with quotes, spaces, SQL
// keywords and non-ASCII text, through db.create(table:), records with custom
// CodingKeys and databaseTableName, the query interface, associations,
// migrations' alter(table:), and schema introspection.

import Foundation
import Quarry
import Testing

struct HostileTeam: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var label: String
    enum CodingKeys: String, CodingKey {
        case id = "primary key"
        case label = "group"
    }
    static let databaseTableName = "from \"team\"; --"
}

struct HostileNamed: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var select: String
    var quoted: String?
    var spaced: Int
    var unicode: String
    var teamID: Int64?
    enum CodingKeys: String, CodingKey {
        case id = "order"
        case select = "select"
        case quoted = "a\"b'c`d"
        case spaced = "from table"
        case unicode = "名前 ✓ é"
        case teamID = "from \"team\"; --_id"
    }
    static let databaseTableName = "drop \"table\"; -- select"
    static let team = belongsTo(HostileTeam.self, using: \.teamID)
}

@Suite("Hostile identifiers")
struct HostileIdentifierTests {
    func createTables(_ db: Database) throws {
        try db.create(table: HostileTeam.databaseTableName) { t in
            t.autoIncrementedPrimaryKey("primary key")
            t.column("group", .text).notNull().unique()
        }
        try db.create(table: HostileNamed.databaseTableName) { t in
            t.autoIncrementedPrimaryKey("order")
            t.column("select", .text).notNull().indexed()
            t.column("a\"b'c`d", .text)
            t.column("from table", .integer).notNull().defaults(to: 0)
            t.column("名前 ✓ é", .text).notNull()
            t.belongsTo("from \"team\"; --", onDelete: .cascade)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func recordsAndQueriesWorkWithHostileNames(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try createTables(db)
            var team = HostileTeam(id: nil, label: "'; DROP TABLE x; --")
            try team.insert(db)
            let teamID = try #require(team.id)
            var rows: [HostileNamed] = []
            for index in 0..<5 {
                var row = HostileNamed(
                    id: nil, select: "s\(index)'", quoted: index.isMultiple(of: 2) ? nil : "q\"\(index)",
                    spaced: index * 10, unicode: "ü\(index)", teamID: index < 3 ? teamID : nil)
                try row.insert(db)
                rows.append(row)
            }
            #expect(rows.allSatisfy { $0.id != nil })
            #expect(try HostileNamed.fetchOne(db, key: rows[1].id) == rows[1])
            #expect(try HostileNamed.fetchAll(db).count == 5)
            #expect(try HostileNamed.filter(\.select == "s2'").fetchOne(db) == rows[2])
            #expect(try HostileNamed.filter(\.quoted == nil).fetchCount(db) == 3)
            #expect(try HostileNamed.filter(\.spaced >= 20).order(\.spaced, .descending).fetchAll(db).map(\.spaced) == [40, 30, 20])
            #expect(try HostileNamed.select(\.unicode).order(\.unicode).fetchAll(db) == ["ü0", "ü1", "ü2", "ü3", "ü4"])
            #expect(try HostileNamed.filter { $0.unicode.hasPrefix("ü") }.fetchCount(db) == 5)

            // Updates, batch updates, upsert, delete.
            var changed = rows[3]
            changed.quoted = "changed"
            try changed.update(db)
            #expect(try HostileNamed.fetchOne(db, key: changed.id)?.quoted == "changed")
            #expect(try HostileNamed.filter(\.spaced < 20).updateAll(db, \.spaced += 1, \.quoted <- "batch") == 2)
            #expect(try HostileNamed.filter(\.quoted == "batch").fetchCount(db) == 2)
            var upserted = rows[4]
            upserted.unicode = "upserted"
            try upserted.upsert(db)
            #expect(try HostileNamed.fetchOne(db, key: upserted.id)?.unicode == "upserted")
            #expect(try rows[0].delete(db))
            #expect(try HostileNamed.fetchCount(db) == 4)

            // An association between the two tables with hostile names.
            let joined = try HostileNamed.joining(required: HostileNamed.team).fetchCount(db)
            #expect(joined == 2)
            let withTeam = try HostileNamed.including(optional: HostileNamed.team).fetchAll(db)
            #expect(withTeam.count == 4)

            // Introspection.
            let table = HostileNamed.databaseTableName
            #expect(try db.tableExists(table))
            #expect(try db.columns(in: table).map(\.name)
                == ["order", "select", "a\"b'c`d", "from table", "名前 ✓ é", "from \"team\"; --_id"])
            #expect(try db.primaryKey(table).rowIDColumn == "order")
            let foreignKeys = try db.foreignKeys(on: table)
            #expect(foreignKeys.map(\.destinationTable) == [HostileTeam.databaseTableName])
            #expect(foreignKeys.first?.originColumns == ["from \"team\"; --_id"])
            #expect(foreignKeys.first?.destinationColumns == ["primary key"])
            let indexes = try db.indexes(on: table)
            #expect(indexes.contains { $0.columns == ["select"] })
            #expect(indexes.contains { $0.columns == ["from \"team\"; --_id"] })
            #expect(try db.foreignKeyViolations().isEmpty)

            // Deleting the team cascades through the hostile foreign key.
            _ = try team.delete(db)
            #expect(try HostileNamed.filter(\.teamID != nil).fetchCount(db) == 0)
        }
    }

    @Test func migrationsAlterTablesWithHostileNames() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: directory.path())
        var migrator = DatabaseMigrator()
        let table = "select \"from\" where"
        migrator.registerMigration("'; DROP TABLE quarry_migrations; --") { db in
            try db.create(table: table) { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("order", .text)
            }
        }
        migrator.registerMigration("add \"columns\"") { db in
            try db.alter(table: table) { t in
                t.add(column: "group by", .integer).notNull().defaults(to: 7)
                t.add(column: "x\"y", .text).indexed()
                t.rename(column: "order", to: "order by \"name\"")
            }
        }
        migrator.registerMigration("drop and rename") { db in
            try db.execute(sql: "INSERT INTO \(table.quotedDatabaseIdentifier) (\"order by \"\"name\"\"\") VALUES (?)", arguments: ["v"])
            try db.alter(table: table) { t in t.drop(column: "group by") }
            try db.rename(table: table, to: "renamed ' \"table\"")
        }
        try migrator.migrate(dbQueue)
        try dbQueue.read { (db: Database) throws in
            #expect(try migrator.appliedMigrations(db) == ["'; DROP TABLE quarry_migrations; --", "add \"columns\"", "drop and rename"])
            #expect(try !db.tableExists(table))
            #expect(try db.columns(in: "renamed ' \"table\"").map(\.name) == ["id", "order by \"name\"", "x\"y"])
            #expect(try db.indexes(on: "renamed ' \"table\"").map(\.columns) == [["x\"y"]])
            #expect(try String.fetchOne(db, sql: "SELECT \"order by \"\"name\"\"\" FROM \"renamed ' \"\"table\"\"\"") == "v")
        }
        // Applying again does nothing.
        try migrator.migrate(dbQueue)
        #expect(try dbQueue.read { db in try migrator.appliedMigrations(db).count } == 3)
    }

    /// Generated identifiers: each name makes a table and a column that hold
    /// and return a value, and introspection gives the name back.
    @Test func generatedIdentifiersRoundTrip() throws {
        let dbQueue = try DatabaseQueue()
        var generator = HostileRandom.forProperty("identifiers")
        var used: Set<String> = []
        try dbQueue.write { db in
            try runProperty(60) { iteration in
                // SQLite refuses NUL in names and compares names case-insensitively (ASCII).
                let name = "n" + generator.nastyString(maxPieces: 6, allowNUL: false)
                guard used.insert(name.lowercased()).inserted, !name.lowercased().hasPrefix("sqlite_") else { return }
                let context = "iteration \(iteration), name \(name.debugDescription) — \(HostileTestSettings.replay)"
                try db.create(table: name) { t in
                    t.column(name, .text)
                    t.column("other " + name, .integer)
                }
                try db.execute(
                    sql: "INSERT INTO \(name.quotedDatabaseIdentifier) VALUES (?, ?)", arguments: [name, iteration])
                #expect(try db.tableExists(name), "\(context)")
                #expect(try db.columns(in: name).map(\.name) == [name, "other " + name], "\(context)")
                let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier)"))
                #expect(try row[name] as String == name, "\(context)")
                #expect(try row["other " + name] as Int == iteration, "\(context)")
                try db.drop(table: name)
                #expect(try !db.tableExists(name), "\(context)")
            }
        }
    }
}
