// GRDB's record spellings: persistence on `let` values, around… callbacks,
// persistenceConflictPolicy, coding userInfo, Identifiable lookups, and
// Row.decode(_:) for hand-written init(row:).

import Foundation
import Quarry
import QuarryTestSupport
import Testing

private struct GPlayer: Codable, Identifiable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
}

private func makePlayers(_ writer: any DatabaseWriter) throws {
    try writer.write { db throws in
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().unique()
            t.column("score", .integer).notNull()
        }
    }
}

/// Records every callback, in order.
private final class GCallbackLog: @unchecked Sendable {
    var events: [String] = []
}

private struct GLogged: Codable, FetchableRecord, PersistableRecord {
    nonisolated(unsafe) static var log = GCallbackLog()
    nonisolated(unsafe) static var skipInsert = false
    var id: Int64?
    var name: String
    var score = 0

    static let databaseTableName = "player"

    func willSave(_ db: Database) throws { Self.log.events.append("willSave") }
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        Self.log.events.append("aroundSave>")
        _ = try save()
        Self.log.events.append("<aroundSave")
    }
    func didSave(_ saved: PersistenceSuccess) { Self.log.events.append("didSave") }
    func willInsert(_ db: Database) throws { Self.log.events.append("willInsert") }
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        if Self.skipInsert { return }
        Self.log.events.append("aroundInsert>")
        let inserted = try insert()
        Self.log.events.append("<aroundInsert \(inserted.rowID)")
    }
    func didInsert(_ inserted: InsertionSuccess) { Self.log.events.append("didInsert") }
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        Self.log.events.append("aroundUpdate \(columns.sorted())>")
        _ = try update()
        Self.log.events.append("<aroundUpdate")
    }
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        Self.log.events.append("aroundDelete>")
        let deleted = try delete()
        Self.log.events.append("<aroundDelete \(deleted)")
    }
}

private struct GIgnoringTag: Codable, FetchableRecord, PersistableRecord {
    static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .ignore, update: .replace)
    var id: Int64?
    var name: String
    var score = 0
    static let databaseTableName = "player"
}

private extension CodingUserInfoKey {
    static let unit = CodingUserInfoKey(rawValue: "unit")!
}

private struct GScaled: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [.unit: 10] }
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [.unit: 10] }
    var id: Int64?
    var name: String
    var score: Int

    init(id: Int64?, name: String, score: Int) {
        self.id = id
        self.name = name
        self.score = score
    }

    enum CodingKeys: String, CodingKey { case id, name, score }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let unit = decoder.userInfo[.unit] as? Int ?? 1
        id = try container.decode(Int64?.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        score = try container.decode(Int.self, forKey: .score) / unit
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let unit = encoder.userInfo[.unit] as? Int ?? 1
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(score * unit, forKey: .score)
    }
}

/// A hand-written init(row:) that reuses the Decodable decoding of GPlayer.
private struct GPlayerWithRank: FetchableRecord {
    var player: GPlayer
    var rank: Int
    init(row: Row) throws {
        player = try row.decode(GPlayer.self)
        rank = try row["rank"]
    }
}

