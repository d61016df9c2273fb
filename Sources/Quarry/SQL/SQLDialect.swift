// SQLDialect: every decision about how Quarry spells SQL for one kind of
// database, in one value. A `Database` asks its dialect (`db.sqlDialect`):
// SQLite's (SQLiteDialect.swift) for an SQLite connection, the server
// connection's for a server (PostgreSQL's lives in the QuarryPostgres target,
// with all of PostgreSQL's SQL text).
//
// The rest of Quarry never branches on the kind of backend: where SQLite and a
// server differ, it calls a requirement of this protocol. The dialect is
// consulted once or a few times per statement generated, never per row;
// requirements that only answer a question are plain properties, so that
// asking costs no allocation.

/// How one kind of database spells SQL: parameters, literals, clauses,
/// functions, DDL, upserts, introspection queries, the migrator's own tables
/// and lock, read-only transactions, limits.
///
/// Not public API: implemented by ``SQLiteDialect`` and by the backends of
/// this package (QuarryPostgres). Requirements have no default
/// implementation unless SQLite's spelling is a sane default for any
/// backend, which the requirement then says.
package protocol SQLDialect: Sendable {
    // MARK: - Naming

    /// The name of the database, for error messages: `"SQLite"`, `"PostgreSQL"`.
    var name: String { get }

    /// What to use instead of a feature whose `capability` the backend
    /// lacks, for the error that refuses it (`Database.require(_:_:)`); nil
    /// when there is nothing to suggest.
    func alternative(to capability: DatabaseCapability) -> String?

    // MARK: - Parameters & scanning

    /// What the raw SQL scanner (Core/SQLScanner.swift) reads as literals,
    /// identifiers and parameters, besides what every dialect shares (`'…'`,
    /// `"…"`, comments, `?`, `:name`).
    var lexicalRules: SQLLexicalRules { get }

    /// The dialect's yes-or-no answers, grouped (``SQLDialectFeature``).
    var features: Set<SQLDialectFeature> { get }

    /// How the parameter `number` (from 1) of a statement sent to a server
    /// is written: `$1` on PostgreSQL. (SQLite binds raw SQL as written.)
    func parameter(_ number: Int) -> String

    // MARK: - Quoting & literals

    /// The SQL literal of `value` as the DEFAULT of a column of `columnType`
    /// (nil when unknown), where parameters are not allowed. The literal
    /// escapes the value. (Views, triggers and CHECK constraints write
    /// SQLite's literal, `DatabaseValue.sqlLiteral`, on every dialect.)
    func literal(_ value: DatabaseValue, columnType: DatabaseColumnType?) -> String

    // MARK: - Transactions

    /// The statement that starts a transaction of `kind`: SQLite's locking
    /// kinds, or a plain BEGIN on a server, which has its own locking.
    func beginTransactionSQL(_ kind: TransactionKind) -> String

    // MARK: - Query clauses

    /// The text between a SELECT and its bound offset when the query has no
    /// LIMIT, with spaces around it: SQLite needs a LIMIT before OFFSET
    /// (` LIMIT -1 OFFSET `), other databases do not.
    var offsetWithoutLimit: String { get }

    /// The SQL of `x IN ()` (or `NOT IN`, when `negated`), for a dialect
    /// that has no empty list; nil to write the empty list as is.
    func emptyInList(negated: Bool) -> String?

    /// For a dialect without `GLOB`, the `LIKE` pattern (escape character
    /// `\`) that matches what the GLOB `pattern` matches; nil to write GLOB
    /// as is. Throws when the pattern cannot be translated.
    func likePattern(forGlob pattern: SQLExpression) throws -> String?

    // MARK: - Functions, dates & JSON translation

    /// `hasSuffix(text, suffix)`, compared by Unicode scalars: an expression
    /// in which `suffix` may appear more than once (it is then bound again).
    func hasSuffix(_ text: SQLExpression, _ suffix: SQLExpression) -> SQLExpression

    /// The expression that replaces a call to SQLite's `name(arguments)`
    /// before its arguments are written (SQLite's date and time functions,
    /// on a database that has others), or nil to write the call as is.
    func rewrittenFunctionCall(_ name: String, _ arguments: [SQLExpression]) throws -> SQLExpression?

    /// The SQL of a call to SQLite's function `name`, from the SQL of its
    /// arguments, when this dialect spells it otherwise (`IFNULL` as
    /// `COALESCE`…), or nil for `name(arguments)` as written. `filter` is an
    /// aggregate's ` FILTER (WHERE …)` clause, or empty: it goes right after
    /// the aggregate call, inside anything wrapped around it, and after every
    /// argument (its values are bound after theirs). Also spells
    /// Quarry's markers of a JSON member read as a number or a boolean
    /// (`SQLExpression.jsonNumberFunction`, `jsonBooleanFunction`).
    func functionCallSQL(_ name: String, arguments: [String], distinct: Bool, filter: String) -> String?

    /// The expression of `json ->> path`, for a path as Quarry writes it for
    /// SQLite (`$.address.city`), when this dialect's `->>` takes no path;
    /// nil to write `->>` as is.
    func jsonPathExtraction(_ json: SQLExpression, path: String) -> SQLExpression?

    // MARK: - DDL: column types, columns, tables & indexes

    /// A column type as written in a column definition or a CAST.
    func columnTypeSQL(_ type: DatabaseColumnType) -> String

    /// The primary key clause of a column definition, after its type: an
    /// auto-incremented key (`autoincrement`), or a key of `type`.
    func primaryKeyClause(autoincrement: Bool, type: DatabaseColumnType?) -> String

    /// Throws when a column definition uses what the dialect has not:
    /// `ON CONFLICT` clauses on its NOT NULL or UNIQUE constraints
    /// (`hasConstraintConflictClauses`), or a virtual generated column.
    func checkColumnDefinition(_ column: String, hasConstraintConflictClauses: Bool, isVirtualGenerated: Bool) throws

    /// Throws when a table's options are not the dialect's (SQLite's
    /// `WITHOUT ROWID`, `STRICT`).
    func checkTableOptions(_ table: String, _ options: TableOptions) throws

    // MARK: - Upsert & conflict spelling

    /// `OR IGNORE ` (with its trailing space) after `INSERT` or `UPDATE`, or
    /// an empty string for a dialect without an `OR` clause.
    func conflictResolutionPrefix(_ conflict: ConflictResolution) -> String

    /// The clause after the VALUES of an INSERT without upsert that gives
    /// `conflict` (` ON CONFLICT DO NOTHING` for `.ignore`, without an `OR`
    /// clause), or an empty string.
    func insertConflictClause(_ conflict: ConflictResolution) -> String

    /// Throws when the dialect has no such conflict policy, before any
    /// statement runs.
    func checkConflictResolution(_ conflict: ConflictResolution, insert: Bool) throws

    // MARK: - Introspection spelling

    /// The error for a table the database does not have.
    func noSuchTable(_ table: String) -> DatabaseError

    /// The storage classes of the values a column of `declaredType` holds,
    /// as the start-up schema check judges them, or nil when it may hold any.
    func storageClasses(ofDeclaredType declaredType: String) -> Set<SchemaStorageClass>?

    // MARK: - The migrator's own tables & lock

    /// The statement that creates the migrator's table named `table`
    /// (`IF NOT EXISTS`), with a `name` column and the order of application.
    func createMigrationsTableSQL(_ table: String) -> String

    /// The column that orders the migrator's table by application.
    var migrationsOrderColumn: String { get }

    // MARK: - Read-only transactions & statement timeout

    /// The statement that sets the time limit of a statement, whose one
    /// argument is the limit in milliseconds as text (0: no limit); nil when
    /// Quarry enforces it itself (SQLite's progress handler).
    var statementTimeoutSQL: String? { get }

    /// The statement that makes every later transaction of a server
    /// connection read-only, for `Configuration.readonly`; nil where the
    /// connection itself opens read-only (SQLite).
    var readOnlySessionSQL: String? { get }

    /// The statement that starts a read-only transaction that sees one snapshot.
    var beginReadOnlyTransactionSQL: String { get }
}

