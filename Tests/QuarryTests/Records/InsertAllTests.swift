// insertAll and insertAllAndFetch: the multi-row statements they run, the ids
// they write back (checked against the rows by name, with generated,
// explicit and AUTOINCREMENT ids mixed), chunking, atomicity, and the cases
// that fall back to one statement per record.

import CSQLite
import Foundation
import Quarry
import Testing

private struct BulkPlayer: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
    static let databaseTableName = "bulk"
    var id: Int64?
    var name: String
    var score: Int
}

/// A record whose `note` column has a DEFAULT, and `doubled` is generated.
private struct BulkNote: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
    static let databaseTableName = "note"
    var id: Int64?
    var note: String?
    var score: Int
    var doubled: Int?
}

/// Logs its callbacks; not Decodable, so its id comes from its own didInsert.
private struct BulkTracked: Encodable, MutablePersistableRecord {
    static let databaseTableName = "bulk"
    final class Log: @unchecked Sendable {
        var events: [String] = []
    }
    var id: Int64?
    var name: String
    var score = 0
    let log: Log
    enum CodingKeys: String, CodingKey { case id, name, score }

    mutating func willInsert(_ db: Database) throws {
        log.events.append("willInsert \(name)")
        score = 7
    }
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        log.events.append("aroundInsert \(name)")
        _ = try insert()
    }
    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
        log.events.append("didInsert \(name) \(inserted.rowID)")
    }
    func didSave(_ saved: PersistenceSuccess) { log.events.append("didSave \(name)") }
}

/// Every statement `body` runs, repeats included (SQLRecorder keeps one of
/// each run of equal statements).
private final class StatementLog {
    var statements: [String] = []

    func record<T>(_ db: Database, _ body: () throws -> T) rethrows -> T {
        db.trace { [unowned self] event in
            if case .statement(let sql) = event { self.statements.append(sql) }
        }
        defer { db.trace(nil) }
        return try body()
    }

    var inserts: [String] { statements.filter { $0.hasPrefix("INSERT") } }
}

@Suite("insertAll")
struct InsertAllTests {
    static let schema = """
        CREATE TABLE bulk (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER NOT NULL);
        CREATE TABLE note (
            id INTEGER PRIMARY KEY,
            note TEXT NOT NULL DEFAULT 'the-default',
            score INTEGER NOT NULL,
            doubled INTEGER GENERATED ALWAYS AS (score * 2) VIRTUAL);
        """

