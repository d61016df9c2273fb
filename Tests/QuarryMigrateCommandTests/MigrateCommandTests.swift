// The `migrate` command: argument parsing, and the output and exit code of
// each subcommand (status, plan, apply) on a fresh, a partly migrated, an up
// to date and a newer database, a failing migration and a database that
// cannot be opened; and one run on PostgreSQL when QUARRY_POSTGRES_URL is set.

import ArgumentParser
import Foundation
import Quarry
import QuarryMigrateCommand
import QuarryPostgres
import Testing

/// Three migrations, each adding a table; "broken" fails when registered.
private func makeMigrator(_ names: [String] = ["createAuthor", "createBook", "addISBN"]) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for name in names {
        migrator.registerMigration(name) { db in
            if name == "broken" { try db.execute(sql: "NOT SQL") }
            try db.execute(sql: "CREATE TABLE \(name.quotedDatabaseIdentifier) (id INTEGER PRIMARY KEY)")
        }
    }
    return migrator
}

private enum FileTarget: MigrateCommandTarget {
    static func openDatabase(_ location: String?) async throws -> (any DatabaseWriter, DatabaseMigrator) {
        guard let location else { throw ValidationError("--database is required") }
        return (try DatabasePool(path: location), makeMigrator())
    }
}

@Suite struct MigrateCommandTests {
    @Test func parsesTheSubcommandsAndTheirOptions() throws {
        let status = try MigrateCommand<FileTarget>.parseAsRoot(["status", "--database", "db.sqlite"])
        #expect((status as? MigrateCommand<FileTarget>.Status)?.options.database == "db.sqlite")
        #expect(try MigrateCommand<FileTarget>.parseAsRoot(["plan"]) is MigrateCommand<FileTarget>.Plan)
        #expect((try MigrateCommand<FileTarget>.parseAsRoot(["apply", "--database", "x"]) as? MigrateCommand<FileTarget>.Apply)?.options.database == "x")
        for (arguments, named) in [(["rollback"], "rollback"), (["status", "--nope"], "--nope")] {
            do {
                _ = try MigrateCommand<FileTarget>.parseAsRoot(arguments)
                Issue.record("\(arguments) parsed")
            } catch {
                #expect(MigrateCommand<FileTarget>.message(for: error).contains(named), "\(arguments)")
                #expect(MigrateCommand<FileTarget>.exitCode(for: error) != .success)
            }
        }
        #expect(MigrateCommand<FileTarget>.helpMessage(for: MigrateCommand<FileTarget>.self).contains("status"))
    }

    @Test func eachSubcommandThroughTheLifeOfADatabase() async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path

