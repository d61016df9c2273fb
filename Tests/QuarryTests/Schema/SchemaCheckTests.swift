// The start-up schema check (`db.checkSchema(of:)`, Database+SchemaCheck.swift)
// and its migrator option, on SQLite (a queue and a pool) and PostgreSQL:
// a matching schema passes (optionals, enums with raw values, Date, UUID,
// Data, JSON, custom coding keys, snake-case naming, a column group), and
// every kind of mismatch is reported, several at once in one error.

import Foundation
@testable import Quarry
import Testing

private enum CheckStatus: String, Codable { case active, retired }
private enum CheckLevel: Int, Codable { case low = 1, high }

/// Stored as JSON in one column.
private struct CheckStats: Codable, Equatable {
    var wins: Int
    var tags: [String]
}

/// Stored in the columns home_latitude and home_longitude.
private struct CheckGeo: Codable, Equatable, ColumnGroup {
    var latitude: Double
    var longitude: Double
}

private struct CheckPlayer: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "checkPlayer"
    var id: Int64?
    var name: String
    var nickname: String?
    var score: Int
    var ratio: Double
    var isActive: Bool
    var status: CheckStatus
    var level: CheckLevel?
    var createdAt: Date
    var token: UUID
    var avatar: Data?
    var stats: CheckStats
    var home: CheckGeo

    enum CodingKeys: String, CodingKey {
        case id, name, nickname, score, ratio, isActive = "is_active", status, level, createdAt = "created_at", token,
            avatar, stats, home
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    static let sample = CheckPlayer(
        id: nil, name: "Ada", nickname: nil, score: 10, ratio: 0.5, isActive: true, status: .retired, level: .high,
        createdAt: Date(timeIntervalSince1970: 1_000_000), token: UUID(), avatar: Data([1, 2, 3]),
        stats: CheckStats(wins: 3, tags: ["a"]), home: CheckGeo(latitude: 59.9, longitude: 10.7))
}

/// Snake-case column names, a text primary key.
private struct CheckTeam: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "checkTeam"
    static let databaseColumnDecodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    var id: String
    var displayName: String
    var foundedYear: Int?
}

/// A record over a view.
private struct CheckTeamName: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "checkTeamName"
    static let databaseColumnDecodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    var id: String
    var displayName: String
    var foundedYear: Int
}

/// A record that only reads: optional properties may lack their column,
/// and it writes nothing.
private struct CheckReader: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "checkPlayer"
    var id: Int64
    var name: String
    var missingButOptional: String?
}

/// Dates stored as milliseconds: an integer, which a TEXT column turns into text.
private struct CheckEvent: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "checkEvent"
    static let databaseDateDecodingStrategy = DatabaseDateDecodingStrategy.millisecondsSince1970
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.millisecondsSince1970
    var id: Int64
    var at: Date
}

/// A Codable wrapper that decodes one string: it reads text.
private struct CheckEmail: Codable {
    var value: String
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

private struct CheckContact: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "checkContact"
    var id: Int64
    var email: CheckEmail
    var stats: CheckStats
}

/// An enum record: the columns of every case in one table.
private enum CheckMedia: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "checkMedia"
    struct Book: Codable { var id: Int64; var pages: Int }
    struct Film: Codable { var id: Int64; var minutes: Int }
    case book(Book)
    case film(Film)
}

/// A record that refuses every value the probe tries: its columns come from
/// its stored properties and CodingKeys (RecordColumns+Layout.swift).
private struct CheckStrict: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "checkStrict"
    struct Refused: Error {}
    var id: Int64
    var code: String
    var note: String?
    enum CodingKeys: String, CodingKey { case id, code = "code_text", note }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        code = try container.decode(String.self, forKey: .code)
        note = try container.decodeIfPresent(String.self, forKey: .note)
        guard code.hasPrefix("QX-") else { throw Refused() }
    }
}

/// A class that refuses every value: its columns cannot be learned.
private final class CheckOpaque: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "checkStrict"
    init(from decoder: any Decoder) throws { throw CheckStrict.Refused() }
}

/// A column of the player table, as the tests declare it.
private struct ColumnSpec {
    var name: String
    var type: DatabaseColumnType?
    var notNull: Bool
    var defaultsToZero = false
}

