// Database+Opening: what an SQLite connection runs once it is open
// (SQLiteConnection.open), before it serves any access: the authorizer, busy
// handler and trace, the SQL language options, the defenses against
// untrusted files, the checks and PRAGMAs of the configuration, then its
// preparation steps.

import CSQLite

extension Database {
    /// Sets up a connection just opened with ``SQLiteConnection/open(path:readOnly:acceptsURIFilenames:)``.
    func setUp(_ handle: OpaquePointer, readerOnly: Bool) throws {
        installAuthorizer()
        if let timeout = configuration.busyTimeout {
            let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            configuredBusyMilliseconds = Int32(clamping: milliseconds)
            installBusyHandler(milliseconds: configuredBusyMilliseconds)
        }
        if configuration.logger != nil || instrumentation?.observesStatements == true {
            installTrace()
        }
        if let limit = configuration.maximumStatementDuration {
            maximumStatementDuration = limit
        }
        let quotesCode = quarry_set_double_quoted_string_literals(
            handle, configuration.acceptsDoubleQuotedStringLiterals ? 1 : 0)
        if quotesCode != SQLITE_OK { throw makeError(code: quotesCode, sql: nil) }
        if configuration.acceptsUntrustedFiles {
            // Before the schema is first read (Configuration.acceptsUntrustedFiles).
            let code = quarry_set_untrusted_file_defenses(handle, 1)
            if code != SQLITE_OK { throw makeError(code: code, sql: nil) }
            // Also before the schema is read: its CREATE statements are parsed under the caps.
            UntrustedFileLimits.apply(to: handle)
            // Checks each b-tree cell's size as it is read, so that a damaged
            // page is reported as corrupt sooner (https://www.sqlite.org/pragma.html#pragma_cell_size_check).
            try execute(sql: "PRAGMA cell_size_check = ON")
        }
        // Fails with SQLITE_NOTADB for a file that is not a database.
        try execute(sql: "SELECT count(*) FROM sqlite_master")
        // Every connection, readers too: the last one to close a WAL file
        // checkpoints it, with its own setting.
        try execute(sql: "PRAGMA synchronous = \(configuration.synchronous.rawValue)")
        if configuration.foreignKeysEnabled {
            try execute(sql: "PRAGMA foreign_keys = ON")
        }
        if readerOnly {
            try execute(sql: "PRAGMA query_only = 1")
        }
        for step in configuration.preparationSteps { try step(self) }
        try configuration.prepareDatabase?(self)
    }
}
