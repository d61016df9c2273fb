// Database+ResetDatabase: SQLite's SQLITE_DBCONFIG_RESET_DATABASE flag, under
// which a VACUUM empties the database (Operations/DatabaseWriter+Maintenance.swift,
// `erase()`; <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html>).

import CSQLite

extension Database {
    /// Runs `body` with the connection's reset-database flag set, and clears
    /// it afterwards, whether `body` throws or not. Throws, without running
    /// `body`, if SQLite refuses to set it.
    func withResetDatabaseFlag(_ body: () throws -> Void) throws {
        let code = quarry_set_reset_database(sqliteConnection, 1)
        guard code == SQLITE_OK else { throw makeError(code: code, sql: nil) }
        defer { _ = quarry_set_reset_database(sqliteConnection, 0) }
        try body()
    }
}
