// The error catalogue of the "Errors" DocC article, pinned: each failure the
// article shows is triggered here, and its type, codes and message asserted.
//
// Run with QUARRY_PRINT_ERRORS=1 to print every message, which is how the
// examples of Sources/Quarry/Quarry.docc/Errors.md were produced.

import Foundation
import Logging
import Quarry
import Testing

@Suite("Error catalogue")
struct ErrorCatalogueTests {
    struct Player: Codable, FetchableRecord, PersistableRecord {
        var id: Int64?
        var email: String
        var name: String
        var score: Int
        var teamId: Int64?
        static let databaseTableName = "player"

        /// A computed property: no column.
        var label: String { "\(name) (\(score))" }
    }

    /// A record whose column `address` holds JSON.
    struct Customer: Codable, FetchableRecord, TableRecord {
        struct Address: Codable { var city: String }
        var id: Int64
        var address: Address
        var formerAddress: Address?
        static let databaseTableName = "customer"
    }

    static let schema = """
        CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE player (
            id INTEGER PRIMARY KEY,
            email TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            score INTEGER NOT NULL CHECK (score >= 0),
            teamId INTEGER REFERENCES team(id));
        INSERT INTO team (id, name) VALUES (1, 'Red');
        INSERT INTO player (id, email, name, score, teamId) VALUES (1, 'arthur@example.com', 'Arthur', 100, 1);
        """

    /// Prints the message when QUARRY_PRINT_ERRORS=1, to refresh the article.
    static func show(_ label: String, _ error: any Error) {
        if ProcessInfo.processInfo.environment["QUARRY_PRINT_ERRORS"] == "1" {
            print("[\(label)] \(type(of: error)): \(error)")
        }
    }

    /// A queue on a new file of `directory` with the test schema.
    static func makeDatabase(_ kind: WriterKind, in directory: TemporaryDirectory,
                             configuration: Configuration = Configuration()) throws -> any DatabaseWriter {
        let writer = try kind.make(in: directory, configuration: configuration)
        try writer.write { db in try db.execute(sql: schema) }
        return writer
    }

    // MARK: - Constraint violations

    @Test(arguments: WriterKind.allCases)
    func constraintViolations(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try Self.makeDatabase(kind, in: directory)

        // UNIQUE, through a record: the whole write transaction rolls back.
        let unique = try #require(throws: DatabaseError.self) {
            try writer.write { db in
                var ok = Player(email: "barbara@example.com", name: "Barbara", score: 1)
                try ok.insert(db)
                var taken = Player(email: "arthur@example.com", name: "Other", score: 1)
                try taken.insert(db)
            }
        }
        Self.show("unique", unique)
        #expect(unique.isUniqueConstraintViolation && unique.isConstraintViolation)
        #expect(unique.resultCode == .SQLITE_CONSTRAINT)
        #expect(unique.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        #expect(unique.message == "UNIQUE constraint failed: player.email")
        #expect(unique.sql == #"INSERT INTO "player" ("id", "email", "name", "score", "teamId") VALUES (?, ?, ?, ?, ?)"#)
        #expect(unique.description
            == #"SQLite error 2067: UNIQUE constraint failed: player.email — while executing `INSERT INTO "player" ("id", "email", "name", "score", "teamId") VALUES (?, ?, ?, ?, ?)`"#)
        #expect(unique.arguments == nil)
        #expect(try writer.read { db in try Player.fetchCount(db) } == 1)  // Barbara was rolled back too

