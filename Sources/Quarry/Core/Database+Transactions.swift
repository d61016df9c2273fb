// Transactions and savepoints on a Database.
//
// See https://www.sqlite.org/lang_transaction.html and
// https://www.sqlite.org/lang_savepoint.html.

/// The kind of lock a transaction takes when it begins
/// (<https://www.sqlite.org/lang_transaction.html>).
public enum TransactionKind: String, Sendable {
    /// Takes locks only when the transaction first reads or writes.
    case deferred = "DEFERRED"
    /// Takes the write lock at once: other writers wait instead of failing later
    /// with `SQLITE_BUSY` when upgrading a read lock.
    case immediate = "IMMEDIATE"
    /// Takes the write lock at once and, outside WAL mode, keeps readers out.
    case exclusive = "EXCLUSIVE"
}

/// What to do at the end of a transaction or savepoint.
public enum TransactionCompletion: Sendable {
    /// Keep the changes.
    case commit
    /// Undo the changes.
    case rollback
}

extension Database {
    /// Runs `block` in a transaction, committing or rolling back as it returns.
    ///
    /// ```swift
    /// try db.inTransaction(.immediate) {
    ///     try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     try db.execute(sql: "UPDATE account SET balance = balance + 10 WHERE id = 2")
    ///     return .commit
    /// }
    /// ```
    ///
    /// If `block` throws, the transaction is rolled back and the error is
    /// rethrown. Inside an open transaction, this method uses a savepoint
    /// instead (see ``inSavepoint(_:)``), so nested calls compose: an inner
    /// rollback undoes only the inner changes.
    public func inTransaction(
        _ kind: TransactionKind = .deferred, _ block: () throws -> TransactionCompletion
    ) throws {
        if isInsideTransaction {
            try inSavepoint(block)
            return
        }
        try executeCached(sqlDialect.beginTransactionSQL(kind))
        let wasInsideTransactionBlock = isInsideTransactionBlock
        isInsideTransactionBlock = true
        defer { isInsideTransactionBlock = wasInsideTransactionBlock }
        let completion: TransactionCompletion
        do {
            completion = try block()
        } catch {
            rollbackIfNeeded()
            throw error
        }
        switch completion {
        case .commit:
            guard isInsideTransaction else { throw DatabaseError.transactionEndedEarly }
            do {
                try executeCached("COMMIT TRANSACTION")
            } catch {
                rollbackIfNeeded()
                throw error
            }
        case .rollback:
            if isInsideTransaction { try executeCached("ROLLBACK TRANSACTION") }
        }
    }

    /// Runs `block` in a savepoint (<https://www.sqlite.org/lang_savepoint.html>),
    /// releasing or rolling it back as it returns.
    ///
    /// Savepoints nest. Outside a transaction, `block` runs in a deferred
    /// transaction instead (``inTransaction(_:_:)``), as in GRDB. If `block`
    /// throws, the savepoint's changes are undone and the error is rethrown.
    public func inSavepoint(_ block: () throws -> TransactionCompletion) throws {
        if !isInsideTransaction {
            // Outside a transaction, a savepoint is a deferred transaction,
            // as in GRDB: SQLite would start one at `SAVEPOINT`, and a
            // server's savepoints live only inside transactions.
            try inTransaction(.deferred, block)
            return
        }
        try executeCached("SAVEPOINT quarry")
        let completion: TransactionCompletion
        do {
            completion = try block()
        } catch {
            // The block's error is the one to report; a failed rollback of
            // the savepoint rolled back the whole transaction (see below).
            try? rollbackSavepoint()
            throw error
        }
        switch completion {
        case .commit:
            guard isInsideTransaction else { throw DatabaseError.transactionEndedEarly }
            do {
                try executeCached("RELEASE SAVEPOINT quarry")
            } catch {
                try? rollbackSavepoint()
                throw error
            }
        case .rollback:
            try rollbackSavepoint()
        }
    }

