// Tests of Swift collations: ordering of accented and non-Latin names on
// Linux, use in ORDER BY, in column definitions and from the query interface,
// on every connection of a pool, re-registration and removal.

import Foundation
import Quarry
import Testing

@Suite struct DatabaseCollationTests {
    static let names = [
        "Zoë", "zebra", "Émile", "Eve", "élan", "Ångström", "apple", "Ørsted", "Österreich", "Zürich", "Андрей", "Борис",
        "абрикос", "東京", "Łukasz", "Lars",
    ]
    /// The order Foundation's localized comparison gives on Linux (ICU, root
    /// collation): accents sort with their base letter, case is secondary,
    /// Latin before Cyrillic before CJK.
    static let localizedOrder = [
        "Ångström", "apple", "élan", "Émile", "Eve", "Lars", "Łukasz", "Ørsted", "Österreich", "zebra", "Zoë", "Zürich",
        "абрикос", "Андрей", "Борис", "東京",
    ]

    @Test(arguments: WriterKind.allCases)
    func localizedCollationsOrderAccentedAndNonLatinNames(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.prepareDatabase = { db in
            try db.add(collation: .localizedCaseInsensitiveCompare)
            try db.add(collation: .localizedCompare)
            try db.add(collation: .localizedStandardCompare)
        }
        let writer = try kind.make(in: directory, configuration: configuration)
        try writer.write { db throws in
            try db.create(table: "person") { t in
                t.column("id", .integer).primaryKey()
                _ = t.column("name", .text).collate(DatabaseCollation.localizedCaseInsensitiveCompare)
            }
            for name in Self.names { try db.execute(sql: "INSERT INTO person (name) VALUES (?)", arguments: [name]) }
        }
        try writer.read { db throws in
            // SQLite's default BINARY order puts every lowercase and accented name after Z.
            let binary = try String.fetchAll(db, sql: "SELECT name FROM person ORDER BY name COLLATE BINARY")
            #expect(binary != Self.localizedOrder)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM person ORDER BY name COLLATE localizedCompare") == Self.localizedOrder)
            // The column's declared collation applies by default.
            #expect(try String.fetchAll(db, sql: "SELECT name FROM person ORDER BY name") == Self.localizedOrder)
            // Case-insensitive, accent-sensitive.
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person WHERE name = 'ÉMILE'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person WHERE name = 'EMILE'") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person WHERE name = 'EVE'") == 1)
            let files = try String.fetchAll(
                db, sql: "SELECT x FROM (SELECT 'file10' AS x UNION ALL SELECT 'file2' UNION ALL SELECT 'file1') ORDER BY x COLLATE localizedStandardCompare")
            #expect(files == ["file1", "file2", "file10"])
        }
    }

    @Test func collationsFromTheQueryInterface() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.add(collation: .localizedCaseInsensitiveCompare)
            try makeQueryFixtures(db)
            try db.execute(sql: "UPDATE player SET name = 'élodie' WHERE id = 5")
            let ordered = QPlayer.order { [$0.name.collating(.localizedCaseInsensitiveCompare).asc] }
            try expectSQL(ordered, db, "SELECT * FROM \"player\" ORDER BY \"name\" COLLATE \"localizedCaseInsensitiveCompare\"")
            #expect(try ordered.fetchAll(db).map(\.name) == ["Arthur", "Barbara", "Cheng", "Dora", "élodie"])
            let equal = QPlayer.filter((\.name == "ARTHUR").collating(.localizedCaseInsensitiveCompare))
            #expect(try equal.fetchAll(db).map(\.name) == ["Arthur"])
        }
    }

    @Test func reRegisteringReplacesAndRemovingRemoves() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.add(collation: DatabaseCollation("reversed") { $1.compare($0) })
            let sql = "SELECT x FROM (SELECT 'a' AS x UNION ALL SELECT 'c' UNION ALL SELECT 'b') ORDER BY x COLLATE reversed"
            #expect(try String.fetchAll(db, sql: sql) == ["c", "b", "a"])
            try db.add(collation: DatabaseCollation("reversed") { $0.compare($1) })
            #expect(try String.fetchAll(db, sql: sql) == ["a", "b", "c"])
            try db.remove(collation: DatabaseCollation("reversed") { $0.compare($1) })
            let error = try #require(throws: DatabaseError.self) { _ = try String.fetchAll(db, sql: sql) }
            #expect(error.message.contains("no such collation sequence: reversed"))
        }
    }
}