        // PRIMARY KEY: also a unique constraint violation.
        let primaryKey = try #require(throws: DatabaseError.self) {
            try writer.write { db in try db.execute(sql: "INSERT INTO team (id, name) VALUES (1, 'Blue')") }
        }
        Self.show("primary key", primaryKey)
        #expect(primaryKey.isUniqueConstraintViolation)
        #expect(primaryKey.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
        #expect(primaryKey.description
            == "SQLite error 1555: UNIQUE constraint failed: team.id — while executing `INSERT INTO team (id, name) VALUES (1, 'Blue')`")

        // NOT NULL.
        let notNull = try #require(throws: DatabaseError.self) {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO player (email, name, score) VALUES (?, ?, ?)", arguments: ["b@example.com", nil, 1])
            }
        }
        Self.show("not null", notNull)
        #expect(notNull.isNotNullConstraintViolation && !notNull.isUniqueConstraintViolation)
        #expect(notNull.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL)
        #expect(notNull.description
            == "SQLite error 1299: NOT NULL constraint failed: player.name — while executing `INSERT INTO player (email, name, score) VALUES (?, ?, ?)`")

        // CHECK: the message quotes the check expression (or the constraint's name).
        let check = try #require(throws: DatabaseError.self) {
            try writer.write { db in
                var player = try #require(try Player.fetchOne(db, key: 1))
                player.score = -5
                try player.update(db)
            }
        }
        Self.show("check", check)
        #expect(check.isCheckConstraintViolation)
        #expect(check.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)
        #expect(check.message == "CHECK constraint failed: score >= 0")
        #expect(check.description
            == #"SQLite error 275: CHECK constraint failed: score >= 0 — while executing `UPDATE "player" SET "email" = ?, "name" = ?, "score" = ?, "teamId" = ? WHERE "id" = ?`"#)

        // A named CHECK constraint is reported by its name.
        let named = try #require(throws: DatabaseError.self) {
            try writer.write { db in
                try db.execute(sql: "CREATE TABLE bonus (points INTEGER CONSTRAINT points_positive CHECK (points > 0))")
                try db.execute(sql: "INSERT INTO bonus (points) VALUES (0)")
            }
        }
        #expect(named.isCheckConstraintViolation)
        #expect(named.message == "CHECK constraint failed: points_positive")

        // FOREIGN KEY: SQLite does not say which key.
        let foreignKey = try #require(throws: DatabaseError.self) {
            try writer.write { db in
                var player = Player(email: "c@example.com", name: "C", score: 0, teamId: 99)
                try player.insert(db)
            }
        }
        Self.show("foreign key", foreignKey)
        #expect(foreignKey.isForeignKeyViolation && foreignKey.isConstraintViolation)
        #expect(foreignKey.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
        #expect(foreignKey.message == "FOREIGN KEY constraint failed")
        #expect(foreignKey.description
            == #"SQLite error 787: FOREIGN KEY constraint failed — while executing `INSERT INTO "player" ("id", "email", "name", "score", "teamId") VALUES (?, ?, ?, ?, ?)`"#)

        // A switch on the extended code, as the article shows.
        func category(of error: DatabaseError) -> String {
            switch error.extendedResultCode {
            case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY: return "duplicate"
            case .SQLITE_CONSTRAINT_FOREIGNKEY: return "missing parent"
            case .SQLITE_CONSTRAINT: return "other constraint"
            default: return "other"
            }
        }
        #expect([unique, primaryKey, notNull, check, foreignKey].map(category) == [
            "duplicate", "duplicate", "other constraint", "other constraint", "missing parent",
        ])
        // The article's category test, which reads the same on PostgreSQL.
        func isDuplicate(_ error: DatabaseError) -> Bool {
            error.categories.contains(.uniqueConstraintViolation)
        }
        #expect([unique, primaryKey, notNull, check, foreignKey].map(isDuplicate) == [true, true, false, false, false])
        // Nothing was written by the failed transactions, and the database is usable.
        try writer.write { db in
            var player = Player(email: "barbara@example.com", name: "Barbara", score: 1)
            try player.insert(db)
        }
        #expect(try writer.read { db in try Player.fetchCount(db) } == 2)
    }

    // MARK: - Busy

    @Test func busyTimeoutBetweenTwoQueues() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.busyTimeout = .milliseconds(100)
        let first = try DatabaseQueue(path: directory.path(), configuration: configuration)
        let second = try DatabaseQueue(path: directory.path(), configuration: configuration)
        try first.write { db in try db.execute(sql: "CREATE TABLE t (a)") }

        // `first` holds the write lock (an immediate transaction) while `second` tries to write.
        let clock = ContinuousClock()
        try first.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            let start = clock.now
            let busy = try #require(throws: DatabaseError.self) {
                try second.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            }
            let waited = clock.now - start
            Self.show("busy write", busy)
            #expect(busy.isBusy)
            #expect(busy.resultCode == .SQLITE_BUSY)
            #expect(busy.description == "SQLite error 5: database is locked — while executing `BEGIN IMMEDIATE TRANSACTION`")
            // SQLite's busy handler sleeps for the whole timeout before it gives up.
            #expect(waited >= .milliseconds(100))
        }

        // An exclusive transaction (rollback journal) also keeps readers out.
        // A connection that has not read the schema since the table was
        // created cannot reload it under the lock, and does not see the table.
        try first.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
            defer { try? db.execute(sql: "ROLLBACK") }
            let stale = try #require(throws: DatabaseError.self) {
                try second.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            }
            Self.show("busy stale schema", stale)
            #expect(stale.description == "SQLite error 1: no such table: t — while executing `SELECT count(*) FROM t`")
        }
        #expect(try second.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 1)
        try first.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
            defer { try? db.execute(sql: "ROLLBACK") }
            let busy = try #require(throws: DatabaseError.self) {
                try second.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            }
            Self.show("busy read", busy)
            #expect(busy.isBusy)
            #expect(busy.description == "SQLite error 5: database is locked — while executing `SELECT count(*) FROM t`")
        }

        // Once the lock is released, the same writes succeed.
        try second.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try first.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") } == [1, 2])
    }

    @Test func busyTimeoutBetweenQueueAndPool() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.busyTimeout = nil  // fail at once
        let pool = try DatabasePool(path: directory.path(), configuration: configuration)
        try pool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        let queue = try DatabaseQueue(path: directory.path(), configuration: configuration)

        try queue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            let busy = try #require(throws: DatabaseError.self) {
                try pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
            }
            Self.show("busy pool write", busy)
            #expect(busy.isBusy)
            #expect(busy.description == "SQLite error 5: database is locked — while executing `BEGIN IMMEDIATE TRANSACTION`")
            // In WAL mode the pool's readers are not blocked: they see the last commit.
            #expect(try pool.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") } == [1])
        }
        try pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try pool.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") } == [1, 2, 3])
    }

    // MARK: - Records not found and keys

    @Test func recordNotFound() throws {
        let directory = try TemporaryDirectory()
        let writer = try Self.makeDatabase(.queue, in: directory)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE membership (playerId INTEGER, teamId INTEGER, PRIMARY KEY (playerId, teamId))")

            // fetchOne returns nil; find throws.
            #expect(try Player.fetchOne(db, key: 42) == nil)
            let notFound = try #require(throws: RecordError.self) { _ = try Player.find(db, key: 42) }
            Self.show("find", notFound)
            #expect(notFound == .recordNotFound(databaseTableName: "player", key: ["id": 42]))
            #expect(notFound.description == #"record not found in table "player" with key [id: 42]"#)
            let byEmail = try #require(throws: RecordError.self) {
                _ = try Player.find(db, key: ["email": "nobody@example.com"])
            }
            #expect(byEmail.description == #"record not found in table "player" with key [email: 'nobody@example.com']"#)
            #expect(try Player.find(db, key: 1).name == "Arthur")
            #expect(try Player.find(db, key: ["email": "arthur@example.com"]).id == 1)

            // update of a deleted row.
            let ghost = Player(id: 42, email: "ghost@example.com", name: "Ghost", score: 0)
            let update = try #require(throws: RecordError.self) { try ghost.update(db) }
            Self.show("update", update)
            #expect(update.description == #"record not found in table "player" with key [id: 42]"#)
            let updateAndFetch = try #require(throws: RecordError.self) { _ = try ghost.updateAndFetch(db) }
            #expect(updateAndFetch == .recordNotFound(databaseTableName: "player", key: ["id": 42]))
            // delete reports it by its result instead.
            #expect(try ghost.delete(db) == false)

            // update of a record that was never inserted (no primary key).
            let unsaved = Player(id: nil, email: "new@example.com", name: "New", score: 0)
            let missingKey = try #require(throws: RecordError.self) { try unsaved.update(db) }
            Self.show("update without id", missingKey)
            #expect(missingKey.description == #"record not found in table "player" with key [id: NULL]"#)

            // Keys that cannot identify one row.
            let notUnique = try #require(throws: RecordError.self) { _ = try Player.fetchOne(db, key: ["name": "Arthur"]) }
            Self.show("not unique", notUnique)
            #expect(notUnique.description == #"columns "name" of table "player" are not the primary key nor a unique index"#)
            struct Membership: Codable, FetchableRecord, TableRecord {
                var playerId: Int64
                var teamId: Int64
                static let databaseTableName = "membership"
            }
            let composite = try #require(throws: RecordError.self) { _ = try Membership.find(db, key: 1) }
            Self.show("composite", composite)
            #expect(composite.description == #"invalid key for table "membership": the primary key has 2 columns (playerId, teamId); use a key dictionary such as ["playerId": …, "teamId": …]"#)
        }
    }

    // MARK: - Decoding

    @Test func decodingErrors() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: Self.schema)
            try db.execute(sql: "CREATE TABLE customer (id INTEGER PRIMARY KEY, address TEXT, formerAddress TEXT)")

            // A column missing from the selection.
            let missing = try #require(throws: RowDecodingError.self) {
                _ = try Player.fetchAll(db, sql: "SELECT id, name FROM player")
            }
            Self.show("missing column", missing)
            #expect(missing.reason == .columnNotFound)
            #expect(missing.column == "email" && missing.recordType == "Player" && missing.expectedType == "String")
            #expect(missing.availableColumns == ["id", "name"])
            #expect(missing.description
                == #"cannot decode String for Player from column "email": no such column (the row has "id", "name") — in `SELECT id, name FROM player`"#)

            // A value of the wrong type.
            try db.execute(sql: "UPDATE player SET score = 'high' WHERE id = 1")  // no STRICT table: SQLite accepts it
            let mismatch = try #require(throws: RowDecodingError.self) { _ = try Player.find(db, key: 1) }
            Self.show("value mismatch", mismatch)
            #expect(mismatch.reason == .valueMismatch(.text("high")))
            #expect(mismatch.description
                == #"cannot decode Int for Player from column "score": found text 'high' — in `SELECT * FROM "player" WHERE "id" = ?`"#)

            // NULL in a non-optional property.
            try db.execute(sql: "CREATE TABLE loose (id INTEGER PRIMARY KEY, email TEXT, name TEXT, score INTEGER, teamId INTEGER)")
            try db.execute(sql: "INSERT INTO loose (id, email, name, score) VALUES (1, 'x@example.com', NULL, 0)")
            let null = try #require(throws: RowDecodingError.self) {
                _ = try Player.fetchAll(db, sql: "SELECT * FROM loose")
            }
            Self.show("unexpected null", null)
            #expect(null.reason == .unexpectedNull)
            #expect(null.description == #"cannot decode String for Player from column "name": found NULL — in `SELECT * FROM loose`"#)

            // Plain values and rows: the column, the type and the SQL, no record.
            let value = try #require(throws: RowDecodingError.self) {
                _ = try Int.fetchOne(db, sql: "SELECT name FROM player")
            }
            Self.show("value", value)
            #expect(value.recordType == nil)
            #expect(value.description == #"cannot decode Int from column "name": found text 'Arthur' — in `SELECT name FROM player`"#)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT teamId FROM loose"))
            let rowError = try #require(throws: RowDecodingError.self) { let _: Int64 = try row["teamId"] }
            Self.show("row", rowError)
            #expect(rowError.description == #"cannot decode Int64 from column "teamId": found NULL"#)

            // JSON that does not decode.
            try db.execute(sql: #"INSERT INTO customer (id, address) VALUES (1, '{"town":"Paris"}')"#)
            let json = try #require(throws: RowDecodingError.self) { _ = try Customer.fetchAll(db) }
            Self.show("json", json)
            #expect(json.column == "address" && json.recordType == "Customer")
            // The text in parentheses is Foundation's JSONDecoder's.
            #expect(json.description
                == #"cannot decode Address for Customer from column "address": invalid JSON: '{"town":"Paris"}' (No value associated with key CodingKeys(stringValue: "city", intValue: nil) ("city").) — in `SELECT * FROM "customer"`"#)
        }
    }

    // MARK: - Key paths

    @Test func keyPathErrors() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: Self.schema)
            try db.execute(sql: "CREATE TABLE customer (id INTEGER PRIMARY KEY, address TEXT, formerAddress TEXT)")
            let computed = try #require(throws: KeyPathColumnError.self) {
                _ = try Player.filter(\.label == "Arthur (100)").fetchAll(db)
            }
            Self.show("computed", computed)
            #expect(computed.recordType == "Player")
            // Swift does not know the name of a computed property's key path.
            #expect(computed.keyPath == #"\Player.<computed property of type String>"#)
            #expect(computed.description
                == #"\Player.<computed property of type String> does not name a column of Player: it is a computed property"#)

            // A path into a nested value reads its JSON member; one through
            // an optional (`?.`) is refused with the reason.
            #expect(try Customer.filter(\.address.city == "Paris").fetchAll(db).isEmpty)
            let nested = try #require(throws: KeyPathColumnError.self) {
                _ = try Customer.filter(\.formerAddress?.city == "Paris").fetchAll(db)
            }
            Self.show("nested", nested)
            #expect(nested.description.contains("does not name a column of Customer"))
            // The value stored as JSON is a column.
            #expect(try Customer.order(\.address).fetchAll(db).isEmpty)
        }
    }

    // MARK: - Migrations

    @Test func migrationFailures() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path())
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createTeam") { db in
            try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        migrator.registerMigration("createPlayer") { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id))")
            try db.execute(sql: "ALTER TABLE players ADD COLUMN email TEXT")  // typo: no such table
        }

        // A migration that throws: rolled back, named, earlier ones applied.
        let failed = try #require(throws: MigrationError.self) { try migrator.migrate(queue) }
        Self.show("migration failed", failed)
        #expect(failed.migration == "createPlayer")
        #expect(failed.description
            == #"migration "createPlayer" failed and was rolled back: SQLite error 1: no such table: players — while executing `ALTER TABLE players ADD COLUMN email TEXT`"#)
        guard case .migrationFailed(_, let underlying) = failed else {
            Issue.record("expected migrationFailed, got \(failed)")
            return
        }
        #expect((underlying as? DatabaseError)?.resultCode == .SQLITE_ERROR)
        try queue.read { db throws in
            #expect(try migrator.appliedMigrations(db) == ["createTeam"])
            #expect(try !db.tableExists("player"))  // the CREATE TABLE of the failed migration is undone
        }

        // Foreign keys checked at the end of a migration.
        var fixed = DatabaseMigrator()
        fixed.registerMigration("createTeam") { db in
            try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        fixed.registerMigration("createPlayer", foreignKeyChecks: .deferred) { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id))")
            try db.execute(sql: "INSERT INTO player (id, teamId) VALUES (7, 99)")
        }
        let orphans = try #require(throws: MigrationError.self) { try fixed.migrate(queue) }
        Self.show("foreign key violations", orphans)
        #expect(orphans.description
            == #"migration "createPlayer" was rolled back because it leaves foreign key violations: row 7 of "player" refers to a missing row of "team""#)
        guard case .foreignKeyViolations(_, let violations) = orphans else {
            Issue.record("expected foreignKeyViolations, got \(orphans)")
            return
        }
        #expect(violations == [ForeignKeyViolation(originTable: "player", originRowID: 7, destinationTable: "team", foreignKeyID: 0)])

        // With immediate checks the statement itself fails.
        var immediate = DatabaseMigrator()
        immediate.registerMigration("createTeam") { _ in }
        immediate.registerMigration("createPlayer", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id))")
            try db.execute(sql: "INSERT INTO player (id, teamId) VALUES (7, 99)")
        }
        let statement = try #require(throws: MigrationError.self) { try immediate.migrate(queue) }
        Self.show("foreign key in migration", statement)
        #expect(statement.description
            == #"migration "createPlayer" failed and was rolled back: SQLite error 787: FOREIGN KEY constraint failed — while executing `INSERT INTO player (id, teamId) VALUES (7, 99)`"#)

        // A database migrated by a newer version of the application.
        var newer = DatabaseMigrator()
        newer.registerMigration("createTeam") { _ in }
        newer.registerMigration("createPlayer") { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id))")
        }
        newer.registerMigration("addPlayerEmail") { db in
            try db.execute(sql: "ALTER TABLE player ADD COLUMN email TEXT")
        }
        try newer.migrate(queue)
        var older = DatabaseMigrator()
        older.registerMigration("createTeam") { _ in }
        older.registerMigration("createPlayer") { _ in }
        let unknown = try #require(throws: MigrationError.self) { try older.migrate(queue) }
        Self.show("unknown migrations", unknown)
        #expect(unknown.migration == nil)
        #expect(unknown.description
            == #"the database was migrated by a newer version of the application: it records migrations this version does not know ("addPlayerEmail"). Set DatabaseMigrator.unknownMigrationPolicy to .proceed to open it anyway."#)
        older.unknownMigrationPolicy = .proceed
        try older.migrate(queue)

        // Registration mistakes.
        var duplicate = DatabaseMigrator()
        duplicate.registerMigration("createTeam") { _ in }
        duplicate.registerMigration("createTeam") { _ in }
        let twice = try #require(throws: MigrationError.self) { try duplicate.migrate(queue) }
        #expect(twice.description == #"the migration "createTeam" is registered twice"#)
        let unregistered = try #require(throws: MigrationError.self) { try newer.migrate(queue, upTo: "addTeamColor") }
        #expect(unregistered.description == #"no migration named "addTeamColor" is registered"#)
    }

    // MARK: - Read-only

    @Test func readOnly() throws {
        let directory = try TemporaryDirectory()
        do {
            let queue = try DatabaseQueue(path: directory.path())
            try queue.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        }
        var configuration = Configuration()
        configuration.readonly = true
        let readonly = try DatabaseQueue(path: directory.path(), configuration: configuration)
        let write = try #require(throws: DatabaseError.self) {
            try readonly.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        Self.show("readonly", write)
        #expect(write.isReadOnly)
        #expect(write.resultCode == .SQLITE_READONLY)
        #expect(write.description == "SQLite error 8: attempt to write a readonly database — while executing `INSERT INTO t VALUES (2)`")
        #expect(try readonly.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") } == [1])

        // A read-only pool on a WAL file refuses writes the same way.
        do {
            let pool = try DatabasePool(path: directory.path("wal.sqlite"))
            try pool.write { db in try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)") }
        }
        let readonlyPool = try DatabasePool(path: directory.path("wal.sqlite"), configuration: configuration)
        let poolWrite = try #require(throws: DatabaseError.self) {
            try readonlyPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        Self.show("readonly pool", poolWrite)
        #expect(poolWrite.isReadOnly)
        #expect(poolWrite.description == write.description)
        #expect(try readonlyPool.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t") } == [1])

        // A write inside a read access.
        let queue = try DatabaseQueue(path: directory.path())
        let inRead = try #require(throws: DatabaseError.self) {
            try queue.read { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        Self.show("write in read", inRead)
        #expect(inRead.isReadOnly)
        #expect(inRead.description == "SQLite error 8: attempt to write a readonly database — while executing `INSERT INTO t VALUES (2)`")

        // A read-only database that does not exist cannot be created.
        let absent = try #require(throws: DatabaseError.self) {
            _ = try DatabaseQueue(path: directory.path("absent.sqlite"), configuration: configuration)
        }
        Self.show("readonly absent", absent)
        #expect(absent.resultCode == .SQLITE_CANTOPEN)
        #expect(absent.description == "SQLite error 14: could not open database at \(directory.path("absent.sqlite")): unable to open database file")
    }

    // MARK: - Disk full

    @Test(arguments: WriterKind.allCases)
    func diskFull(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        // A database of at most 16 pages of 4 KiB stands for a full disk.
        configuration.prepareDatabase = { db in try db.execute(sql: "PRAGMA max_page_count = 16") }
        let writer = try kind.make(in: directory, configuration: configuration)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
            try db.execute(sql: "INSERT INTO item (payload) VALUES (zeroblob(100))")
        }

        // One transaction inserts rows until the database cannot grow.
        let deadline = ContinuousClock.now + .seconds(30)
        var inserted = 0
        let full = try #require(throws: DatabaseError.self) {
            try writer.write { db in
                while inserted < 10_000, ContinuousClock.now < deadline {
                    try db.execute(sql: "INSERT INTO item (payload) VALUES (zeroblob(1000))")
                    inserted += 1
                }
            }
        }
        Self.show("disk full", full)
        #expect(inserted > 0 && inserted < 10_000)
        #expect(full.isDiskFull)
        #expect(full.resultCode == .SQLITE_FULL)
        #expect(full.description == "SQLite error 13: database or disk is full — while executing `INSERT INTO item (payload) VALUES (zeroblob(1000))`")

        // The transaction was rolled back, and the database stays usable.
        try writer.read { db throws in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM item") == 1)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
        }
        try writer.write { db in try db.execute(sql: "INSERT INTO item (payload) VALUES (zeroblob(1000))") }
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 2)

        // Caught inside the write closure, SQLITE_FULL has already rolled the
        // transaction back: a write run after the rollback is refused (it would
        // run outside the transaction, committed on its own), and says why.
        var caught: DatabaseError?
        let endedEarly = try #require(throws: DatabaseError.self) {
            try writer.write { db in
                do {
                    for _ in 0..<10_000 where ContinuousClock.now < deadline {
                        try db.execute(sql: "INSERT INTO item (payload) VALUES (zeroblob(1000))")
                    }
                } catch let error as DatabaseError where error.isDiskFull {
                    caught = error
                }
                #expect(!db.isInsideTransaction)
                try db.execute(sql: "INSERT INTO item (payload) VALUES (zeroblob(10))")
            }
        }
        Self.show("transaction ended early", endedEarly)
        #expect(caught?.isDiskFull == true)
        #expect(endedEarly.resultCode == .SQLITE_ABORT)
        #expect(endedEarly.sql == "INSERT INTO item (payload) VALUES (zeroblob(10))")
        #expect(endedEarly.description == "SQLite error 4: the transaction was rolled back before its closure returned (by SQLite itself after an error such as SQLITE_FULL, SQLITE_IOERR or SQLITE_BUSY, even when the closure catches it, or by a ROLLBACK); this write would run outside of it, each statement committed on its own, so it is refused — while executing `INSERT INTO item (payload) VALUES (zeroblob(10))`")
        #expect(try writer.read { db in try Int.fetchAll(db, sql: "SELECT length(payload) FROM item ORDER BY id") } == [100, 1000])

        // The same inside a savepoint (a nested inTransaction).
        let inSavepoint = try #require(throws: DatabaseError.self) {
            try writer.write { db in
                try db.inTransaction {
                    do {
                        for _ in 0..<10_000 where ContinuousClock.now < deadline {
                            try db.execute(sql: "INSERT INTO item (payload) VALUES (zeroblob(1000))")
                        }
                    } catch let error as DatabaseError where error.isDiskFull {}
                    return .commit
                }
            }
        }
        #expect(inSavepoint.resultCode == .SQLITE_ABORT)
        #expect(inSavepoint.sql == nil)
        #expect(inSavepoint.message.hasPrefix("the transaction was rolled back before its closure returned, so it cannot commit"))
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 2)
    }

    // MARK: - Misuse

    @Test func misuse() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let queue = try DatabaseQueue(path: path)

        // Nested access to the same database on one thread.
        let reentrant = try #require(throws: DatabaseError.self) {
            try queue.write { _ in try queue.read { _ in } }
        }
        Self.show("reentrant", reentrant)
        #expect(reentrant.isMisuse)
        #expect(reentrant.description == "SQLite error 21: reentrant database access: this thread already uses DatabaseQueue at \(path); use the Database value you already have instead of nesting read or write calls")

        // Two statements where one is expected.
        let twoStatements = try #require(throws: DatabaseError.self) {
            try queue.read { db in _ = try db.makeStatement(sql: "SELECT 1; SELECT 2") }
        }
        #expect(twoStatements.isMisuse)
        #expect(twoStatements.description == "SQLite error 21: makeStatement(sql:) takes a single statement; use execute(sql:) for several — while executing `SELECT 1; SELECT 2`")

        // A closed database.
        queue.close()
        let closed = try #require(throws: DatabaseError.self) { try queue.read { _ in } }
        Self.show("closed", closed)
        #expect(closed.isMisuse)
        #expect(closed.description == "SQLite error 21: DatabaseQueue at \(path) is closed")
        let pool = try DatabasePool(path: path)
        pool.close()
        let closedPool = try #require(throws: DatabaseError.self) { try pool.write { _ in } }
        #expect(closedPool.description == "SQLite error 21: the writer of DatabasePool at \(path) is closed")

        // A pool needs a file.
        let inMemory = try #require(throws: DatabaseError.self) { _ = try DatabasePool(path: ":memory:") }
        Self.show("pool in memory", inMemory)
        #expect(inMemory.isMisuse)
        #expect(inMemory.description == "SQLite error 21: DatabasePool needs a database file (WAL mode); use DatabaseQueue for :memory:")
    }

    // MARK: - SQL and arguments

    @Test func sqlErrors() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a)")
            let syntax = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELEC a FROM t") }
            Self.show("syntax", syntax)
            #expect(syntax.resultCode == .SQLITE_ERROR && syntax.extendedResultCode == .SQLITE_ERROR)
            #expect(syntax.message == #"near "SELEC": syntax error"#)
            #expect(syntax.sql == "SELEC a FROM t")
            #expect(syntax.description == #"SQLite error 1: near "SELEC": syntax error — while executing `SELEC a FROM t`"#)

            let table = try #require(throws: DatabaseError.self) { _ = try Row.fetchAll(db, sql: "SELECT * FROM missing") }
            #expect(table.description == "SQLite error 1: no such table: missing — while executing `SELECT * FROM missing`")
            let column = try #require(throws: DatabaseError.self) { _ = try Row.fetchAll(db, sql: "SELECT b FROM t") }
            #expect(column.description == "SQLite error 1: no such column: b — while executing `SELECT b FROM t`")
        }
    }

    @Test func argumentErrors() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b)")
            let tooMany = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t (a) VALUES (?)", arguments: [1, 2])
            }
            Self.show("too many", tooMany)
            #expect(tooMany.isMisuse)
            #expect(tooMany.description == "SQLite error 21: wrong number of statement arguments: 2 given, 1 used — while executing `INSERT INTO t (a) VALUES (?)`")
            let tooFew = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t (a, b) VALUES (?, ?)", arguments: [1])
            }
            Self.show("too few", tooFew)
            #expect(tooFew.description == "SQLite error 21: wrong number of statement arguments: 1 given, more are needed — while executing `INSERT INTO t (a, b) VALUES (?, ?)`")
            let named = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t (a, b) VALUES (:a, :b)", arguments: ["a": 1])
            }
            Self.show("named", named)
            #expect(named.description == "SQLite error 21: missing statement argument for parameter :b — while executing `INSERT INTO t (a, b) VALUES (:a, :b)`")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 0)
        }
    }

    /// Statement arguments stay out of errors, unless the configuration makes them public.
    @Test(arguments: WriterKind.allCases)
    func argumentsInErrors(kind: WriterKind) throws {
        for isPublic in [false, true] {
            let directory = try TemporaryDirectory()
            var configuration = Configuration()
            configuration.publicStatementArguments = isPublic
            let writer = try Self.makeDatabase(kind, in: directory, configuration: configuration)
            let raw = try #require(throws: DatabaseError.self) {
                try writer.write { db in
                    try db.execute(sql: "INSERT INTO player (email, name, score) VALUES (?, ?, ?)",
                                   arguments: ["arthur@example.com", "Secret", 1])
                }
            }
            let record = try #require(throws: DatabaseError.self) {
                try writer.write { db in
                    var player = Player(email: "arthur@example.com", name: "Secret", score: 1)
                    try player.insert(db)
                }
            }
            Self.show("arguments public=\(isPublic)", raw)
            Self.show("record arguments public=\(isPublic)", record)
            if isPublic {
                // A statement reused from the cache reports the values of its last execution.
                let again = try #require(throws: DatabaseError.self) {
                    try writer.write { db in
                        var player = Player(email: "arthur@example.com", name: "Other", score: 2)
                        try player.insert(db)
                    }
                }
                #expect(again.arguments == [nil, "arthur@example.com", "Other", 2, nil])
                #expect(raw.arguments == ["arthur@example.com", "Secret", 1])
                #expect(raw.description
                    == "SQLite error 2067: UNIQUE constraint failed: player.email — while executing `INSERT INTO player (email, name, score) VALUES (?, ?, ?)` with arguments ['arthur@example.com', 'Secret', 1]")
                #expect(record.arguments == [nil, "arthur@example.com", "Secret", 1, nil])
                #expect(record.description
                    == #"SQLite error 2067: UNIQUE constraint failed: player.email — while executing `INSERT INTO "player" ("id", "email", "name", "score", "teamId") VALUES (?, ?, ?, ?, ?)` with arguments [NULL, 'arthur@example.com', 'Secret', 1, NULL]"#)
            } else {
                #expect(raw.arguments == nil && record.arguments == nil)
                for error in [raw, record] {
                    #expect(!error.description.contains("arthur") && !error.description.contains("Secret"))
                }
            }
        }
    }

    // MARK: - The article's handling code

    /// Registers a player; false when the email is taken (as in the article).
    static func register(email: String, name: String, in dbQueue: DatabaseQueue) throws -> Bool {
        do {
            try dbQueue.write { db in
                var player = Player(email: email, name: name, score: 0)
                try player.insert(db)
            }
            return true
        } catch let error as DatabaseError where error.isUniqueConstraintViolation {
            return false
        }
    }

    /// Runs a write, retrying it when another process holds the lock (as in the article).
    static func writeRetryingWhenBusy<T>(
        _ writer: any DatabaseWriter, attempts: Int = 3, _ body: (Database) throws -> T
    ) throws -> T {
        var attempt = 1
        while true {
            do {
                return try writer.write(body)
            } catch let error as DatabaseError where error.isBusy && attempt < attempts {
                attempt += 1
            }
        }
    }

    @Test func articleHandlingCode() throws {
        let directory = try TemporaryDirectory()
        let queue = try #require(try Self.makeDatabase(.queue, in: directory) as? DatabaseQueue)
        #expect(try Self.register(email: "barbara@example.com", name: "Barbara", in: queue))
        #expect(try !Self.register(email: "barbara@example.com", name: "Other", in: queue))
        // Other errors go through.
        let missingTable = try #require(throws: DatabaseError.self) {
            _ = try Self.register(email: "c@example.com", name: "C", in: try DatabaseQueue())
        }
        #expect(missingTable.description.hasPrefix("SQLite error 1: no such table: player"))

        // The retry gives up after its attempts while the lock is held, and
        // succeeds once it is free. The log counts the attempts.
        let handler = CapturingLogHandler()
        var configuration = Configuration()
        configuration.busyTimeout = nil
        configuration.logger = Logger(label: "sql") { _ in handler }
        let other = try DatabaseQueue(path: directory.path(), configuration: configuration)
        try queue.write { _ in
            let busy = try #require(throws: DatabaseError.self) {
                try Self.writeRetryingWhenBusy(other) { db in try Player.fetchCount(db) }
            }
            #expect(busy.isBusy)
        }
        #expect(handler.messages.filter { $0.1 == "BEGIN IMMEDIATE TRANSACTION" }.count == 3)
        #expect(try Self.writeRetryingWhenBusy(other) { db in try Player.fetchCount(db) } == 2)
    }

    // MARK: - Predicates

    /// Each predicate matches its primary code and the extended codes of it, and nothing else.
    @Test func predicatesMatchTheirCodes() {
        let codes: [ResultCode] = [
            .SQLITE_BUSY, .SQLITE_BUSY_SNAPSHOT, .SQLITE_BUSY_TIMEOUT, .SQLITE_LOCKED, .SQLITE_READONLY,
            .SQLITE_READONLY_DBMOVED, .SQLITE_FULL, .SQLITE_MISUSE, .SQLITE_ERROR, .SQLITE_CONSTRAINT_UNIQUE,
            .SQLITE_IOERR, .SQLITE_CANTOPEN,
        ]
        func matching(_ predicate: (DatabaseError) -> Bool) -> [ResultCode] {
            codes.filter { predicate(DatabaseError(resultCode: $0, message: "m")) }
        }
        #expect(matching(\.isBusy) == [.SQLITE_BUSY, .SQLITE_BUSY_SNAPSHOT, .SQLITE_BUSY_TIMEOUT])
        #expect(matching(\.isReadOnly) == [.SQLITE_READONLY, .SQLITE_READONLY_DBMOVED])
        #expect(matching(\.isDiskFull) == [.SQLITE_FULL])
        #expect(matching(\.isMisuse) == [.SQLITE_MISUSE])
        #expect(matching(\.isConstraintViolation) == [.SQLITE_CONSTRAINT_UNIQUE])
    }

    // MARK: - Opening

    @Test func openingErrors() throws {
        let directory = try TemporaryDirectory()
        let noDirectory = directory.path("missing/db.sqlite")
        let cantOpen = try #require(throws: DatabaseError.self) { _ = try DatabaseQueue(path: noDirectory) }
        Self.show("cant open", cantOpen)
        #expect(cantOpen.resultCode == .SQLITE_CANTOPEN)
        #expect(cantOpen.description == "SQLite error 14: could not open database at \(noDirectory): unable to open database file")

        let garbage = directory.path("notes.txt")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: garbage))
        for open in [{ _ = try DatabaseQueue(path: garbage) }, { _ = try DatabasePool(path: garbage) }] as [() throws -> Void] {
            let notADatabase = try #require(throws: DatabaseError.self) { try open() }
            Self.show("not a database", notADatabase)
            #expect(notADatabase.resultCode == .SQLITE_NOTADB)
            #expect(notADatabase.description == "SQLite error 26: could not open database at \(garbage): file is not a database — while executing `SELECT count(*) FROM sqlite_master`")
            #expect(notADatabase.isCorrupt)
        }

        let uri = "file:\(directory.path())?vfs=unix-none"
        let uriRefused = try #require(throws: DatabaseError.self) { _ = try DatabasePool(path: uri) }
        Self.show("uri refused", uriRefused)
        #expect(uriRefused.description == "SQLite error 14: could not open database at \(uri): a path that begins with \"file:\" is a URI filename, which Configuration.acceptsURIFilenames must allow")
    }

    /// A page of a live database overwritten behind the connection's back.
    @Test func damagedFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let queue = try DatabaseQueue(path: path)
        try fillItemsSpanningPages(queue)
        try damagePageTwo(of: path)
        let corrupt = try #require(throws: DatabaseError.self) {
            try queue.read { db in try Int.fetchOne(db, sql: "SELECT sum(length(payload)) FROM item") }
        }
        Self.show("corrupt", corrupt)
        #expect(corrupt.isCorrupt)
        #expect(corrupt.description == "SQLite error 11: database disk image is malformed — while executing `SELECT sum(length(payload)) FROM item`")
    }
}
