// StatementAuthorizer: the one authorizer every connection installs, which
// SQLite calls while it compiles a statement
// (https://www.sqlite.org/c3ref/set_authorizer.html).
//
// It does three things:
// - it learns what each statement reads and writes (StatementFacts), once, at
//   compile time: change observation (Observation/) uses these facts to know
//   which observers a statement concerns and which tables a fetch depends on;
// - while a transaction observer is attached, it keeps SQLite from running
//   `DELETE FROM t` (no WHERE) as a truncate, which the update hook does not
//   report: answering SQLITE_IGNORE to SQLITE_DELETE makes SQLite delete the
//   rows one by one instead (see "SQLITE_IGNORE" on that page);
// - then it asks the authorizer of `Database.withAuthorizer` (Functions/), if any.
//
// Installing an authorizer makes SQLite expire every prepared statement of
// the connection; `expireStatements()` uses that to make statements compiled
// earlier run through the authorizer again.

import CSQLite

/// What a statement reads and writes, as the authorizer saw it at compile
/// time (triggers and foreign key actions included).
struct StatementFacts {
    /// Columns read, as (table, column); SQLite's schema tables left out. An
    /// empty column means the statement depends on the table as a whole
    /// (`SELECT count(*) FROM t`).
    var reads: [(table: String, column: String)] = []

    /// Rows the statement may insert, update or delete: SQLite's action code
    /// (`SQLITE_INSERT`, `SQLITE_UPDATE`, `SQLITE_DELETE`), the table, and the
    /// column for updates.
    var writes: [(action: Int32, table: String, column: String?)] = []

    /// What the statement does to savepoints, if it is `SAVEPOINT`,
    /// `RELEASE` or `ROLLBACK TO`.
    var savepoint: SavepointAction?

    /// Whether the statement drops a table or view: its deletions from the
    /// table are not row deletions (and must not be ignored, or the drop
    /// would silently not happen).
    var drops = false

    /// Whether the statement may change the schema: DDL (it writes SQLite's
    /// schema tables), `ROLLBACK TO` (which may undo DDL), `ATTACH`, `DETACH`,
    /// and pragmas given a value. See `Database.schemaCheckGeneration`.
    var changesSchema = false
}

/// What a statement does to the savepoint stack
/// (<https://www.sqlite.org/lang_savepoint.html>).
enum SavepointAction: Equatable {
    case begin(String)
    case release(String)
    case rollbackTo(String)
}

extension Database {
    /// Installs the authorizer. Calling it again expires every statement
    /// compiled so far: SQLite compiles them, and asks the authorizer,
    /// again before their next step.
    func installAuthorizer() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_set_authorizer(sqliteConnection, { context, action, name1, name2, name3, _ in
            // The connection outlives its authorizer: sqlite3_close_v2 runs in
            // close(), before the Database goes away.
            guard let context else { return SQLITE_DENY }
            return Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
                .authorize(action, name1, name2, name3)
        }, context)
    }

    /// Makes SQLite compile every prepared statement of this connection again
    /// before its next step, under the current authorizer settings.
    func expireStatements() { installAuthorizer() }

    /// Runs `prepare` (a call to sqlite3_prepare_v3) and returns its result
    /// code with the facts the authorizer gathered meanwhile: those of the
    /// statement it compiled.
    func compileGatheringFacts(_ prepare: () -> Int32) -> (code: Int32, facts: StatementFacts) {
        compilingFacts = StatementFacts()
        defer { compilingFacts = StatementFacts() }
        let code = prepare()
        return (code, compilingFacts)
    }

    private func authorize(
        _ action: Int32, _ name1: UnsafePointer<CChar>?, _ name2: UnsafePointer<CChar>?, _ name3: UnsafePointer<CChar>?
    ) -> Int32 {
        var answer = SQLITE_OK
        switch action {
        case SQLITE_READ:
            if let name1, !Database.isSchemaTable(name1) {
                compilingFacts.reads.append((String(cString: name1), name2.map { String(cString: $0) } ?? ""))
            }
        case SQLITE_INSERT, SQLITE_UPDATE:
            if let name1, !Database.isSchemaTable(name1) {
                compilingFacts.writes.append((action, String(cString: name1), name2.map { String(cString: $0) }))
            } else if name1 != nil {
                compilingFacts.changesSchema = true
            }
        case SQLITE_DELETE:
            if let name1, !Database.isSchemaTable(name1), !compilingFacts.drops {
                compilingFacts.writes.append((action, String(cString: name1), nil))
                if preventsTruncateOptimization { answer = SQLITE_IGNORE }
            } else if name1 != nil {
                compilingFacts.changesSchema = true
            }
        case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
            compilingFacts.drops = true
            compilingFacts.changesSchema = true
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
            SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
            SQLITE_CREATE_VTABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TRIGGER,
            SQLITE_DROP_TRIGGER, SQLITE_ALTER_TABLE, SQLITE_ATTACH, SQLITE_DETACH:
            compilingFacts.changesSchema = true
        case SQLITE_PRAGMA:
            if name2 != nil { compilingFacts.changesSchema = true }
        case SQLITE_SAVEPOINT:
            if let name1, let name2 {
                let name = String(cString: name2)
                switch String(cString: name1) {
                case "BEGIN": compilingFacts.savepoint = .begin(name)
                case "RELEASE": compilingFacts.savepoint = .release(name)
                case "ROLLBACK":
                    compilingFacts.savepoint = .rollbackTo(name)
                    compilingFacts.changesSchema = true
                default: break
                }
            }
        default:
            break
        }
        if let userAuthorizer {
            let userAnswer = userAuthorizer(action, name1, name2, name3)
            if userAnswer != SQLITE_OK { return userAnswer }
        }
        return answer
    }

    /// Whether `name` is one of SQLite's schema tables, whose rows change with
    /// DDL, not through row events.
    private static func isSchemaTable(_ name: UnsafePointer<CChar>) -> Bool {
        sqlite3_strnicmp(name, "sqlite_", 7) == 0
            && (sqlite3_stricmp(name, "sqlite_master") == 0 || sqlite3_stricmp(name, "sqlite_temp_master") == 0
                || sqlite3_stricmp(name, "sqlite_schema") == 0 || sqlite3_stricmp(name, "sqlite_temp_schema") == 0)
    }
}
