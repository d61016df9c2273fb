// Tests of the online backup (backupDatabase): a slow, stepped backup of the
// live service database while HTTP writes keep committing — the copy passes
// the integrity check and is the database as of the backup's start — and the
// backups that must fail (missing directory, the live file itself, a missing
// source, a stopped backup, a corrupt source, a PostgreSQL database).

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Synchronization
import Testing

/// A counter shared by a writer task and a backup's progress callback.
final class SharedCounter: Sendable {
    private let atomic = Atomic<Int>(0)
    var value: Int { atomic.load(ordering: .sequentiallyConsistent) }
    @discardableResult func increment() -> Int { atomic.add(1, ordering: .sequentiallyConsistent).newValue }
}

/// A flag that tells a writer task to stop.
final class StopFlag: Sendable {
    private let atomic = Atomic<Bool>(false)
    var isSet: Bool { atomic.load(ordering: .sequentiallyConsistent) }
    func set() { atomic.store(true, ordering: .sequentiallyConsistent) }
}

/// Which pool the backup reads: the service's own, or a second pool on the
/// same file, as `bookshelf backup` opens next to a running server.
enum BackupSource: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case servicePool
    case ownPool
    var testDescription: String { rawValue }
}

/// The error a test's progress callback throws to stop a backup.
struct StopTheBackup: Error {}

@Suite("Online backup")
struct BackupTests {
    @Test(arguments: BackupSource.allCases)
    func aSlowBackupWhileWritesCommitIsTheSnapshotOfItsStart(source: BackupSource) async throws {
        let backups = try TemporaryDirectory()
        let copyPath = backups.path + "/copy.sqlite"
        try await withBookshelf { client, database in
            // Enough rows for a copy of many pages.
            let authorID = try #require(try await client.createAuthor("Seed").id)
            try await database.write { db in
                for index in 0..<300 {
                    let book = try Book(authorID: authorID, title: "Seed \(index)", isbn: "seed-\(index)", published: 2000, priceCents: 100).insertAndFetch(db)
                    let bookID = try #require(book.id)
                    _ = try Review(bookID: bookID, reviewer: "seeder", rating: 1 + index % 5, comment: String(repeating: "x", count: 100)).insertAndFetch(db)
                }
            }

            // One writer, one POST /books after the other: book `live-n` is
            // acknowledged only after `live-(n-1)`, so the copy holds a prefix of them.
            let acknowledged = SharedCounter()
            let stop = StopFlag()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !stop.isSet, !Task.isCancelled {
                        let n = acknowledged.value
                        let response = try await client.send(
                            .post, "/books",
                            json: #"{"author_id": \#(authorID), "title": "Live \#(n)", "isbn": "live-\#(n)", "published": 2024, "price_cents": 500}"#)
                        guard response.status == .created else {
                            Issue.record("POST /books answered \(response.status): \(String(buffer: response.body))")
                            return
                        }
                        acknowledged.increment()
                    }
                }
                defer { stop.set() }
                let deadline = ContinuousClock.now + .seconds(30)
                while acknowledged.value < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
                try #require(acknowledged.value >= 3, "the writer did not start")

                let before = try await database.read { db in try Book.fetchCount(db) }
                let steps = SharedCounter()
                // A slow backup, one page per step: its first step waits until
                // three more writes are acknowledged (the writer is sequential,
                // so at least two of them committed after the backup's snapshot),
                // and every step sleeps, so that writes go on between steps.
                let progress: @Sendable (DatabaseBackupProgress) throws -> Void = { _ in
                    if steps.increment() == 1 {
                        let target = acknowledged.value + 3
                        let deadline = ContinuousClock.now + .seconds(30)
                        while acknowledged.value < target, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
                    }
                    Thread.sleep(forTimeInterval: 0.002)
                }
                let summary: BackupSummary
                switch source {
                case .servicePool:
                    summary = try await backupDatabase(database, toPath: copyPath, pagesPerStep: 1, progress: progress)
                case .ownPool:
                    summary = try await backupDatabase(atPath: database.path, toPath: copyPath, pagesPerStep: 1, progress: progress)
                }
                let acknowledgedAtEnd = acknowledged.value
                stop.set()
                try await group.waitForAll()

                let liveBooks = try await database.read { db in try Book.order(\.id).fetchAll(db) }
                let liveReviews = try await database.read { db in try Review.order(\.id).fetchAll(db) }
                let copy = try DatabaseQueue(path: copyPath)
                defer { copy.close() }
                #expect(try await copy.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
                #expect(try await copy.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty)
                let copiedBooks = try await copy.read { db in try Book.order(\.id).fetchAll(db) }

                // The copy is the database of the backup's start: every book
                // committed before the backup was called, none committed after
                // it returned, and exactly the books committed first (the
                // writer only inserts, so a snapshot is a prefix of the books).
                #expect(copiedBooks.count >= before)
                #expect(copiedBooks.count < liveBooks.count)
                #expect(copiedBooks == Array(liveBooks.prefix(copiedBooks.count)))
                #expect(try await copy.read { db in try Review.order(\.id).fetchAll(db) } == liveReviews)
                #expect(try await copy.read { db in try Author.fetchAll(db).map(\.name) } == ["Seed"])
                #expect(try await copy.read { db in try makeBookshelfMigrator().appliedMigrations(db) } == [
                    "createAuthor", "createBook", "createReview", "createBookStats", "addReviewCreatedAt", "createBookSearch", "createAudit",
                    "observeBookChanges", "createPostgresBookSearchIndexes",
                ])

