// Test support for the full-text search suites: a small library of books with
// its FTS5 index, a log of the statements a connection runs, and the sqlite3
// command-line shell, whose answers the query tests compare with Quarry's.

import Foundation
import Quarry
import Testing

/// A book: the content table of the full-text index.
struct FTSBook: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "book"
    var id: Int64?
    var title: String
    var author: String
    var body: String
}

/// A row of the full-text table itself.
struct BookFT: Codable, FetchableRecord, TableRecord, Equatable {
    static let databaseTableName = "book_ft"
    var title: String
    var author: String
    var body: String
}

/// The books of the fixture. Diacritics, punctuation and repeated words make
/// ranking, snippets and tokenization visible.
let fixtureBooks: [FTSBook] = [
    FTSBook(id: 1, title: "The Old Man and the Sea", author: "Ernest Hemingway",
            body: "He was an old man who fished alone in a skiff in the Gulf Stream and the sea was calm"),
    FTSBook(id: 2, title: "Moby-Dick", author: "Herman Melville",
            body: "Call me Ishmael. The whale, the sea, the sea again: a voyage on the Pequod"),
    FTSBook(id: 3, title: "Les Misérables", author: "Victor Hugo",
            body: "Jean Valjean, a bishop's candlesticks, and the barricades of Paris"),
    FTSBook(id: 4, title: "Le Comte de Monte-Cristo", author: "Alexandre Dumas",
            body: "Edmond Dantès escapes the Château d'If and finds a treasure by the sea"),
    FTSBook(id: 5, title: "Twenty Thousand Leagues Under the Seas", author: "Jules Verne",
            body: "Captain Nemo and the Nautilus explore the seas; the sea is everything"),
    FTSBook(id: 6, title: "Dune", author: "Frank Herbert",
            body: "The spice must flow on the desert planet Arrakis, far from any sea"),
]

/// Creates the `book` table, fills it, and creates `book_ft` synchronized with it.
func createLibrary(_ db: Database, tokenizer: FTS5TokenizerDescriptor? = .unicode61(diacritics: .remove)) throws {
    try db.create(table: "book") { t in
        t.autoIncrementedPrimaryKey("id")
        t.column("title", .text).notNull()
        t.column("author", .text).notNull()
        t.column("body", .text).notNull()
    }
    for book in fixtureBooks { try book.insert(db) }
    try db.create(virtualTable: "book_ft", using: FTS5()) { t in
        t.synchronize(withTable: "book")
        t.tokenizer = tokenizer
        t.column("title")
        t.column("author")
        t.column("body")
    }
}

/// Runs `body` in a write access to a new database of `kind` holding the library.
func inLibrary(_ kind: WriterKind, _ body: (Database, String) throws -> Void) throws {
    let directory = try TemporaryDirectory()
    let writer = try kind.make(in: directory)
    try writer.write { db throws in try createLibrary(db) }
    try writer.write { db throws in try body(db, directory.path()) }
}

/// The statements a connection runs while it is recorded.
final class FTSStatementLog {
    private(set) var statements: [String] = []

    /// Records the statements `body` runs on `db`.
    static func record(_ db: Database, _ body: () throws -> Void) rethrows -> [String] {
        let log = FTSStatementLog()
        db.trace { event in
            if case .statement(let sql) = event { log.statements.append(sql) }
        }
        defer { db.trace(nil) }
        try body()
        return log.statements
    }
}

/// The sqlite3 command-line shell (Debian: `apt-get install sqlite3`).
enum SQLiteShell {
    /// The path of the shell, if it is installed.
    static let path: String? = {
        let candidates = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"]
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = String(directory) + "/sqlite3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// The rows the shell returns for `sql` on the database file at
    /// `databasePath`, each row's columns separated by U+001F. Records an
    /// issue and returns nil when the shell is not installed: the comparison
    /// must not pass silently.
    static func rows(_ databasePath: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String]? {
        guard let path else {
            let message = "the sqlite3 command-line shell is not installed: install the sqlite3 package (apt-get install sqlite3) "
                + "so that full-text results can be compared with SQLite's own answers"
            Issue.record("\(message)", sourceLocation: sourceLocation)
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-batch", "-noheader", "-list", "-separator", "\u{1F}", databasePath, sql]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = String(decoding: errorData, as: UTF8.self)
        #expect(process.terminationStatus == 0, "sqlite3 failed: \(errorText)", sourceLocation: sourceLocation)
        #expect(errorText.isEmpty, "sqlite3 wrote: \(errorText)", sourceLocation: sourceLocation)
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}
