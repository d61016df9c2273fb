// FuzzDatabaseFile: libFuzzer target for opening and reading arbitrary
// database files through Quarry: the input is written to a temporary file,
// opened with DatabaseQueue(path:), and read (schema introspection,
// integrity_check, a SELECT of every table and view). Errors are expected;
// traps, sanitizer reports and hangs are failures. A statement time limit
// (Configuration.maximumStatementDuration) bounds what a hostile schema can
// make a statement do.

import Foundation
import Quarry

/// This process's file; its journal and WAL files are removed with it.
private let path = NSTemporaryDirectory() + "quarry-fuzz-\(getpid()).sqlite"

private func removeFiles() {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        unlink(path + suffix)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDatabaseFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    removeFiles()
    defer { removeFiles() }
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else {
        preconditionFailure("cannot write \(path)")
    }
    var configuration = Configuration()
    configuration.maximumStatementDuration = .milliseconds(500)
    configuration.busyTimeout = nil
    do {
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.read { db in
            let names = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name IS NOT NULL LIMIT 20")
            for name in names {
                _ = try? db.tableExists(name)
                _ = try? db.columns(in: name)
                _ = try? db.primaryKey(name)
                _ = try? db.indexes(on: name)
                _ = try? db.foreignKeys(on: name)
                _ = try? db.hasTriggers(on: name)
                _ = try? Row.fetchAll(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier) LIMIT 50")
            }
            _ = try? Row.fetchAll(db, sql: "PRAGMA integrity_check(20)")
            _ = try? db.foreignKeyViolations()
        }
        // A write, rolled back: the journal code paths.
        _ = try? queue.write { db in
            try db.execute(sql: "CREATE TABLE quarry_fuzz_probe(x)")
            throw CancellationError()
        }
    } catch {
        // A file SQLite refuses: fine.
    }
    return 0
}
