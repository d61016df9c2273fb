// Test support: temporary database files, and running one test body against
// both a DatabaseQueue and a DatabasePool.

import Foundation
import Quarry
import Testing

/// A temporary directory deleted when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL
    /// Run before the directory is deleted (a PostgreSQL schema dropped, say).
    private var cleanups: [() -> Void] = []

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("quarry-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        for cleanup in cleanups.reversed() { cleanup() }
        try? FileManager.default.removeItem(at: url)
    }

    /// Runs `cleanup` when the directory is deleted.
    func onDelete(_ cleanup: @escaping () -> Void) {
        cleanups.append(cleanup)
    }

    /// A path for a database file inside the directory.
    func path(_ name: String = "db.sqlite") -> String {
        url.appendingPathComponent(name).path
    }
}

/// The kinds of database writers every test body runs against.
enum WriterKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case queue = "DatabaseQueue"
    case pool = "DatabasePool"

    var testDescription: String { rawValue }

    /// Opens a writer of this kind on a new file; keep `directory` alive while using it.
    func make(in directory: TemporaryDirectory, configuration: Configuration = Configuration()) throws -> any DatabaseWriter {
        try open(path: directory.path(), configuration: configuration)
    }

    /// Opens a writer of this kind on the file at `path`.
    func open(path: String, configuration: Configuration = Configuration()) throws -> any DatabaseWriter {
        switch self {
        case .queue: return try DatabaseQueue(path: path, configuration: configuration)
        case .pool: return try DatabasePool(path: path, configuration: configuration)
        }
    }
}

/// A copy of the Chinook sample database (never the original). Throws when
/// `../shared/data/chinook.sqlite` is not beside the project.
func chinookCopy(in directory: TemporaryDirectory) throws -> String {
    try sharedDataCopy("chinook.sqlite", in: directory)
}

/// Runs `body` in a read access (a write access with `writing`) to a copy of
/// Chinook opened as a writer of `kind`: on a pool, reads run on a reader.
func inChinook(_ kind: WriterKind, writing: Bool = false, _ body: (Database) throws -> Void) throws {
    let directory = try TemporaryDirectory()
    let writer = try kind.open(path: try chinookCopy(in: directory))
    if writing {
        try writer.write { db throws in try body(db) }
    } else {
        try writer.read { db throws in try body(db) }
    }
}

/// A copy of the file a GRDB 7.10 app wrote (`../shared/data/grdb-written.sqlite`),
/// never the original.
func grdbWrittenCopy(in directory: TemporaryDirectory) throws -> String {
    try sharedDataCopy("grdb-written.sqlite", in: directory)
}

/// A copy of a file of `../shared/data`, beside the project.
private func sharedDataCopy(_ name: String, in directory: TemporaryDirectory) throws -> String {
    let source = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // QuarryTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // project root
        .deletingLastPathComponent()  // beside the project
        .appendingPathComponent("shared/data/\(name)")
    guard FileManager.default.fileExists(atPath: source.path) else {
        throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "the fixture \(name) is missing at \(source.path)")
    }
    let target = directory.path(name)
    try FileManager.default.copyItem(atPath: source.path, toPath: target)
    return target
}

/// A table `item` of 200 rows whose root is page 2, in the file of `queue`.
func fillItemsSpanningPages(_ queue: DatabaseQueue) throws {
    try queue.write { db in
        try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, payload TEXT)")
        for id in 1...200 {
            try db.execute(sql: "INSERT INTO item (payload) VALUES (?)", arguments: [String(repeating: "x", count: 100 + id)])
        }
    }
}

/// Overwrites page 2 of the database file at `path` (4 KiB pages) with
/// garbage, behind its connections' back, and moves the file change counter
/// (offset 24) so that they drop their page caches. Returns the bytes
/// before, to restore them.
@discardableResult
func damagePageTwo(of path: String) throws -> Data {
    let original = try Data(contentsOf: URL(fileURLWithPath: path))
    var damaged = original
    for offset in 4096..<8192 { damaged[offset] = 0xA5 }
    damaged[27] = damaged[27] &+ 1
    try damaged.write(to: URL(fileURLWithPath: path))
    return original
}