        // A new database: everything pending.
        let fresh = await MigrateCommandRun.perform(.status, path, FileTarget.self)
        #expect(fresh.exitCode == 2)
        #expect(fresh.lines == [
            "database: \(path)", "applied: none", "pending: 3 (createAuthor, createBook, addISBN)", "unknown: none",
            "3 migrations pending",
        ])
        let plan = await MigrateCommandRun.perform(.plan, path, FileTarget.self)
        #expect(plan.exitCode == 0)
        #expect(plan.lines == [
            "database: \(path)", "apply would run, in order:", "  1. createAuthor", "  2. createBook", "  3. addISBN",
        ])
        // Status and plan change nothing.
        let again = await MigrateCommandRun.perform(.status, path, FileTarget.self)
        #expect(again.exitCode == 2)

        // Partly migrated.
        let pool = try DatabasePool(path: path)
        try await makeMigrator().migrate(pool, upTo: "createAuthor")
        pool.close()
        let partly = await MigrateCommandRun.perform(.status, path, FileTarget.self)
        #expect(partly.exitCode == 2)
        #expect(partly.lines.suffix(4) == [
            "applied: 1 (createAuthor)", "pending: 2 (createBook, addISBN)", "unknown: none", "2 migrations pending",
        ])

        let apply = await MigrateCommandRun.perform(.apply, path, FileTarget.self)
        #expect(apply.exitCode == 0)
        #expect(apply.lines.count == 4)
        #expect(apply.lines[1].hasPrefix("Applied migration createBook in ") && apply.lines[1].hasSuffix(" ms"))
        #expect(apply.lines[2].hasPrefix("Applied migration addISBN in "))
        #expect(apply.lines[3] == "applied 2 migrations")

        // Up to date.
        let upToDate = await MigrateCommandRun.perform(.status, path, FileTarget.self)
        #expect(upToDate.exitCode == 0)
        #expect(upToDate.lines.last == "up to date")
        let nothingPlanned = await MigrateCommandRun.perform(.plan, path, FileTarget.self)
        #expect(nothingPlanned.lines.last == "nothing to apply: up to date")
        let nothingApplied = await MigrateCommandRun.perform(.apply, path, FileTarget.self)
        #expect(nothingApplied.lines == ["database: \(path)", "nothing to apply: up to date"])
        #expect(nothingApplied.exitCode == 0)

        // A newer application migrated it: refused, exit 3, nothing done.
        let newer = try DatabasePool(path: path)
        try await makeMigrator(["createAuthor", "createBook", "addISBN", "addCover"]).migrate(newer)
        newer.close()
        for action in MigrateCommandRun.Action.allCases {
            let refused = await MigrateCommandRun.perform(action, path, FileTarget.self)
            #expect(refused.exitCode == 3, "\(action)")
            #expect(refused.lines.last?.hasPrefix("refused: the database records migrations this application does not know (addCover)") == true)
        }
    }

    @Test func failuresExitWithOne() async throws {
        let unopenable = await MigrateCommandRun.perform(.status, "/nonexistent-quarry-dir/db.sqlite", FileTarget.self)
        #expect(unopenable.exitCode == 1)
        #expect(unopenable.lines.first?.hasPrefix("error: cannot open the database: ") == true)
        let missing = await MigrateCommandRun.perform(.status, nil, FileTarget.self)
        #expect(missing.lines == ["error: cannot open the database: --database is required"])

        // A migration that fails: the ones before it stay applied.
        let dbQueue = try DatabaseQueue()
        let failing = await MigrateCommandRun.perform(.apply, writer: dbQueue, migrator: makeMigrator(["createAuthor", "broken", "addISBN"]))
        #expect(failing.exitCode == 1)
        #expect(failing.lines[1].hasPrefix("Applied migration createAuthor in "))
        #expect(failing.lines.last?.hasPrefix("error: ") == true)
        #expect(failing.lines.last?.contains("broken") == true)
        let status = await MigrateCommandRun.perform(.status, writer: dbQueue, migrator: makeMigrator(["createAuthor", "broken", "addISBN"]))
        #expect(status.lines.contains("pending: 2 (broken, addISBN)"))
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["QUARRY_POSTGRES_URL"].map { !$0.isEmpty } == true))
    func onPostgreSQL() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["QUARRY_POSTGRES_URL"])
        let schema = "quarry_migrate_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        let admin = try PostgresDatabasePool(url: url, maximumConnectionCount: 1)
        try await admin.writeWithoutTransaction { db in try db.execute(sql: "CREATE SCHEMA \(schema)") }
        var configuration = Configuration()
        configuration.prepareDatabase = { db in try db.execute(sql: "SET search_path TO \(schema)") }
        let pool = try PostgresDatabasePool(url: url, maximumConnectionCount: 2, configuration: configuration)
        let migrator = makeMigrator()
        let before = await MigrateCommandRun.perform(.status, writer: pool, migrator: migrator)
        let apply = await MigrateCommandRun.perform(.apply, writer: pool, migrator: migrator)
        let after = await MigrateCommandRun.perform(.status, writer: pool, migrator: migrator)
        pool.close()
        try await admin.writeWithoutTransaction { db in try db.execute(sql: "DROP SCHEMA \(schema) CASCADE") }
        admin.close()
        #expect(before.exitCode == 2)
        #expect(apply.exitCode == 0, "\(apply.lines)")
        #expect(apply.lines.last == "applied 3 migrations")
        #expect(after.exitCode == 0)
        #expect(after.lines.suffix(4) == ["applied: 3 (createAuthor, createBook, addISBN)", "pending: none", "unknown: none", "up to date"])
    }
}