@Suite(.serialized) struct PersistableRecordGRDBSpellingTests {
    @Test(arguments: Backend.all)
    func letValuesInsertSaveAndUpsert(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                let arthur = GPlayer(id: 1, name: "Arthur", score: 10)
                try arthur.insert(db)
                // PostgreSQL's identity does not move past an explicit id: move it.
                try moveIdentitySequences(db, tables: ["player"])
                let barbara = GPlayer(id: nil, name: "Barbara", score: 20)
                try barbara.insert(db)
                #expect(barbara.id == nil)  // a constant is not changed
                let fetched = try GPlayer.fetchAll(db).sorted { $0.name < $1.name }
                #expect(fetched.map(\.name) == ["Arthur", "Barbara"])
                #expect(fetched[1].id == 2)

                let renamed = GPlayer(id: 1, name: "Arthur II", score: 11)
                try renamed.save(db)
                #expect(try GPlayer.fetchOne(db, id: 1)?.name == "Arthur II")

                let upserted = GPlayer(id: 1, name: "Arthur III", score: 12)
                try upserted.upsert(db)
                #expect(try GPlayer.fetchOne(db, id: 1) == GPlayer(id: 1, name: "Arthur III", score: 12))

                let stored = try GPlayer(id: nil, name: "Craig", score: 30).insertAndFetch(db)
                #expect(stored.id == 3)
                let saved = try GPlayer(id: 3, name: "Craig", score: 31).saveAndFetch(db)
                #expect(saved.score == 31)
                let upsertedAndFetched = try GPlayer(id: 3, name: "Craig", score: 32).upsertAndFetch(db)
                #expect(upsertedAndFetched.score == 32)
                let row = try GPlayer(id: nil, name: "Dana", score: 1).insertAndFetch(db, selection: ["id"], as: Row.self)
                #expect(try row["id"] as Int64 == 4)

                // A variable still gets its id back: the mutating form is chosen.
                var edith = GPlayer(id: nil, name: "Edith", score: 0)
                try edith.insert(db)
                #expect(edith.id == 5)
            }
        }
    }
    @Test(arguments: Backend.all) func letInsertFailureThrows(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                let arthur = GPlayer(id: nil, name: "Arthur", score: 10)
                try arthur.insert(db)
                // In savepoints: after an error, PostgreSQL runs nothing else in
                // the transaction until it rolls back.
                #expect(throws: DatabaseError.self) { try db.inSavepoint { try arthur.insert(db); return .commit } }
                do {
                    try db.inSavepoint { try arthur.insert(db); return .commit }
                } catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE {
                    // expected, on both backends (PostgreSQL's 23505 maps to it)
                }
                let missing = GPlayer(id: 42, name: "Nobody", score: 0)
                #expect(throws: RecordError.self) { try missing.update(db) }
            }
        }
    }

    @Test(arguments: Backend.all) func aroundCallbacksWrapTheStatements(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                GLogged.log = GCallbackLog()
                var record = GLogged(id: nil, name: "Arthur")
                try record.insert(db)
                #expect(GLogged.log.events == [
                    "willSave", "aroundSave>", "willInsert", "aroundInsert>", "<aroundInsert 1", "didInsert",
                    "<aroundSave", "didSave",
                ])
                GLogged.log = GCallbackLog()
                // A hand-written didInsert replaces the default one, which would set the id.
                #expect(record.id == nil)
                record.id = 1
                record.score = 5
                try record.update(db)
                #expect(GLogged.log.events == ["willSave", "aroundSave>", "aroundUpdate [\"name\", \"score\"]>", "<aroundUpdate", "<aroundSave", "didSave"])
                GLogged.log = GCallbackLog()
                try record.delete(db)
                #expect(GLogged.log.events == ["aroundDelete>", "<aroundDelete true"])
            }
        }
    }

    @Test(arguments: Backend.all) func aroundCallbackThatSkipsItsClosureIsAMisuse(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                GLogged.log = GCallbackLog()
                GLogged.skipInsert = true
                defer { GLogged.skipInsert = false }
                var record = GLogged(id: nil, name: "Arthur")
                let error = try #require(throws: DatabaseError.self) { try record.insert(db) }
                #expect(error.resultCode == .SQLITE_MISUSE)
                #expect(error.message.contains("aroundInsert of GLogged must call its closure exactly once") == true)
                #expect(try GPlayer.fetchCount(db) == 0)
            }
        }
    }

    @Test(arguments: Backend.all) func persistenceConflictPolicyIsTheDefaultOnConflict(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                try GIgnoringTag(id: nil, name: "swift").insert(db)
                try GIgnoringTag(id: nil, name: "swift").insert(db)  // INSERT OR IGNORE: no error
                #expect(try GPlayer.fetchCount(db) == 1)
                // An explicit argument wins over the policy.
                #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try GIgnoringTag(id: nil, name: "swift").insert(db, onConflict: .abort) } }
                #expect(PersistenceConflictPolicy().conflictResolutionForInsert == .abort)
                #expect(GIgnoringTag.persistenceConflictPolicy.conflictResolutionForUpdate == .replace)
                #expect(GPlayer.persistenceConflictPolicy == PersistenceConflictPolicy(insert: .abort, update: .abort))
            }
        }
    }

    @Test(arguments: Backend.all) func codingUserInfoReachesEncodeAndDecode(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                try GScaled(id: nil, name: "Arthur", score: 3).insert(db)
                #expect(try Int.fetchOne(db, sql: "SELECT score FROM player") == 30)
                #expect(try GScaled.fetchOne(db)?.score == 3)
                #expect(try GScaled.all().fetchOne(db)?.score == 3)
            }
        }
    }

    @Test(arguments: Backend.all)
    func identifiableLookups(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                for name in ["Arthur", "Barbara", "Craig"] { try GPlayer(id: nil, name: name, score: 1).insert(db) }
                #expect(try GPlayer.fetchOne(db, id: 2)?.name == "Barbara")
                #expect(try GPlayer.fetchOne(db, id: 42) == nil)
                #expect(try GPlayer.find(db, id: 3).name == "Craig")
                let notFound = try #require(throws: RecordError.self) { try GPlayer.find(db, id: 42) }
                #expect("\(notFound)".contains("player"))
                #expect(try GPlayer.fetchAll(db, ids: [1, 3, 42]).map(\.name).sorted() == ["Arthur", "Craig"])
                #expect(try GPlayer.exists(db, id: 1))
                #expect(try !GPlayer.exists(db, id: 42))
                #expect(try GPlayer.deleteOne(db, id: 1))
                #expect(try !GPlayer.deleteOne(db, id: 1))
                #expect(try GPlayer.deleteAll(db, ids: [2, 3, 42]) == 2)
                #expect(try GPlayer.fetchCount(db) == 0)
            }
        }
    }

    @Test(arguments: Backend.all) func rowDecodeReusesTheDecodableDecoding(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                try GPlayer(id: nil, name: "Arthur", score: 10).insert(db)
                let ranked = try GPlayerWithRank.fetchOne(db, sql: "SELECT *, 1 AS rank FROM player")
                #expect(ranked?.player == GPlayer(id: 1, name: "Arthur", score: 10))
                #expect(ranked?.rank == 1)
                let error = try #require(throws: RowDecodingError.self) {
                    try GPlayerWithRank.fetchOne(db, sql: "SELECT id, 1 AS rank FROM player")
                }
                #expect("\(error)".contains("name"))
            }
        }
    }
}

