// Configuration options of issue 36: `synchronous`, `acceptsUntrustedFiles`
// and `acceptsURIFilenames`, each read back from the connections or shown by
// what it lets through and what it refuses; and the durable default of issue
// 46 (`synchronous = EXTRA` in every journal mode).

import Foundation
import Quarry
import Testing

@Suite("Configuration: durability and untrusted files")
struct ConfigurationTests {
    @Test("synchronous is set on every connection, EXTRA by default", arguments: WriterKind.allCases)
    func synchronousOnEveryConnection(kind: WriterKind) throws {
        let expected: [SynchronousMode: Int] = [.off: 0, .normal: 1, .full: 2, .extra: 3]
        #expect(Configuration().synchronous == .extra)
        for mode in SynchronousMode.allCases {
            let directory = try TemporaryDirectory()
            var configuration = Configuration()
            configuration.synchronous = mode
            let writer = try kind.make(in: directory, configuration: configuration)
            #expect(try writer.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == expected[mode])
            // A pool's reader connections too.
            #expect(try writer.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == expected[mode])
        }
    }

    /// The journal modes Quarry uses by default or on request, with the
    /// writer that uses them: `DELETE` (a new queue's file), `TRUNCATE` and
    /// `PERSIST` (asked of a queue), `WAL` (a pool, or asked of a queue).
    static let durableJournalModes: [(JournalMode?, WriterKind)] = [
        (nil, .queue), (.truncate, .queue), (.persist, .queue), (.wal, .queue), (nil, .pool),
    ]

    @Test("The default configuration syncs as EXTRA in every journal mode, and keeps the file's journal mode",
          arguments: durableJournalModes)
    func defaultSynchronousIsDurable(journalMode: JournalMode?, kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.journalMode = journalMode
        let writer = try kind.make(in: directory, configuration: configuration)
        let expectedMode = (journalMode ?? (kind == .pool ? .wal : .delete)).rawValue.lowercased()
        #expect(try writer.write { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == expectedMode)
        // 3 is EXTRA: in DELETE mode, the journal's deletion is synced too.
        #expect(try writer.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 3)
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 3)
        try writer.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        if let queue = writer as? DatabaseQueue { queue.close() }
        if let pool = writer as? DatabasePool { pool.close() }

