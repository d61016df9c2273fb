// Database+Authorizer: a Swift closure that SQLite asks, while it compiles a
// statement, whether each action the statement would take is allowed
// (https://www.sqlite.org/c3ref/set_authorizer.html).
//
// It applies for the duration of one closure only (withAuthorizer), so that
// it never outlives that closure on a pooled connection. SQLite calls Quarry's
// own authorizer (SQLite/StatementAuthorizer.swift), which asks this closure
// after it. Statements compiled earlier (Quarry's statement caches) are
// expired on entry and exit, so they are compiled, and authorized, again
// before they run.

import CSQLite

/// One action SQLite asks an authorizer about, with the names it concerns.
public struct DatabaseAuthorization: Sendable, CustomStringConvertible {
    /// The kind of action (`SQLITE_READ`, `SQLITE_INSERT`, `SQLITE_PRAGMA`…,
    /// <https://www.sqlite.org/c3ref/c_alter_table.html>).
    public let actionCode: Int32
    /// The table (or index, trigger, view, pragma, function…) the action
    /// applies to, when SQLite gives one.
    public let target: String?
    /// The second name SQLite gives: the column of a read or update, the
    /// table of an index or trigger, the argument of a pragma.
    public let detail: String?
    /// The database (`main`, `temp`, or an attached name).
    public let databaseName: String?

    /// What kind of action this is.
    public var kind: Kind {
        switch actionCode {
        case SQLITE_READ, SQLITE_SELECT, SQLITE_RECURSIVE: return .read
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE: return .write
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
            SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
            SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_TEMP_TRIGGER,
            SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW, SQLITE_ALTER_TABLE, SQLITE_REINDEX, SQLITE_ANALYZE,
            SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
            return .schema
        case SQLITE_PRAGMA: return .pragma
        case SQLITE_ATTACH, SQLITE_DETACH: return .attach
        case SQLITE_TRANSACTION, SQLITE_SAVEPOINT: return .transaction
        case SQLITE_FUNCTION: return .function
        default: return .other
        }
    }

    /// Groups of actions, for authorizers that decide by kind.
    public enum Kind: Sendable {
        /// `SELECT`, column reads, recursive common table expressions.
        case read
        /// `INSERT`, `UPDATE`, `DELETE`.
        case write
        /// `CREATE`, `DROP`, `ALTER`, `REINDEX`, `ANALYZE`.
        case schema
        /// `PRAGMA`.
        case pragma
        /// `ATTACH` and `DETACH`.
        case attach
        /// `BEGIN`, `COMMIT`, `ROLLBACK`, savepoints.
        case transaction
        /// A function call (the function's name is ``DatabaseAuthorization/detail``).
        case function
        /// Anything else.
        case other
    }

    /// `READ "player"."name"`.
    public var description: String {
        "\(kind) \(actionCode) " + [target, detail].compactMap { $0.map { "\"\($0)\"" } }.joined(separator: ".")
    }
}

/// An authorizer's answer (<https://www.sqlite.org/c3ref/c_deny.html>).
public enum AuthorizerDecision: Sendable {
    /// The action is allowed.
    case allow
    /// The statement fails to compile with `SQLITE_AUTH`.
    case deny
    /// A column read gives `NULL`; a `DELETE` runs as if it had no
    /// rows… (SQLite's `SQLITE_IGNORE`).
    case ignore
}

extension Database {
    /// Runs `body` with an authorizer that SQLite asks about every action of
    /// every statement compiled meanwhile; removes it afterwards, even when
    /// `body` throws.
    ///
    /// A typical use runs SQL written by a user, for a report, reading only:
    ///
    /// ```swift
    /// let rows = try db.withAuthorizer({ action in
    ///     switch action.kind {
    ///     case .read, .function: return .allow
    ///     default: return .deny
    ///     }
    /// }) {
    ///     try Row.fetchAll(db, sql: userSQL)   // a write, DDL, PRAGMA or ATTACH throws SQLITE_AUTH
    /// }
    /// ```
    ///
    /// Statements compiled before are compiled again, under the authorizer,
    /// before they run (SQLite expires them when an authorizer is installed).
    /// Authorizers do not nest: an inner call replaces the outer authorizer
    /// until it returns, then restores it.
    public func withAuthorizer<T>(
        _ authorizer: @escaping (DatabaseAuthorization) -> AuthorizerDecision, _ body: () throws -> T
    ) throws -> T {
        try require(.authorizer, "the authorizer (withAuthorizer(_:_:))")
        let previous = userAuthorizer
        userAuthorizer = { action, name1, name2, name3 in
            let authorization = DatabaseAuthorization(
                actionCode: action, target: name1.map { String(cString: $0) }, detail: name2.map { String(cString: $0) },
                databaseName: name3.map { String(cString: $0) })
            switch authorizer(authorization) {
            case .allow: return SQLITE_OK
            case .deny: return SQLITE_DENY
            case .ignore: return SQLITE_IGNORE
            }
        }
        // Statements compiled before must be authorized again before they run.
        expireStatements()
        defer {
            userAuthorizer = previous
            expireStatements()
        }
        return try body()
    }
}