                // Writes acknowledged before the backup returned but missing
                // from the copy committed while it ran.
                let copiedLiveWrites = copiedBooks.count(where: { $0.isbn.hasPrefix("live-") })
                let committedDuringBackup = acknowledgedAtEnd - copiedLiveWrites
                #expect(committedDuringBackup > 0)

                #expect(summary.path == copyPath)
                #expect(summary.sourcePath == database.path)
                // The seeded reviews were written directly, not through the service: no book_stats.
                // Every book was inserted once (the audit trigger) and is indexed once.
                #expect(summary.rowCounts == [
                    "author": 1, "book": copiedBooks.count, "review": 300, "book_stats": 0, "quarry_migrations": 9,
                    "book_search": copiedBooks.count, "audit": copiedBooks.count,
                ])
                #expect(summary.pageCount > 1)
                #expect(summary.pageSize > 0)
                #expect(steps.value > 1)
                print("""
                    Backup[\(source)]: \(summary.pageCount) pages in \(steps.value) steps; \
                    \(committedDuringBackup) writes committed during the backup; \
                    books: \(before) before, \(copiedBooks.count) in the copy, \(liveBooks.count) after
                    """)
            }
        }
    }

    @Test func theDefaultBackupOfTheServiceDatabase() async throws {
        let backups = try TemporaryDirectory()
        let copyPath = backups.path + "/copy.sqlite"
        try await withBookshelf { client, database in
            let author = try #require(try await client.createAuthor("Ursula K. Le Guin").id)
            _ = try await client.createBook(authorID: author, title: "The Dispossessed", isbn: "d", published: 1974)
            let summary = try await backupDatabase(database, toPath: copyPath)
            #expect(summary.rowCounts == [
                "author": 1, "book": 1, "review": 0, "book_stats": 0, "quarry_migrations": 9, "book_search": 1, "audit": 1,
            ])
            #expect(summary.byteCount == summary.pageCount * summary.pageSize)
            #expect(summary.description.contains("integrity_check: ok"))
            // The copy is a service database: the service opens it as it is.
            let reopened = try await openBookshelfDatabase(path: copyPath, logger: quietLogger)
            #expect(try await reopened.read { db in try Book.fetchAll(db).map(\.title) } == ["The Dispossessed"])
            reopened.close()

            // A second backup replaces the first.
            _ = try await client.createBook(authorID: author, title: "The Lathe of Heaven", isbn: "l", published: 1971)
            #expect(try await backupDatabase(database, toPath: copyPath).rowCounts["book"] == 2)
        }
    }

    @Test func aBackupIntoAMissingDirectoryThrows() async throws {
        let backups = try TemporaryDirectory()
        let missing = backups.path + "/missing/dir"
        try await withBookshelf { client, database in
            _ = try await client.createAuthor("Kept")
            await #expect(throws: DatabaseError.self) {
                try await backupDatabase(database, toPath: missing + "/copy.sqlite")
            }
            await #expect(throws: DatabaseError.self) {
                try await backupDatabase(atPath: database.path, toPath: missing + "/copy.sqlite")
            }
            #expect(!FileManager.default.fileExists(atPath: backups.path + "/missing"))
            // The service goes on.
            _ = try await client.createAuthor("Still writing")
            #expect(try await database.read { db in try Author.fetchCount(db) } == 2)
        }
    }

    @Test func aBackupIntoTheLiveFileThrowsAndLeavesItIntact() async throws {
        let links = try TemporaryDirectory()
        try await withBookshelf { client, database in
            _ = try await client.createAuthor("Kept")
            let directory = (database.path as NSString).deletingLastPathComponent
            let link = links.path + "/link.sqlite"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database.path)
            // The same file by its path, another spelling, and a symbolic link.
            for path in [database.path, directory + "/./bookshelf.sqlite", link] {
                let error = await #expect(throws: BackupError.self, "\(path)") {
                    try await backupDatabase(database, toPath: path)
                }
                #expect(error == .destinationIsTheSource(path: path))
                await #expect(throws: BackupError.self, "\(path)") {
                    try await backupDatabase(atPath: database.path, toPath: path)
                }
            }
            #expect(try await database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
            #expect(try await database.read { db in try Author.fetchAll(db).map(\.name) } == ["Kept"])
            _ = try await client.createAuthor("Still writing")
        }
    }

    @Test func aMissingSourceFileThrowsAndCreatesNothing() async throws {
        let directory = try TemporaryDirectory()
        let source = directory.path + "/nothing.sqlite"
        let copy = directory.path + "/copy.sqlite"
        let error = await #expect(throws: BackupError.self) {
            try await backupDatabase(atPath: source, toPath: copy)
        }
        #expect(error == .noDatabase(path: source))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(arguments: TestBackend.available)
    func aPostgreSQLDatabaseIsRefused(backend: TestBackend) async throws {
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/copy.sqlite"
        switch backend {
        case .sqlite:
            // `bookshelf backup --database postgres://…`: refused before
            // anything connects, pointing to pg_dump, without the password.
            for url in ["postgres://bookshelf:s3cret@127.0.0.1:1/bookshelf", "PostgreSQL://bookshelf@127.0.0.1:1/bookshelf"] {
                let error = await #expect(throws: BackupError.self, "\(url)") {
                    try await backupDatabase(atPath: url, toPath: copy)
                }
                #expect(error == .postgreSQLDatabase)
                #expect(error?.description.contains("pg_dump") == true)
                #expect(error?.description.contains("s3cret") == false)
            }
        case .postgres:
            // The service's own PostgreSQL pool: refused the same way.
            try await withBookshelf(.postgres) { _, database in
                let error = await #expect(throws: BackupError.self) {
                    try await backupDatabase(database, toPath: copy)
                }
                #expect(error == .postgreSQLDatabase)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aStoppedBackupLeavesNoFile() async throws {
        let backups = try TemporaryDirectory()
        let copyPath = backups.path + "/copy.sqlite"
        try await withBookshelf { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            for index in 0..<20 {
                _ = try await client.createBook(authorID: author, title: "Book \(index)", isbn: "\(index)", published: 2000)
            }
            await #expect(throws: StopTheBackup.self) {
                try await backupDatabase(database, toPath: copyPath, pagesPerStep: 1) { _ in throw StopTheBackup() }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: backups.path).isEmpty)
        }
    }

    @Test func aCorruptDatabaseFailsTheIntegrityCheckOfTheCopy() async throws {
        let directory = try TemporaryDirectory()
        let sourcePath = directory.path + "/corrupt.sqlite"
        let copyPath = directory.path + "/copy.sqlite"
        let source = try DatabaseQueue(path: sourcePath)
        try await source.write { db in
            try db.execute(sql: "CREATE TABLE t (name TEXT NOT NULL)")
            try db.execute(sql: "CREATE INDEX t_name ON t (name)")
            try db.execute(sql: "INSERT INTO t (name) VALUES ('MARKER-A')")
        }
        source.close()
        // Change the value in one place only (the table row or the index
        // entry, whichever comes first in the file): they disagree now.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: sourcePath))
        let marker = try #require(bytes.firstRange(of: Data("MARKER-A".utf8)))
        bytes[marker.upperBound - 1] = UInt8(ascii: "B")
        try bytes.write(to: URL(fileURLWithPath: sourcePath))

        let corrupt = try DatabaseQueue(path: sourcePath)
        defer { corrupt.close() }
        let error = await #expect(throws: BackupError.self) {
            try await backupDatabase(corrupt, toPath: copyPath)
        }
        guard case .integrityCheckFailed(let path, let report) = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(path == copyPath)
        #expect(!report.isEmpty && report != ["ok"])
        #expect(String(describing: try #require(error)).contains("failed its integrity check"))
    }
}