// MARK: - around… callbacks that swallow the error of their closure (issue 32)

/// Which callback swallows the error of the write it wraps.
enum SwallowingCallback: String, CaseIterable, Sendable {
    case save, insert, update, delete
}

private struct GSwallowing: Codable, FetchableRecord, PersistableRecord {
    nonisolated(unsafe) static var swallowing: SwallowingCallback?
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score = 0

    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        if Self.swallowing == .save { _ = try? save() } else { _ = try save() }
    }
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        if Self.swallowing == .insert { _ = try? insert() } else { _ = try insert() }
    }
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        if Self.swallowing == .update { _ = try? update() } else { _ = try update() }
    }
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        if Self.swallowing == .delete { _ = try? delete() } else { _ = try delete() }
    }
}

@Suite(.serialized) struct SwallowingCallbackTests {
    /// A failed write whose error the callback swallowed throws SQLITE_MISUSE
    /// (as GRDB does), never returns as if it had succeeded.
    @Test(arguments: Backend.all, SwallowingCallback.allCases)
    func swallowedErrorIsAMisuse(_ backend: Backend, _ swallowing: SwallowingCallback) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            let barbara = try writer.write { db throws in
                GSwallowing.swallowing = nil
                try db.create(table: "membership") { t in
                    t.column("playerId", .integer).notNull().references("player", onDelete: .restrict)
                }
                let arthur = try GSwallowing(id: nil, name: "Arthur").insertAndFetch(db)
                try db.execute(sql: "INSERT INTO membership (\"playerId\") VALUES (?)", arguments: [arthur.id])
                return try GSwallowing(id: nil, name: "Barbara").insertAndFetch(db)
            }
            GSwallowing.swallowing = swallowing
            defer { GSwallowing.swallowing = nil }
            let error = try #require(throws: DatabaseError.self) {
                try writer.write { db throws in
                    var renamed = barbara
                    renamed.name = "Arthur"   // UNIQUE name
                    switch swallowing {
                    case .save: try renamed.save(db)        // the UPDATE inside save() fails
                    case .insert: try GSwallowing(id: nil, name: "Arthur").insert(db)
                    case .update: try renamed.update(db)
                    case .delete: try GSwallowing(id: 1, name: "Arthur").delete(db)   // a membership refers to it
                    }
                }
            }
            #expect(error.resultCode == .SQLITE_MISUSE, "\(error)")
            #expect(error.message.contains("around\(swallowing.rawValue.capitalized) of GSwallowing must call its closure exactly once"))
            // Nothing was written.
            try writer.read { db throws in
                #expect(try GPlayer.order(\.id).fetchAll(db).map(\.name) == ["Arthur", "Barbara"])
            }
        }
    }
}