@Suite struct SchemaCheckTests {
    /// The columns of the player table that match CheckPlayer (the group's
    /// columns are added by `createPlayerTable`).
    private static let playerColumns: [ColumnSpec] = [
        ColumnSpec(name: "name", type: .text, notNull: true),
        ColumnSpec(name: "nickname", type: .text, notNull: false),
        ColumnSpec(name: "score", type: .integer, notNull: true),
        ColumnSpec(name: "ratio", type: .double, notNull: true),
        ColumnSpec(name: "is_active", type: .boolean, notNull: true),
        ColumnSpec(name: "status", type: .text, notNull: true),
        ColumnSpec(name: "level", type: .integer, notNull: false),
        ColumnSpec(name: "created_at", type: .datetime, notNull: true),
        ColumnSpec(name: "token", type: .blob, notNull: true),
        ColumnSpec(name: "avatar", type: .blob, notNull: false),
        ColumnSpec(name: "stats", type: .json, notNull: true),
    ]

    /// Creates the player table, with `change` applied to its columns.
    private func createPlayerTable(
        _ db: Database, group: Bool = true, _ change: (inout [ColumnSpec]) -> Void = { _ in }
    ) throws {
        var columns = Self.playerColumns
        change(&columns)
        try db.create(table: "checkPlayer") { t in
            t.autoIncrementedPrimaryKey("id")
            for spec in columns {
                let column = t.column(spec.name, spec.type)
                if spec.notNull { column.notNull() }
                if spec.defaultsToZero { column.defaults(to: 0) }
            }
            if group { try t.columns(of: CheckGeo.self, inGroup: "home") }
        }
    }

    private func createTeamTable(_ db: Database) throws {
        try db.create(table: "checkTeam") { t in
            t.primaryKey("id", .text)
            t.column("display_name", .text).notNull()
            t.column("founded_year", .integer)
        }
    }

    /// The mismatches of the error `body` throws (none when it does not throw).
    private func mismatches(_ body: () throws -> Void) throws -> [SchemaMismatch] {
        do {
            try body()
            return []
        } catch let error as SchemaCheckError {
            return error.mismatches
        }
    }

    private func summary(_ mismatches: [SchemaMismatch]) -> [String] {
        mismatches.map { "\($0.recordType) \($0.kind.rawValue) \($0.column ?? "-")" }
    }

    // MARK: - Matching schemas