        // Reopened with the default configuration (no journal mode asked),
        // the file keeps its persistent mode, and a rollback journal goes
        // back to SQLite's DELETE: Quarry changes neither.
        let reopened = try kind.open(path: directory.path())
        let persistentMode = journalMode == .wal || kind == .pool ? "wal" : "delete"
        #expect(try reopened.write { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == persistentMode)
        #expect(try reopened.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 3)
    }

    @Test("A path that begins with file: is refused unless URI filenames are accepted")
    func uriFilenamesRefusedByDefault() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let uri = "file:\(path)?mode=rwc"
        let error = try #require(throws: DatabaseError.self) { try DatabaseQueue(path: uri) }
        #expect(error.resultCode == .SQLITE_CANTOPEN)
        #expect(error.message.contains("acceptsURIFilenames"))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: DatabaseError.self) { try DatabasePool(path: uri) }
    }

    @Test("With acceptsURIFilenames, the URI's parameters apply")
    func uriFilenamesWhenAsked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        var configuration = Configuration()
        configuration.acceptsURIFilenames = true
        let readOnly = try DatabaseQueue(path: "file:\(path)?mode=ro", configuration: configuration)
        #expect(try readOnly.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 0)
        let error = try #require(throws: DatabaseError.self) {
            try readOnly.write { db in try db.execute(sql: "INSERT INTO item (id) VALUES (1)") }
        }
        #expect(error.isReadOnly)
    }

    @Test("A named in-memory queue needs no URI option")
    func namedInMemoryQueue() throws {
        let first = try DatabaseQueue(named: "configuration-tests-\(UUID().uuidString)")
        try first.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        #expect(first.configuration.acceptsURIFilenames == false)
    }

    /// A file written by a trusted configuration: a view and a trigger that
    /// call the application's `twice` function.
    private func fileWithSchemaCallingAppFunction(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path()
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.add(function: twice) }
        try DatabaseQueue(path: path, configuration: configuration).write { db in
            try db.execute(sql: """
                CREATE TABLE item (id INTEGER PRIMARY KEY, amount INTEGER);
                INSERT INTO item (amount) VALUES (10);
                CREATE VIEW doubled AS SELECT twice(amount) AS value FROM item;
                CREATE TABLE log (value INTEGER);
                CREATE TRIGGER logged AFTER INSERT ON item BEGIN INSERT INTO log (value) VALUES (twice(NEW.amount)); END;
                """)
        }
        return path
    }

    private let twice = DatabaseFunction("twice", argumentCount: 1, pure: true) { values in
        (Int64.fromDatabaseValue(values[0]) ?? 0) * 2
    }

    @Test("acceptsUntrustedFiles: the file's schema cannot call the application's functions")
    func untrustedSchemaCannotCallAppFunctions() throws {
        let directory = try TemporaryDirectory()
        let path = try fileWithSchemaCallingAppFunction(directory)
        var trusted = Configuration()
        trusted.prepareDatabase { db in try db.add(function: twice) }
        #expect(try DatabaseQueue(path: path, configuration: trusted).read { db in
            try Int.fetchOne(db, sql: "SELECT value FROM doubled")
        } == 20)

        var untrusted = trusted
        untrusted.acceptsUntrustedFiles = true
        let queue = try DatabaseQueue(path: path, configuration: untrusted)
        // The application's own statements still call it.
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT twice(21)") } == 42)
        let viewError = try #require(throws: DatabaseError.self) {
            try queue.read { db in try Int.fetchOne(db, sql: "SELECT value FROM doubled") }
        }
        #expect(viewError.resultCode == .SQLITE_ERROR)
        #expect(viewError.message.contains("twice"))
        let triggerError = try #require(throws: DatabaseError.self) {
            try queue.write { db in try db.execute(sql: "INSERT INTO item (amount) VALUES (20)") }
        }
        #expect(triggerError.message.contains("twice"))
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 1)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA trusted_schema") } == 0)
    }

    /// What `SQLITE_DIRECTONLY` does not cover with SQLite 3.40.1, as the
    /// documentation of `acceptsUntrustedFiles` says: a CHECK constraint of
    /// the file still calls the application's function.
    @Test("acceptsUntrustedFiles: a CHECK constraint still calls the application's function (SQLite 3.40.1)")
    func checkConstraintsStillCallAppFunctions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var trusted = Configuration()
        trusted.prepareDatabase { db in try db.add(function: twice) }
        try DatabaseQueue(path: path, configuration: trusted).write { db in
            try db.execute(sql: "CREATE TABLE checked (amount INTEGER CHECK (twice(amount) < 100))")
        }
        var untrusted = trusted
        untrusted.acceptsUntrustedFiles = true
        let queue = try DatabaseQueue(path: path, configuration: untrusted)
        try queue.write { db in try db.execute(sql: "INSERT INTO checked (amount) VALUES (10)") }
        let error = try #require(throws: DatabaseError.self) {
            try queue.write { db in try db.execute(sql: "INSERT INTO checked (amount) VALUES (60)") }
        }
        #expect(error.isCheckConstraintViolation)
    }

    /// The snippet of "Operating a database in production", section "Files
    /// you did not write", run on a file with a view that recurses forever.
    @Test("acceptsUntrustedFiles: the article's configuration opens and bounds a hostile file")
    func articleSnippetForUploadedFiles() throws {
        let directory = try TemporaryDirectory()
        let uploadedPath = directory.path("upload.sqlite")
        try DatabaseQueue(path: uploadedPath).write { db in
            try db.execute(sql: """
                CREATE TABLE item (id INTEGER PRIMARY KEY);
                CREATE VIEW forever AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n;
                """)
        }
        var config = Configuration()
        config.acceptsUntrustedFiles = true             // defensive, untrusted schema
        config.readonly = true
        config.maximumStatementDuration = .seconds(2)   // a slow view cannot hang the tool
        let upload = try DatabaseQueue(path: uploadedPath, configuration: config)

        #expect(try upload.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
        let error = try #require(throws: DatabaseError.self) {
            try upload.read { db in try Int.fetchOne(db, sql: "SELECT * FROM forever") }
        }
        #expect(error.resultCode == .SQLITE_INTERRUPT)
    }

    @Test("acceptsUntrustedFiles: SQL cannot rewrite the schema by hand")
    func untrustedFilesAreDefensive() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY)") }
        let rewrite = """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = 'CREATE TABLE item (id INTEGER PRIMARY KEY, extra)' WHERE name = 'item';
            """
        var untrusted = Configuration()
        untrusted.acceptsUntrustedFiles = true
        let queue = try DatabaseQueue(path: path, configuration: untrusted)
        let error = try #require(throws: DatabaseError.self) {
            try queue.writeWithoutTransaction { db in try db.execute(sql: rewrite) }
        }
        #expect(error.message.contains("sqlite_master"))
        #expect(try queue.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'item'") }
            == "CREATE TABLE item (id INTEGER PRIMARY KEY)")

        // The same SQL goes through without the option: the check is the option's.
        let trusted = try DatabaseQueue(path: path)
        try trusted.writeWithoutTransaction { db in try db.execute(sql: rewrite + "PRAGMA writable_schema = OFF;") }
    }
}