/// Standard SQL's spellings, for the requirements where standard SQL has
/// one; never SQLite's own (SQLiteDialect.swift writes those itself).
extension SQLDialect {
    /// Nothing to suggest.
    package func alternative(to capability: DatabaseCapability) -> String? { nil }

    /// Standard SQL's `OFFSET` needs no `LIMIT` before it.
    package var offsetWithoutLimit: String { " OFFSET " }

    /// Standard SQL has no empty list: nothing is in it.
    package func emptyInList(negated: Bool) -> String? { negated ? "TRUE" : "FALSE" }

    /// Standard SQL's `INSERT` and `UPDATE` have no `OR` clause.
    package func conflictResolutionPrefix(_ conflict: ConflictResolution) -> String { "" }

    /// No clause: standard SQL's `INSERT` has no conflict clause.
    package func insertConflictClause(_ conflict: ConflictResolution) -> String { "" }
}

/// A yes-or-no answer of a dialect: what its SQL allows or requires besides
/// spelling. A dialect lists those it has (`SQLDialect.features`).
package enum SQLDialectFeature: Hashable, Sendable {
    /// The GROUP BY terms of a query that are also selected are
    /// written as their position in the selection (`GROUP BY 1`), so that
    /// the server sees the same expression (its bound values included).
    case groupsBySelectionPosition

    /// The keys of the parents whose children `including(all:)`
    /// prefetches are bound as one JSON array, read by the table-valued
    /// `json_each` (SQLite); otherwise they are bound in `IN` lists of at
    /// most 500.
    case bindsKeyListAsJSONArray

    /// A subquery in FROM must be named (`(SELECT …) "subquery"`).
    case requiresDerivedTableAlias

    /// An index term may say `NULLS FIRST` or `NULLS LAST`.
    case allowsNullsOrderingInIndexes

    /// An index term that is not a plain column is parenthesized.
    case parenthesizesIndexExpressions

    /// `ON CONFLICT … DO UPDATE` needs a conflict target (then the
    /// primary key is used when none is given).
    case upsertRequiresConflictTarget

    /// The existing row's columns in `DO UPDATE` are qualified by
    /// the table name (unqualified, they would be ambiguous with `excluded`'s).
    case qualifiesUpsertColumns

    /// Bytes are kept only in a column whose type holds blobs (then
    /// the schema check flags a property that writes bytes elsewhere).
    case keepsBytesOnlyInBlobColumns

    /// A database may hold GRDB's migrations table.
    case mayHoldGRDBMigrations
}

/// What the raw SQL scanner reads, besides what every dialect shares; each
/// rule is off unless a dialect turns it on.
package struct SQLLexicalRules: Sendable, Equatable {
    /// `E'…'` strings take backslash escapes.
    package var escapeStrings = false
    /// `` `name` `` and `[name]` quote identifiers.
    package var backtickAndBracketIdentifiers = false
    /// `::` is an operator (a cast), not a parameter.
    package var doubleColonOperator = false
    /// `$1` is a numbered parameter.
    package var numberedDollarParameters = false
    /// `$$…$$` and `$tag$…$tag$` are strings.
    package var dollarQuotedStrings = false

    package init() {}

    /// SQLite's rules: backticks and brackets quote identifiers, as in MySQL
    /// and SQL Server.
    package static let sqlite: SQLLexicalRules = {
        var rules = SQLLexicalRules()
        rules.backtickAndBracketIdentifiers = true
        return rules
    }()
}

/// A kind of schema object, for ``SQLDialect/schemaObjectExists(_:kind:name:)``.
package enum SchemaObjectKind: String, Sendable {
    case table, view, trigger, index
}