    @Test(arguments: Backend.all)
    func matchingSchemaPasses(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createPlayerTable(db) { columns in
                    // Columns the record ignores: nullable, or with a default.
                    columns.append(ColumnSpec(name: "note", type: .text, notNull: false))
                    columns.append(ColumnSpec(name: "rank", type: .integer, notNull: true, defaultsToZero: true))
                }
                try createTeamTable(db)
            }
            try writer.read { db in try db.checkSchema(of: CheckPlayer.self, CheckTeam.self, CheckReader.self) }
            // The array form, and records that then write and read back as the check promised.
            try writer.write { db in
                try db.checkSchema(of: [CheckPlayer.self, CheckTeam.self])
                var player = CheckPlayer.sample
                try player.insert(db)
                #expect(try CheckPlayer.fetchAll(db) == [player])
                let team = CheckTeam(id: "t1", displayName: "Reds", foundedYear: nil)
                try team.insert(db)
                #expect(try CheckTeam.fetchAll(db) == [team])
            }
        }
    }

    /// A view's columns all say they may hold NULL: their nullability is
    /// trusted, their presence and types are checked.
    @Test(arguments: Backend.all)
    func recordOverAView(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createTeamTable(db)
                try db.execute(sql: #"CREATE VIEW "checkTeamName" AS SELECT id, display_name FROM "checkTeam""#)
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckTeamName.self) } }
            #expect(summary(found) == ["CheckTeamName missingColumn founded_year"])
            try writer.write { db in
                try db.execute(sql: #"DROP VIEW "checkTeamName""#)
                try db.execute(sql: #"CREATE VIEW "checkTeamName" AS SELECT id, display_name, founded_year FROM "checkTeam""#)
                try db.checkSchema(of: CheckTeamName.self)
            }
        }
    }

    /// SQLite columns without a declared type, or of NUMERIC affinity,
    /// accept any value: they are not judged.
    @Test(arguments: Backend.sqlite)
    func untypedAndNumericColumnsAreNotJudged(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createPlayerTable(db) { columns in
                    for index in columns.indices { columns[index].type = index.isMultiple(of: 2) ? nil : .numeric }
                }
                try db.checkSchema(of: CheckPlayer.self)
            }
        }
    }

    // MARK: - Each kind of mismatch

    @Test(arguments: Backend.all)
    func missingTable(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckPlayer.self) } }
            #expect(found.count == 1)
            #expect(found.first?.kind == .missingTable)
            #expect(found.first?.table == "checkPlayer")
            #expect(found.first?.recordType == "CheckPlayer")
            #expect(found.first?.column == nil)
            #expect(found.first?.description == "CheckPlayer: no table or view \"checkPlayer\"")
        }
    }

    @Test(arguments: Backend.all)
    func missingColumns(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createPlayerTable(db, group: false) { columns in
                    columns.removeAll { ["score", "nickname"].contains($0.name) }
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckPlayer.self) } }
            // nickname is optional, but the record writes it; the group's two columns are missing too.
            #expect(summary(found) == [
                "CheckPlayer missingColumn nickname", "CheckPlayer missingColumn score",
                "CheckPlayer missingColumn home_latitude", "CheckPlayer missingColumn home_longitude",
            ])
            #expect(found[1].description
                == "CheckPlayer: table \"checkPlayer\" has no column \"score\" (expected a column for Int): CheckPlayer reads and writes it")
            // A record that only reads does not need the column of an optional property.
            try writer.read { db in try db.checkSchema(of: CheckReader.self) }
        }
    }

    @Test(arguments: Backend.all)
    func nonOptionalPropertyOverNullableColumn(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createPlayerTable(db) { columns in
                    for index in columns.indices where ["name", "status"].contains(columns[index].name) {
                        columns[index].notNull = false
                    }
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckPlayer.self) } }
            #expect(summary(found) == ["CheckPlayer nullableColumn name", "CheckPlayer nullableColumn status"])
            #expect(found.first?.expected == "NOT NULL")
            #expect(found.first?.found == "nullable")
            #expect(found.first?.description == """
                CheckPlayer: column "checkPlayer"."name" is nullable, expected NOT NULL: \
                the String property is not optional, and a NULL would fail decoding
                """)
        }
    }

    @Test(arguments: Backend.all)
    func incompatibleTypes(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createPlayerTable(db) { columns in
                    for index in columns.indices {
                        switch columns[index].name {
                        case "name": columns[index].type = .integer        // String over INTEGER
                        case "score": columns[index].type = .text          // Int over TEXT
                        case "ratio": columns[index].type = .blob          // Double over BLOB
                        case "created_at": columns[index].type = .blob     // Date over BLOB
                        case "avatar": columns[index].type = .integer      // Data over INTEGER
                        case "status": columns[index].type = .integer      // String raw value over INTEGER
                        case "level": columns[index].type = .text          // Int raw value over TEXT
                        default: break
                        }
                    }
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckPlayer.self) } }
            #expect(summary(found) == [
                "CheckPlayer incompatibleType name", "CheckPlayer incompatibleType score",
                "CheckPlayer incompatibleType ratio", "CheckPlayer incompatibleType status",
                "CheckPlayer incompatibleType level", "CheckPlayer incompatibleType created_at",
                "CheckPlayer incompatibleType avatar",
            ])
            let score = try #require(found.first { $0.column == "score" })
            #expect(score.expected == "INTEGER or REAL")
            #expect(score.found.uppercased() == "TEXT")
            #expect(score.description == """
                CheckPlayer: column "checkPlayer"."score" is declared \(score.found), expected INTEGER or REAL: \
                the Int property cannot read its values
                """)
            #expect(found.first { $0.column == "created_at" }?.expected == "INTEGER, REAL or TEXT")
            #expect(found.first { $0.column == "avatar" }?.expected == "TEXT or BLOB")
        }
    }

    /// Dates stored as milliseconds are integers, which a TEXT column turns
    /// into text the milliseconds strategy refuses.
    @Test(arguments: Backend.all)
    func dateStrategyIsTakenIntoAccount(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "checkEvent") { t in
                    t.primaryKey("id", .integer)
                    t.column("at", .text).notNull()
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckEvent.self) } }
            #expect(summary(found) == ["CheckEvent incompatibleType at"])
            #expect(found.first?.expected == "INTEGER or REAL")
            try writer.write { db in
                try db.drop(table: "checkEvent")
                try db.create(table: "checkEvent") { t in
                    t.primaryKey("id", .integer)
                    t.column("at", .integer).notNull()
                }
                try db.checkSchema(of: CheckEvent.self)
            }
        }
    }

    /// PostgreSQL keeps bytes only in a bytea column: a Data property over a
    /// text column round-trips on SQLite, not on PostgreSQL.
    @Test(arguments: Backend.all)
    func bytesNeedByteaOnPostgreSQL(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createPlayerTable(db) { columns in
                    for index in columns.indices where columns[index].name == "avatar" { columns[index].type = .text }
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckPlayer.self) } }
            if backend.isPostgreSQL {
                #expect(summary(found) == ["CheckPlayer incompatibleType avatar"])
                #expect(found.first?.expected == "bytea")
                // The check is right: PostgreSQL casts the bytes to their hex
                // text (`\x010203`), which reads back as other bytes.
                let avatar = try writer.write { db in
                    var player = CheckPlayer.sample
                    try player.insert(db)
                    return try CheckPlayer.fetchOne(db)?.avatar
                }
                #expect(avatar == Data(#"\x010203"#.utf8))
                #expect(avatar != CheckPlayer.sample.avatar)
            } else {
                #expect(found.isEmpty)
            }
        }
    }

    @Test(arguments: Backend.all)
    func notNullColumnTheRecordNeverWrites(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createPlayerTable(db) { columns in
                    columns.append(ColumnSpec(name: "team_id", type: .integer, notNull: true))
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckPlayer.self) } }
            #expect(summary(found) == ["CheckPlayer unwrittenColumn team_id"])
            #expect(found.first?.description == """
                CheckPlayer: column "checkPlayer"."team_id" is NOT NULL without a default, expected a value written by \
                CheckPlayer, or a default: CheckPlayer never writes it, so inserting it fails
                """)
            // The check is right: the insert fails.
            let insertError = #expect(throws: DatabaseError.self) {
                try writer.write { db in
                    var player = CheckPlayer.sample
                    try player.insert(db)
                }
            }
            #expect(insertError?.isNotNullConstraintViolation == true, "\(String(describing: insertError))")
            #expect(insertError?.message.contains("team_id") == true, "\(String(describing: insertError))")
            // A record that only reads is not concerned.
            try writer.read { db in try db.checkSchema(of: CheckReader.self) }
        }
    }

    /// A Codable value reads what its `init(from:)` asks for: one value of
    /// a type, or JSON (text).
    @Test(arguments: Backend.all)
    func codableValuesReadWhatTheyDecode(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "checkContact") { t in
                    t.primaryKey("id", .integer)
                    t.column("email", .text).notNull()
                    t.column("stats", .text).notNull()
                }
                try db.checkSchema(of: CheckContact.self)
                try db.drop(table: "checkContact")
                try db.create(table: "checkContact") { t in
                    t.primaryKey("id", .integer)
                    t.column("email", .integer).notNull()
                    t.column("stats", .integer).notNull()
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckContact.self) } }
            #expect(summary(found) == ["CheckContact incompatibleType email", "CheckContact incompatibleType stats"])
            #expect(found.map(\.expected) == ["TEXT", "TEXT or BLOB"])
        }
    }

    /// An enum record needs the discriminator and the columns of every case.
    @Test(arguments: Backend.all)
    func enumRecordColumns(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "checkMedia") { t in
                    t.primaryKey("id", .integer)
                    t.column("kind", .text).notNull()
                    t.column("pages", .integer)
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckMedia.self) } }
            #expect(summary(found) == ["CheckMedia missingColumn minutes"])
            try writer.write { db in
                try db.alter(table: "checkMedia") { t in t.add(column: "minutes", .integer) }
                try db.checkSchema(of: CheckMedia.self)
            }
        }
    }

    /// A record the probe cannot decode is checked from its stored
    /// properties; a class that refuses every value is reported as such.
    @Test(arguments: Backend.all)
    func recordsThatRefuseProbeValues(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "checkStrict") { t in
                    t.primaryKey("id", .integer)
                    t.column("code_text", .text)
                    t.column("note", .integer)
                }
            }
            let found = try writer.read { db in try mismatches { try db.checkSchema(of: CheckStrict.self) } }
            #expect(summary(found) == ["CheckStrict nullableColumn code_text", "CheckStrict incompatibleType note"])
            let opaque = try writer.read { db in try mismatches { try db.checkSchema(of: CheckOpaque.self) } }
            #expect(summary(opaque) == ["CheckOpaque uninspectableRecord -"])
            #expect(opaque.first?.description.hasPrefix(
                "CheckOpaque: the columns of the record could not be learned: Quarry could not decode the record from probe values") == true)
        }
    }

    // MARK: - Several mismatches, one error

    @Test(arguments: Backend.all)
    func everyMismatchIsReportedInOneError(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try createPlayerTable(db) { columns in
                    columns.append(ColumnSpec(name: "team_id", type: .integer, notNull: true))
                    columns.removeAll { $0.name == "score" }
                    for index in columns.indices where columns[index].name == "name" { columns[index].notNull = false }
                    for index in columns.indices where columns[index].name == "ratio" { columns[index].type = .text }
                }
            }
            let error = try #require(throws: SchemaCheckError.self) {
                try writer.read { db in try db.checkSchema(of: CheckPlayer.self, CheckTeam.self) }
            }
            #expect(summary(error.mismatches) == [
                "CheckPlayer nullableColumn name", "CheckPlayer missingColumn score",
                "CheckPlayer incompatibleType ratio", "CheckPlayer unwrittenColumn team_id",
                "CheckTeam missingTable -",
            ])
            let lines = error.description.split(separator: "\n").map(String.init)
            #expect(lines.count == 6)
            #expect(lines.first == "The schema does not match the record types (5 mismatches):")
            #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("- Check") })
            #expect(lines.last == "- CheckTeam: no table or view \"checkTeam\"")
        }
    }

    // MARK: - The migrator option

    private func migrator(forgettingScore: Bool) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try createPlayerTable(db) { columns in
                if forgettingScore { columns.removeAll { $0.name == "score" } }
            }
            try createTeamTable(db)
        }
        return migrator
    }

    @Test(arguments: Backend.all)
    func migratorChecksTheSchemaAfterMigrating(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try migrator(forgettingScore: false).migrate(writer, checkingSchemaOf: [CheckPlayer.self, CheckTeam.self])
            #expect(try writer.read { db in try db.tableExists("checkTeam") })
        }
        try backend.withWriter { writer in
            let error = try #require(throws: SchemaCheckError.self) {
                try migrator(forgettingScore: true).migrate(writer, checkingSchemaOf: [CheckPlayer.self, CheckTeam.self])
            }
            #expect(summary(error.mismatches) == ["CheckPlayer missingColumn score"])
            // The migration itself was applied and recorded.
            #expect(try writer.read { db in try migrator(forgettingScore: true).appliedMigrations(db) } == ["v1"])
        }
    }

    @Test(arguments: Backend.all)
    func asyncMigratorChecksTheSchemaAfterMigrating(_ backend: Backend) async throws {
        try await backend.withWriter { writer in
            try await migrator(forgettingScore: false).migrate(writer, checkingSchemaOf: [CheckPlayer.self, CheckTeam.self])
        }
        try await backend.withWriter { (writer) async throws -> Void in
            await #expect(throws: SchemaCheckError.self) {
                try await migrator(forgettingScore: true).migrate(writer, checkingSchemaOf: [CheckPlayer.self])
            }
        }
    }

    /// A migration error stops the migrator before the check.
    @Test(arguments: Backend.all)
    func migrationErrorComesFirst(_ backend: Backend) throws {
        try backend.withWriter { writer in
            var migrator = DatabaseMigrator()
            migrator.registerMigration("broken") { db in try db.execute(sql: "SELECT * FROM nowhere") }
            #expect(throws: MigrationError.self) {
                try migrator.migrate(writer, checkingSchemaOf: [CheckPlayer.self])
            }
        }
    }
}