// MARK: - userInfo reaches the values stored as JSON (issue 32)

private struct GMeasure: Codable, Equatable {
    var value: Int
    init(value: Int) { self.value = value }
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = try container.decode(Int.self) / (decoder.userInfo[.unit] as? Int ?? 1)
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value * (encoder.userInfo[.unit] as? Int ?? 1))
    }
}

private struct GMeasured: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "measured"
    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [.unit: 10] }
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [.unit: 10] }
    var id: Int64?
    var measures: [GMeasure]   // stored as JSON
}

@Suite struct NestedUserInfoTests {
    @Test(arguments: Backend.all)
    func userInfoReachesNestedJSONValues(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.create(table: "measured") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("measures", .text).notNull()
                }
                try GMeasured(id: nil, measures: [GMeasure(value: 3), GMeasure(value: 4)]).insert(db)
                // The nested values were encoded with the record's userInfo…
                #expect(try String.fetchOne(db, sql: "SELECT measures FROM measured") == "[30,40]")
                // …and decode with it.
                #expect(try GMeasured.fetchOne(db)?.measures == [GMeasure(value: 3), GMeasure(value: 4)])
                #expect(try GMeasured.all().fetchAll(db).first?.measures == [GMeasure(value: 3), GMeasure(value: 4)])
                // What Quarry relies on to hand the userInfo to Foundation's JSON coders.
                #expect((any Sendable).self == Any.self)
            }
        }
    }
}

// MARK: - GRDB's names of the column naming strategies (issue 32)

private struct GSnakePlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "snake_player"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    var id: Int64
    var playerName: String
    var teamID: Int64?
}

private struct GDefaultKeysPlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "snake_player"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.useDefaultKeys
    var id: Int64
    var player_name: String
}

@Suite struct ColumnStrategyNameTests {
    @Test(arguments: Backend.all)
    func grdbStrategyNames(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE snake_player (id INTEGER PRIMARY KEY, player_name TEXT NOT NULL, team_id INTEGER)")
                try GSnakePlayer(id: 1, playerName: "Arthur", teamID: 2).insert(db)
                #expect(try Row.fetchOne(db, sql: "SELECT player_name, team_id FROM snake_player")
                    == (try Row(columnNames: ["player_name", "team_id"], databaseValues: [.text("Arthur"), .integer(2)])))
                #expect(try GSnakePlayer.fetchOne(db) == GSnakePlayer(id: 1, playerName: "Arthur", teamID: 2))
                #expect(try GDefaultKeysPlayer.fetchOne(db) == GDefaultKeysPlayer(id: 1, player_name: "Arthur"))
            }
        }
        #expect(DatabaseColumnDecodingStrategy.useDefaultKeys.columnName(for: "teamID") == "teamID")
        #expect(DatabaseColumnDecodingStrategy.convertFromSnakeCase.columnName(for: "teamID") == "team_id")
    }
}
