// Database+StatementCompilation: SQLite's compilation of SQL into prepared
// statements (sqlite3_prepare_v3), for `makeStatement(sql:)` and for the
// scripts of `execute(sql:arguments:)`, which it splits into statements.

import CSQLite

extension Database {
    /// Compiles a single SQL statement for ``makeStatement(sql:)``.
    ///
    /// Throws if the SQL is invalid or holds more than one statement.
    func compileStatement(sql: String) throws -> Statement {
        var statementHandle: OpaquePointer?
        var remainder = ""
        let (code, facts) = compileGatheringFacts {
            sql.withCString { cString -> Int32 in
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v3(sqliteConnection, cString, -1, 0, &statementHandle, &tail)
                if let tail { remainder = String(cString: tail) }
                return code
            }
        }
        guard code == SQLITE_OK else {
            throw makeError(code: code, sql: sql)
        }
        guard let statementHandle else {
            throw DatabaseError.misuse("no SQL statement to compile", sql: sql)
        }
        let statement = Statement(database: self, sqliteStatement: statementHandle, sql: sql, facts: facts)
        if !remainder.isEmpty {
            // Anything but whitespace, semicolons and comments is a second statement.
            var probe: OpaquePointer?
            _ = compileGatheringFacts { sqlite3_prepare_v3(sqliteConnection, remainder, -1, 0, &probe, nil) }
            if let probe {
                sqlite3_finalize(probe)
                throw DatabaseError.misuse(
                    "makeStatement(sql:) takes a single statement; use execute(sql:) for several", sql: sql)
            }
        }
        return statement
    }

    /// SQLite's ``execute(sql:arguments:)`` (SQLiteConnection.swift): each
    /// statement is compiled, bound and run in turn.
    func executeSQLiteScript(sql: String, arguments: StatementArguments) throws {
        var used = 0
        try sql.utf8CString.withUnsafeBufferPointer { buffer in
            guard var start = buffer.baseAddress else { return }
            let end = start + buffer.count - 1  // before the NUL terminator
            while start < end {
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let (code, facts) = compileGatheringFacts {
                    sqlite3_prepare_v3(sqliteConnection, start, Int32(end - start), 0, &statementHandle, &tail)
                }
                guard code == SQLITE_OK else {
                    // Name the statement that failed, not the whole script.
                    throw makeError(code: code, sql: Database.firstStatementText(start))
                }
                guard let statementHandle else { break }  // only whitespace or comments left
                // sqlite3_sql() keeps the white space before the statement and its `;`.
                let statementSQL = Database.trimmedStatementText(String(cString: sqlite3_sql(statementHandle)))
                let statement = Statement(database: self, sqliteStatement: statementHandle, sql: statementSQL, facts: facts)
                try arguments.bind(to: statement, positionalIndex: &used)
                if let tail, Database.isBlank(tail) {
                    // The last statement: refuse extra arguments before executing it.
                    try arguments.checkAllPositionalValuesUsed(used, sql: sql)
                }
                try statement.forEachRow {}
                guard let tail else { break }
                start = tail
            }
        }
        try arguments.checkAllPositionalValuesUsed(used, sql: sql)
    }

    /// The text of one statement, without the white space around it and its
    /// final semicolons: what errors report as the statement's SQL.
    static func trimmedStatementText(_ text: String) -> String {
        var scalars = Substring(text).unicodeScalars
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace || last == ";" { scalars.removeLast() }
        return String(scalars)
    }

    /// The first statement of a script that did not compile: the shortest
    /// prefix up to a `;` that SQLite calls a complete statement
    /// (<https://www.sqlite.org/c3ref/complete.html>), or the whole rest.
    private static func firstStatementText(_ text: UnsafePointer<CChar>) -> String {
        let rest = String(cString: text)
        var prefix = ""
        for character in rest {
            prefix.append(character)
            if character == ";", sqlite3_complete(prefix) != 0 { return trimmedStatementText(prefix) }
        }
        return trimmedStatementText(rest)
    }

    /// Whether a C string holds only white space and semicolons.
    private static func isBlank(_ text: UnsafePointer<CChar>) -> Bool {
        var pointer = text
        while pointer.pointee != 0 {
            switch UInt8(bitPattern: pointer.pointee) {
            case 0x20, 0x09, 0x0A, 0x0D, 0x3B: pointer += 1
            default: return false
            }
        }
        return true
    }
}
