// SQLite's side of change observation (Observation/ObservationBroker.swift):
// the update hook (https://www.sqlite.org/c3ref/update_hook.html), the commit
// and rollback hooks (https://www.sqlite.org/c3ref/commit_hook.html), the
// write lock of the transaction (https://www.sqlite.org/c3ref/txn_state.html),
// and whether a table has rowids, whose changes the update hook reports
// (https://www.sqlite.org/c3ref/table_column_metadata.html).

import CSQLite

extension SQLiteConnection {
    /// Installs SQLite's update, commit and rollback hooks, which call the
    /// closures (`DatabaseConnection.observeChanges`). This connection keeps
    /// them, and removes the hooks before it closes.
    func observeChanges(update: @escaping (Int32, UnsafePointer<CChar>, UnsafePointer<CChar>, Int64) -> Void, commit: @escaping () -> Bool, rollback: @escaping () -> Void) {
        changeHooks = (update, commit, rollback)
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(handle, { context, operation, databaseName, tableName, rowID in
            guard let context, let databaseName, let tableName else { return }
            Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().changeHooks?.update(operation, databaseName, tableName, rowID)
        }, context)
        // The commit hook returns 1 to turn the commit into a rollback.
        sqlite3_commit_hook(handle, { context in
            context.map { Unmanaged<SQLiteConnection>.fromOpaque($0).takeUnretainedValue().changeHooks?.commit() == false ? 1 : 0 } ?? 0 }, context)
        sqlite3_rollback_hook(handle, { context in
            context.map { Unmanaged<SQLiteConnection>.fromOpaque($0).takeUnretainedValue().changeHooks?.rollback() } }, context)
    }
}

extension Database {
    /// Whether SQLite holds the write lock for this connection's transaction;
    /// false on a server.
    var hasWriteTransaction: Bool {
        sqliteConnection.map { sqlite3_txn_state($0, nil) == SQLITE_TXN_WRITE } ?? false
    }

    /// Whether `table` has rowids, whose changes the update hook reports:
    /// false for a WITHOUT ROWID table, which has no "rowid" column to look up.
    func tableHasRowID(_ table: String) -> Bool {
        sqlite3_table_column_metadata(sqliteConnection, nil, table, "rowid", nil, nil, nil, nil, nil) == SQLITE_OK
    }
}
