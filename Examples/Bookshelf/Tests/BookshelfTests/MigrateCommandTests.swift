// `bookshelf migrate status | plan | apply` (Quarry's MigrateCommand with
// BookshelfMigrations): a new database is all pending, apply migrates it as
// the service's start-up does, then it is up to date; on both backends.

import BookshelfService
import Foundation
import Quarry
import QuarryMigrateCommand
import Testing

@Suite struct MigrateCommandTests {
    @Test func bookshelfParsesMigrate() throws {
        // The command line the README gives.
        let parsed = try MigrateCommand<BookshelfMigrations>.parseAsRoot(["status", "--database", "bookshelf.sqlite"])
        #expect((parsed as? MigrateCommand<BookshelfMigrations>.Status)?.options.database == "bookshelf.sqlite")
    }

    @Test func throughBookshelfMigrationsOnAFile() async throws {
        try await withTestDatabase(.sqlite) { database in
            let status = await MigrateCommandRun.perform(.status, database.location, BookshelfMigrations.self)
            #expect(status.exitCode == 2)
            #expect(status.lines.first == "database: \(database.location)")
            let applied = await MigrateCommandRun.perform(.apply, database.location, BookshelfMigrations.self)
            #expect(applied.exitCode == 0, "\(applied.lines)")
            let after = await MigrateCommandRun.perform(.status, database.location, BookshelfMigrations.self)
            #expect(after.exitCode == 0)
            #expect(after.lines.last == "up to date")
            // The service starts on it without applying anything.
            let opened = try await database.open()
            let pending = try await opened.writer.read { db in try makeBookshelfMigrator().pendingMigrations(db) }
            #expect(pending.isEmpty)
            opened.writer.close()
        }
    }

    @Test(arguments: TestBackend.available)
    func statusPlanApply(_ backend: TestBackend) async throws {
        try await withTestDatabase(backend) { database in
            let writer = try database.openUnmigrated()
            let migrator = makeBookshelfMigrator(backend: backend.backend)
            let status = await MigrateCommandRun.perform(.status, writer: writer, migrator: migrator)
            #expect(status.exitCode == 2)
            #expect(status.lines.contains("pending: \(migrator.migrations.count) (\(migrator.migrations.joined(separator: ", ")))"))
            let plan = await MigrateCommandRun.perform(.plan, writer: writer, migrator: migrator)
            #expect(plan.exitCode == 0)
            #expect(plan.lines.count == 2 + migrator.migrations.count)
            let apply = await MigrateCommandRun.perform(.apply, writer: writer, migrator: migrator)
            #expect(apply.exitCode == 0, "\(apply.lines)")
            #expect(apply.lines.last == "applied \(migrator.migrations.count) migrations")
            let after = await MigrateCommandRun.perform(.status, writer: writer, migrator: migrator)
            #expect(after.exitCode == 0)
            writer.close()
        }
    }
}