    /// Rolls back the open transaction, if SQLite has not already done it.
    ///
    /// Some errors (`SQLITE_FULL`, `SQLITE_IOERR`, `SQLITE_BUSY`, `SQLITE_NOMEM`)
    /// make SQLite roll back by itself (<https://www.sqlite.org/lang_transaction.html>),
    /// so the transaction may already be gone.
    /// Throws before `statement` writes if the transaction of
    /// ``inTransaction(_:_:)`` has ended under the block, as SQLite does by
    /// itself after some errors (`SQLITE_FULL`, `SQLITE_IOERR`, `SQLITE_NOMEM`,
    /// …; <https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction>):
    /// the writes of the block that follow would otherwise run outside of any
    /// transaction, each committed on its own. Reads, and `BEGIN`, may run.
    @inline(__always)
    func checkTransactionNotAborted(_ statement: Statement) throws {
        // SQLite's own flag, read directly: this runs at each step of a
        // statement, and `Statement` is SQLite's.
        if isInsideTransactionBlock && SQLiteConnection.isAutocommit(sqliteConnection) && !statement.isReadOnly {
            let sql = statement.sql
            throw DatabaseError(
                resultCode: .SQLITE_ABORT,
                message: "the transaction was rolled back before its closure returned (by SQLite itself after an error "
                    + "such as SQLITE_FULL, SQLITE_IOERR or SQLITE_BUSY, even when the closure catches it, or by a ROLLBACK); "
                    + "this write would run outside of it, each statement committed on its own, so it is refused",
                sql: sql)
        }
    }

    /// Rolls back the transaction left open by an access that failed or
    /// ended without committing. If the rollback fails, or leaves the
    /// transaction open, the connection is discarded (``discard(because:)``):
    /// handed out again, it would run the next access inside this
    /// transaction, as a savepoint that reports success and is undone later.
    func rollbackIfNeeded() {
        guard isInsideTransaction else { return }
        do {
            try withoutStopping { try executeCached("ROLLBACK TRANSACTION") }
        } catch {
            discard(because: "its ROLLBACK failed: \(error)")
            return
        }
        if isInsideTransaction { discard(because: "its ROLLBACK left the transaction open") }
    }

    /// Ends what an access left behind, before its pool hands the connection
    /// out again: a transaction left open (``rollbackIfNeeded()``), and, on
    /// a server, one that raw SQL may have opened unseen
    /// (`DatabaseConnection.resetAfterAccess`). A connection that cannot be
    /// reset is discarded.
    func resetAfterAccess() {
        rollbackIfNeeded()
        guard discardReason == nil else { return }
        do {
            try connection.resetAfterAccess(self)
        } catch {
            // The ROLLBACK after SQL run outside of a transaction, or the
            // driver's tidying (PostgreSQL's DEALLOCATE of evicted statements).
            discard(because: "resetting it after an access failed: \(error)")
        }
    }

    /// Marks the connection as never to be handed out again: its pool closes
    /// it when the access ends and opens another in its place
    /// (ConnectionPool.swift). The first reason is kept and logged, as an
    /// error, with the connection's configuration logger.
    func discard(because reason: String) {
        guard discardReason == nil else { return }
        discardReason = reason
        configuration.logger?.error(
            "Quarry: closing the connection to \(path), which will be replaced: \(reason)",
            metadata: configuration.label.map { ["db.label": "\($0)"] })
    }

    /// Undoes the changes of the savepoint `quarry`. When that fails (the
    /// savepoint is gone: SQL of the block released it), the changes since
    /// the savepoint cannot be told apart from the earlier ones, so the
    /// whole transaction is rolled back, and the error thrown: the enclosing
    /// transaction then cannot commit (``DatabaseError/transactionEndedEarly``),
    /// and its later statements are refused, never committed one by one.
    private func rollbackSavepoint() throws {
        guard isInsideTransaction else { return }
        do {
            try withoutStopping {
                try executeCached("ROLLBACK TRANSACTION TO SAVEPOINT quarry")
                try executeCached("RELEASE SAVEPOINT quarry")
            }
        } catch {
            configuration.logger?.error(
                "Quarry: rolling back the whole transaction on \(path), since rolling back to its savepoint failed: \(error)",
                metadata: configuration.label.map { ["db.label": "\($0)"] })
            rollbackIfNeeded()
            throw error
        }
    }
}

extension DatabaseError {
    /// The error of a transaction or savepoint that is gone when its closure
    /// returns: SQLite rolled it back after an error that the closure caught
    /// (<https://www.sqlite.org/lang_transaction.html>), or the closure ended
    /// it with its own SQL. Committing then would fail with SQLite's
    /// "cannot commit - no transaction is active", which does not say why.
    static var transactionEndedEarly: DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_ABORT,
            message: "the transaction was rolled back before its closure returned, so it cannot commit: "
                + "SQLite rolls a transaction back after some errors (such as SQLITE_FULL, SQLITE_IOERR or SQLITE_BUSY) "
                + "even when the closure catches them; let such errors propagate out of the closure. "
                + "Writes run after the rollback were refused; reads ran outside the transaction")
    }
}

extension Database {
    /// Executes a statement without arguments through the statement cache
    /// (transaction control statements run on every read and write).
    func executeCached(_ sql: String) throws {
        try connection.executeCached(self, sql: sql)
    }
}
