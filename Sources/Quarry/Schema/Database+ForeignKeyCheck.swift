// Database+ForeignKeyCheck: `checkForeignKeys()`, GRDB's spelling of "throw
// on the first row that breaks a foreign key", and the detailed description
// and error of a ForeignKeyViolation.
//
// The violations come from `pragma_foreign_key_check`
// (https://www.sqlite.org/pragma.html#pragma_foreign_key_check), through
// `foreignKeyViolations(in:)` (Database+Introspection.swift). PostgreSQL
// enforces its foreign keys at each statement (or at commit, for DEFERRABLE
// ones), and has no such pragma: the check is SQLite's only, as the list is.

extension Database {
    /// Throws a ``DatabaseError`` with the extended result code
    /// `SQLITE_CONSTRAINT_FOREIGNKEY` if a row of the database (or of `table`)
    /// refers to a missing row through a foreign key.
    ///
    /// ```swift
    /// try db.checkForeignKeys()
    /// // SELECT "table", rowid, parent, fkid FROM pragma_foreign_key_check()
    /// try db.checkForeignKeys(in: "book")
    /// // SELECT "table", rowid, parent, fkid FROM pragma_foreign_key_check(?)
    /// ```
    ///
    /// The error describes the first violation found, with its foreign key and row:
    /// `FOREIGN KEY constraint violation - from book(author_id) to author(id), in [id: 2, title: 'Lost', author_id: 9]`.
    /// The check runs whether or not foreign keys are enforced on the
    /// connection: it finds the violations left by work done while they were
    /// off, such as a migration of a migrator made with
    /// ``DatabaseMigrator/disablingDeferredForeignKeyChecks()``. For the list
    /// of all violations, use ``foreignKeyViolations(in:)``.
    ///
    /// On PostgreSQL it throws that it is SQLite-only: PostgreSQL checks
    /// foreign keys at each statement, or at commit for `DEFERRABLE` ones.
    ///
    /// - parameter table: the table whose rows are checked; nil (the
    ///   default) for every table. Throws if the table does not exist.
    public func checkForeignKeys(in table: String? = nil) throws {
        try require(
            .foreignKeyCheck,
            "checkForeignKeys(in:)")
        if let violation = try foreignKeyViolations(in: table).first {
            throw violation.databaseError(self)
        }
    }
}

extension ForeignKeyViolation {
    /// A description of the violation that names the columns of the foreign
    /// key and shows the offending row, when they can be read:
    ///
    /// ```
    /// FOREIGN KEY constraint violation - from book(author_id) to author(id), in [id: 2, title: 'Lost', author_id: 9]
    /// ```
    ///
    /// Without the row (a `WITHOUT ROWID` table), it ends with the rowid or
    /// with the tables only: `… - from book to author, in rowid 2`.
    public func failureDescription(_ db: Database) throws -> String {
        var text = "FOREIGN KEY constraint violation - from "
        if let key = try db.foreignKeys(on: originTable).first(where: { $0.id == foreignKeyID }) {
            text += "\(originTable)(\(key.originColumns.joined(separator: ", "))) "
                + "to \(destinationTable)(\(key.destinationColumns.joined(separator: ", ")))"
        } else {
            text += "\(originTable) to \(destinationTable)"
        }
        if let originRowID {
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM \(originTable.quotedDatabaseIdentifier) WHERE rowid = ?", arguments: [originRowID])
            text += ", in " + (row.map { String(describing: $0) } ?? "rowid \(originRowID)")
        }
        return text
    }

    /// The violation as a ``DatabaseError`` with the extended result code
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`, whose message is
    /// ``failureDescription(_:)`` (or ``description`` if the row cannot be read).
    public func databaseError(_ db: Database) -> DatabaseError {
        let message: String
        do {
            message = try failureDescription(db)
        } catch {
            message = "FOREIGN KEY constraint violation - \(description)"
        }
        return DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: message)
    }
}