    func withDatabase(_ kind: WriterKind, _ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.execute(sql: Self.schema)
            try body(db)
        }
    }

    /// The rows of `bulk` by id, read with hand-written SQL.
    func namesByID(_ db: Database) throws -> [Int64: String] {
        var names: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM bulk") {
            names[try row[0] as Int64] = try row[1] as String
        }
        return names
    }

    @Test(arguments: WriterKind.allCases)
    func insertsWithOneStatementAndWritesIDsBack(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            let players = ["Arthur", "Barbara", "Craig"].map { BulkPlayer(id: nil, name: $0, score: $0.count) }
            let log = StatementLog()
            let inserted = try log.record(db) { try BulkPlayer.insertAll(db, players) }
            #expect(log.inserts == [#"INSERT INTO "bulk" ("id", "name", "score") VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)"#])
            #expect(inserted.map(\.id) == [1, 2, 3])
            #expect(inserted.map(\.name) == ["Arthur", "Barbara", "Craig"])
            #expect(try namesByID(db) == [1: "Arthur", 2: "Barbara", 3: "Craig"])
            let scores = try Row.fetchAll(db, sql: "SELECT score FROM bulk ORDER BY id").map { try $0[0] as Int }
            #expect(scores == [6, 7, 5])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func emptySequenceRunsNoStatement(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            let log = StatementLog()
            let inserted = try log.record(db) { try BulkPlayer.insertAll(db, []) }
            #expect(inserted.isEmpty)
            #expect(log.inserts.isEmpty)
        }
    }

    /// Explicit ids, generated ids after existing rows and after explicit
    /// ids larger than the table's largest: each record gets the id of the
    /// row that holds its name.
    @Test(arguments: WriterKind.allCases)
    func mixedExplicitAndGeneratedIDsMatchTheirRows(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            try db.execute(sql: "INSERT INTO bulk (id, name, score) VALUES (5, 'old5', 0), (50, 'old50', 0)")
            let ids: [Int64?] = [nil, 10, nil, 100, nil, 7, nil]
            let players = ids.enumerated().map { BulkPlayer(id: $0.element, name: "p\($0.offset)", score: 0) }
            let inserted = try BulkPlayer.insertAll(db, players)
            #expect(inserted.map(\.id) == [51, 10, 52, 100, 101, 7, 102])
            let names = try namesByID(db)
            for player in inserted { #expect(names[player.id ?? -1] == player.name) }
        }
    }

    /// Thousands of records, a seeded mix of generated and explicit ids,
    /// across several statements: every returned record's id holds its name.
    @Test(arguments: WriterKind.allCases)
    func seededMixAcrossStatementsMatchesRows(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            var random = SeededGenerator(state: 2026)
            var explicit = Array(Int64(1)...Int64(1_000_000)).shuffled(using: &random).prefix(2000).makeIterator()
            let players = (0..<2500).map { index in
                BulkPlayer(id: Bool.random(using: &random) ? nil : explicit.next(), name: "p\(index)", score: index)
            }
            let log = StatementLog()
            let inserted = try log.record(db) { try BulkPlayer.insertAll(db, players) }
            // 1,000 rows per statement at most.
            #expect(log.inserts.count == 3)
            #expect(inserted.map(\.name) == players.map(\.name))
            let names = try namesByID(db)
            #expect(names.count == 2500)
            for player in inserted { #expect(names[player.id ?? -1] == player.name) }
        }
    }

    @Test(arguments: WriterKind.allCases)
    func autoIncrementIDsFollowTheSequence(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            try db.execute(sql: """
                CREATE TABLE auto (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
                INSERT INTO auto (name) VALUES ('a'), ('b'), ('c');
                DELETE FROM auto WHERE id >= 2;
                """)
            struct Auto: Codable, MutablePersistableRecord {
                static let databaseTableName = "auto"
                var id: Int64?
                var name: String
            }
            // Without AUTOINCREMENT the next id would be 2; the sequence says 4.
            let inserted = try Auto.insertAll(db, [Auto(id: nil, name: "d"), Auto(id: 20, name: "e"), Auto(id: nil, name: "f")])
            #expect(inserted.map(\.id) == [4, 20, 21])
            let rows = try Row.fetchAll(db, sql: "SELECT id, name FROM auto ORDER BY id").map { "\(try $0[0] as Int64)\(try $0[1] as String)" }
            #expect(rows == ["1a", "4d", "20e", "21f"])
        }
    }

    /// With SQLite's variable limit lowered to 7, three columns fit two rows
    /// per statement.
    @Test(arguments: WriterKind.allCases)
    func statementsFollowTheVariableLimit(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            let previous = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, 7)
            defer { sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, previous) }
            let players = (0..<5).map { BulkPlayer(id: nil, name: "p\($0)", score: $0) }
            let log = StatementLog()
            let inserted = try log.record(db) { try BulkPlayer.insertAll(db, players) }
            let two = #"INSERT INTO "bulk" ("id", "name", "score") VALUES (?, ?, ?), (?, ?, ?)"#
            let one = #"INSERT INTO "bulk" ("id", "name", "score") VALUES (?, ?, ?)"#
            #expect(log.inserts == [two, two, one])
            #expect(inserted.map(\.id) == [1, 2, 3, 4, 5])
            #expect(try namesByID(db) == [1: "p0", 2: "p1", 3: "p2", 4: "p3", 5: "p4"])
        }
    }

    /// A NULL for a column with a DEFAULT is left out, as `insert` does, so
    /// records with and without a note go in separate statements.
    @Test(arguments: WriterKind.allCases)
    func defaultColumnsSplitStatements(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            let notes = [
                BulkNote(id: nil, note: "x", score: 1), BulkNote(id: nil, note: "y", score: 2),
                BulkNote(id: nil, note: nil, score: 3), BulkNote(id: nil, note: "z", score: 4),
            ]
            let log = StatementLog()
            let stored = try log.record(db) { try BulkNote.insertAllAndFetch(db, notes) }
            #expect(log.inserts == [
                #"INSERT INTO "note" ("id", "note", "score") VALUES (?, ?, ?), (?, ?, ?) RETURNING *, rowid"#,
                #"INSERT INTO "note" ("id", "score") VALUES (?, ?) RETURNING *, rowid"#,
                #"INSERT INTO "note" ("id", "note", "score") VALUES (?, ?, ?) RETURNING *, rowid"#,
            ])
            #expect(stored == [
                BulkNote(id: 1, note: "x", score: 1, doubled: 2), BulkNote(id: 2, note: "y", score: 2, doubled: 4),
                BulkNote(id: 3, note: "the-default", score: 3, doubled: 6), BulkNote(id: 4, note: "z", score: 4, doubled: 8),
            ])
        }
    }

    /// RETURNING rows come back in the records' order even when the rowids
    /// go down.
    @Test(arguments: WriterKind.allCases)
    func insertAllAndFetchKeepsTheRecordsOrder(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            let players = [BulkPlayer(id: 30, name: "c", score: 3), BulkPlayer(id: 20, name: "b", score: 2),
                           BulkPlayer(id: nil, name: "d", score: 4), BulkPlayer(id: 10, name: "a", score: 1)]
            let log = StatementLog()
            let stored = try log.record(db) { try BulkPlayer.insertAllAndFetch(db, players) }
            #expect(log.inserts == [#"INSERT INTO "bulk" ("id", "name", "score") VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?), (?, ?, ?) RETURNING *, rowid"#])
            #expect(stored.map(\.name) == ["c", "b", "d", "a"])
            #expect(stored.map(\.id) == [30, 20, 31, 10])
        }
    }

    /// A constraint violation in the second statement undoes the first: no
    /// record is inserted, and rows written before insertAll stay.
    @Test(arguments: WriterKind.allCases)
    func failureInsertsNothing(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            try db.execute(sql: "INSERT INTO bulk (name, score) VALUES ('before', 0)")
            var players = (0..<1500).map { BulkPlayer(id: nil, name: "p\($0)", score: $0) }
            players.append(BulkPlayer(id: nil, name: "p3", score: 0))
            #expect {
                try BulkPlayer.insertAll(db, players)
            } throws: { error in
                (error as? DatabaseError)?.isUniqueConstraintViolation == true
            }
            #expect(try namesByID(db) == [1: "before"])
            #expect(db.isInsideTransaction)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func missingTableIsNamed(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            struct Missing: Codable, MutablePersistableRecord {
                static let databaseTableName = "no_such_table"
                var id: Int64?
            }
            #expect {
                try Missing.insertAll(db, [Missing(id: nil), Missing(id: nil)])
            } throws: { error in
                "\(error)".contains("no_such_table")
            }
        }
    }

    /// OR IGNORE runs one statement per record, and leaves the skipped
    /// records out.
    @Test(arguments: WriterKind.allCases)
    func ignoreRunsOneStatementPerRecord(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            try db.execute(sql: "INSERT INTO bulk (id, name, score) VALUES (1, 'taken', 0)")
            let players = [BulkPlayer(id: nil, name: "a", score: 1), BulkPlayer(id: nil, name: "taken", score: 2),
                           BulkPlayer(id: nil, name: "b", score: 3)]
            let log = StatementLog()
            let inserted = try log.record(db) { try BulkPlayer.insertAll(db, players, onConflict: .ignore) }
            #expect(log.inserts == Array(repeating: #"INSERT OR IGNORE INTO "bulk" ("id", "name", "score") VALUES (?, ?, ?)"#, count: 3))
            #expect(inserted.map(\.name) == ["a", "b"])
            #expect(inserted.map(\.id) == [2, 3])
            #expect(try namesByID(db) == [1: "taken", 2: "a", 3: "b"])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func replaceRunsOneStatementPerRecord(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            try db.execute(sql: "INSERT INTO bulk (id, name, score) VALUES (1, 'a', 0), (9, 'z', 0)")
            let players = [BulkPlayer(id: 9, name: "a", score: 1), BulkPlayer(id: nil, name: "b", score: 2)]
            let log = StatementLog()
            let inserted = try log.record(db) { try BulkPlayer.insertAll(db, players, onConflict: .replace) }
            #expect(log.inserts.count == 2)
            #expect(inserted.map(\.id) == [9, 10])
            #expect(try namesByID(db) == [9: "a", 10: "b"])
        }
    }

    /// A trigger may write to the table: one statement per record.
    @Test(arguments: WriterKind.allCases)
    func tableWithTriggersRunsOneStatementPerRecord(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            try db.execute(sql: """
                CREATE TRIGGER shadow AFTER INSERT ON bulk WHEN NEW.name NOT LIKE 'shadow%' BEGIN
                    INSERT INTO bulk (name, score) VALUES ('shadow ' || NEW.name, 0);
                END
                """)
            let players = [BulkPlayer(id: nil, name: "a", score: 1), BulkPlayer(id: nil, name: "b", score: 2)]
            let inserted = try BulkPlayer.insertAll(db, players)
            #expect(inserted.map(\.id) == [1, 3])
            #expect(try namesByID(db) == [1: "a", 2: "shadow a", 3: "b", 4: "shadow b"])
        }
    }

    /// At the largest rowid SQLite picks rowids at random: one statement per
    /// record, and each record still gets its row's id.
    @Test(arguments: WriterKind.allCases)
    func largestRowIDFallsBackToOneStatementPerRecord(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            try db.execute(sql: "INSERT INTO bulk (id, name, score) VALUES (?, 'max', 0)", arguments: [Int64.max])
            let players = (0..<3).map { BulkPlayer(id: nil, name: "p\($0)", score: $0) }
            let log = StatementLog()
            let inserted = try log.record(db) { try BulkPlayer.insertAll(db, players) }
            #expect(log.inserts.count == 3)
            let names = try namesByID(db)
            #expect(names.count == 4)
            for player in inserted { #expect(names[player.id ?? -1] == player.name) }
        }
    }

    @Test(arguments: WriterKind.allCases)
    func withoutRowIDTableUsesOneStatement(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            try db.execute(sql: "CREATE TABLE tag (code TEXT PRIMARY KEY, label TEXT) WITHOUT ROWID")
            struct Tag: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
                static let databaseTableName = "tag"
                var code: String
                var label: String
            }
            let tags = [Tag(code: "b", label: "Bee"), Tag(code: "a", label: "Ay")]
            let log = StatementLog()
            let inserted = try log.record(db) { try Tag.insertAll(db, tags) }
            #expect(log.inserts == [#"INSERT INTO "tag" ("code", "label") VALUES (?, ?), (?, ?)"#])
            #expect(inserted == tags)
            #expect(try Tag.fetchAll(db, sql: "SELECT * FROM tag ORDER BY code") == [tags[1], tags[0]])
            // RETURNING rows cannot be matched by rowid: one statement per record.
            let fetchLog = StatementLog()
            let stored = try fetchLog.record(db) { try Tag.insertAllAndFetch(db, [Tag(code: "d", label: "Dee"), Tag(code: "c", label: "See")]) }
            #expect(fetchLog.inserts.count == 2)
            #expect(stored.map(\.code) == ["d", "c"])
        }
    }

    /// willSave, willInsert, didInsert and didSave run for each record;
    /// aroundInsert does not (documented): one statement writes them all.
    @Test(arguments: WriterKind.allCases)
    func callbacks(kind: WriterKind) throws {
        try withDatabase(kind) { db in
            let log = BulkTracked.Log()
            let inserted = try BulkTracked.insertAll(db, [BulkTracked(name: "a", log: log), BulkTracked(name: "b", log: log)])
            #expect(inserted.map(\.id) == [1, 2])
            #expect(log.events == ["willInsert a", "willInsert b", "didInsert a 1", "didSave a", "didInsert b 2", "didSave b"])
            let scores = try Row.fetchAll(db, sql: "SELECT score FROM bulk ORDER BY id").map { try $0[0] as Int }
            #expect(scores == [7, 7])
        }
    }

    /// A VALUES clause of more rows than SQLite's compound SELECT limit (500).
    @Test func valuesClauseLongerThanTheCompoundLimit() throws {
        let queue = try DatabaseQueue()
        try queue.write { db throws in
            try db.execute(sql: "CREATE TABLE one (id INTEGER PRIMARY KEY)")
            struct One: Codable, MutablePersistableRecord {
                static let databaseTableName = "one"
                var id: Int64?
            }
            let log = StatementLog()
            let inserted = try log.record(db) { try One.insertAll(db, Array(repeating: One(id: nil), count: 999)) }
            #expect(log.inserts.count == 1)
            #expect(inserted.map(\.id) == (1...999).map { Int64($0) })
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM one") == 999)
        }
    }
}
