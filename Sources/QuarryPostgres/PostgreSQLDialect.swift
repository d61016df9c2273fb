// PostgreSQLDialect: PostgreSQL's answers to Quarry's SQLDialect requirements
// (Quarry's SQL/SQLDialect.swift), the SQL that Quarry writes on a
// PostgreSQL connection. All of PostgreSQL's SQL text lives in this target:
// this file holds scanning, literals, clauses, DDL, upserts, the migrator's
// table and lock, transactions and limits; PostgreSQLDialect+Functions.swift
// the function, JSON and GLOB translations; PostgreSQLDialect+DateFunctions.swift
// SQLite's date and time functions; PostgreSQLDialect+Introspection.swift the
// catalog queries.

import Foundation
import Quarry

/// PostgreSQL's SQL, the dialect of ``PostgresDatabasePool``'s connections.
package struct PostgreSQLDialect: SQLDialect {
    package init() {}

    package var name: String { "PostgreSQL" }

    package func alternative(to capability: DatabaseCapability) -> String? {
        switch capability {
        case .preparedStatements: "the fetch methods that take SQL text"
        case .fullTextSearch5: "PostgreSQL's own full-text search (tsvector) through SQL"
        case .swiftFunctions: "CREATE FUNCTION in SQL"
        case .authorizer, .walCheckpoints: nil
        case .triggerDSL: "CREATE FUNCTION and CREATE TRIGGER in SQL"
        case .backup: "pg_dump"
        case .observation: "ValueObservation or DatabaseRegionObservation, with createChangeNotificationTrigger(on:) on the observed tables"
        case .foreignKeyCheck: "the foreign key constraints themselves, which PostgreSQL checks at each statement"
        case .schemaComparison: "a development database you drop and create again"
        case .lastInsertedRowID: "RETURNING, which records use"
        // PostgreSQL has RETURNING: never refused.
        case .returning: nil
        }
    }

    // MARK: - Parameters & scanning

    /// E'' strings, `::` casts, `$1` parameters and dollar quotes
    /// (<https://www.postgresql.org/docs/15/sql-syntax-lexical.html>); no
    /// backtick or bracket identifiers.
    /// <https://www.postgresql.org/docs/15/sql-expressions.html#SQL-EXPRESSIONS-PARAMETERS-POSITIONAL>
    package func parameter(_ number: Int) -> String { "$\(number)" }

    package var lexicalRules: SQLLexicalRules {
        var rules = SQLLexicalRules()
        rules.escapeStrings = true
        rules.doubleColonOperator = true
        rules.numberedDollarParameters = true
        rules.dollarQuotedStrings = true
        return rules
    }

    /// Bytes are kept only in bytea columns (another column refuses them,
    /// or keeps their hex text, read back as other bytes); key lists are
    /// bound in `IN` lists; no GRDB migrations table (GRDB writes SQLite
    /// files only).
    package var features: Set<SQLDialectFeature> {
        [
            .groupsBySelectionPosition, .requiresDerivedTableAlias, .allowsNullsOrderingInIndexes,
            .parenthesizesIndexExpressions, .upsertRequiresConflictTarget, .qualifiesUpsertColumns,
            .keepsBytesOnlyInBlobColumns,
        ]
    }

    // MARK: - Quoting & literals

    /// A blob is `'\x…'::bytea`, the 0 or 1 of a `Bool` in a `BOOLEAN`
    /// column `FALSE` or `TRUE` (PostgreSQL does not convert integers to
    /// booleans), infinities and NaN their named doubles; other values as on
    /// SQLite.
    package func literal(_ value: DatabaseValue, columnType: DatabaseColumnType?) -> String {
        switch value {
        case .blob(let data):
            return "'\\x" + DatabaseValue.hexDigits(data) + "'::bytea"
        case .integer(let integer) where columnType == .boolean && (integer == 0 || integer == 1):
            return integer == 1 ? "TRUE" : "FALSE"
        case .real(let real) where !real.isFinite:
            return real.isNaN ? "'NaN'::double precision" : real < 0 ? "'-Infinity'::double precision" : "'Infinity'::double precision"
        case .text(let text) where text.utf8.contains(0):
            // PostgreSQL text cannot hold NUL: let the server say so.
            return "convert_from('\\x" + DatabaseValue.hexDigits(Data(text.utf8)) + "'::bytea, 'UTF8')"
        default:
            return value.sqlLiteral
        }
    }

    // MARK: - Transactions

    /// A server has its own locking: SQLite's kinds do not apply.
    package func beginTransactionSQL(_ kind: TransactionKind) -> String { "BEGIN TRANSACTION" }

    // MARK: - Query clauses

    // PostgreSQL refuses a negative LIMIT and needs none before OFFSET, and
    // has no empty list: standard SQL's spellings (SQLDialect.swift).

    // MARK: - DDL: column types, columns, tables & indexes

    /// `INTEGER` is `BIGINT` (Quarry's integers are 64-bit, as SQLite's
    /// are), `REAL` and `DOUBLE` are `DOUBLE PRECISION`, `BLOB` is `BYTEA`,
    /// `DATETIME` is `TIMESTAMPTZ`, `JSON` is `JSONB`. Other types (`TEXT`,
    /// `NUMERIC`, `BOOLEAN`, `DATE`, and any raw value) are written as given.
    package func columnTypeSQL(_ type: DatabaseColumnType) -> String {
        switch type {
        case .integer: return "BIGINT"
        case .real, .double: return "DOUBLE PRECISION"
        case .blob: return "BYTEA"
        case .datetime: return "TIMESTAMPTZ"
        case .json: return "JSONB"
        default: return type.rawValue
        }
    }

    /// An integer primary key (auto-incremented, or of type `.integer`) is an
    /// identity column, `GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY`, so
    /// that a record inserted without id gets one, as a rowid alias does on SQLite.
    package func primaryKeyClause(autoincrement: Bool, type: DatabaseColumnType?) -> String {
        autoincrement || type == .integer ? "GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" : "PRIMARY KEY"
    }

    package func checkColumnDefinition(_ column: String, hasConstraintConflictClauses: Bool, isVirtualGenerated: Bool) throws {
        if hasConstraintConflictClauses {
            throw DatabaseError.misuse(
                "column \(column): ON CONFLICT clauses of NOT NULL and UNIQUE constraints are SQLite-only; "
                    + "PostgreSQL handles conflicts in each INSERT (ON CONFLICT)")
        }
        if isVirtualGenerated {
            throw DatabaseError.misuse(
                "column \(column): PostgreSQL has no virtual generated columns; use generatedAs(sql:, .stored)")
        }
    }

    package func checkTableOptions(_ table: String, _ options: TableOptions) throws {
        guard options.contains(.withoutRowID) || options.contains(.strict) else { return }
        throw DatabaseError.misuse(
            "table \(table): WITHOUT ROWID and STRICT are SQLite-only (a PostgreSQL table has no rowid, and its types are strict)")
    }


    // MARK: - Upsert & conflict spelling

    // PostgreSQL has no `OR` clause: standard SQL's empty prefix.

    /// `.ignore` skips a conflicting row: `ON CONFLICT DO NOTHING`.
    package func insertConflictClause(_ conflict: ConflictResolution) -> String {
        conflict == .ignore ? " ON CONFLICT DO NOTHING" : ""
    }

    /// PostgreSQL's only behaviour is SQLite's default, ABORT, and an INSERT
    /// can skip a conflicting row (`.ignore`); REPLACE, FAIL and ROLLBACK,
    /// and `UPDATE OR IGNORE`, have no equivalent.
    package func checkConflictResolution(_ conflict: ConflictResolution, insert: Bool) throws {
        guard conflict != .abort, !(insert && conflict == .ignore) else { return }
        throw DatabaseError.misuse(
            "\(insert ? "INSERT" : "UPDATE") OR \(conflict.rawValue) is SQLite-only: PostgreSQL has no OR clause"
                + (insert ? "; use an upsert, or onConflict: .ignore (ON CONFLICT DO NOTHING)" : ""))
    }


    /// The error for a table the server does not have: it carries
    /// PostgreSQL's SQLSTATE for an undefined table, 42P01, and does not
    /// call itself an SQLite error.
    package func noSuchTable(_ table: String) -> DatabaseError {
        DatabaseError(sqlState: "42P01", message: "no such table: \(table)")
    }

    // MARK: - Schema check

    /// A type as `format_type` names it (`bigint`, `character varying(20)`,
    /// `timestamp with time zone`), as QuarryPostgres reads its values (bool
    /// as an integer; uuid, dates and json as text; bytea as a blob);
    /// numeric (integer or text), arrays and other types: nil.
    package func storageClasses(ofDeclaredType declaredType: String) -> Set<SchemaStorageClass>? {
        let type = declaredType.lowercased()
        if type.hasSuffix("[]") { return nil }
        let base = type.split(separator: "(").first.map(String.init) ?? type
        switch base {
        case "smallint", "integer", "bigint", "boolean":
            return [.integer]
        case "real", "double precision":
            return [.real]
        case "text", "character varying", "character", "\"char\"", "name", "json", "jsonb", "xml", "uuid", "date":
            return [.text]
        case "bytea":
            return [.blob]
        default:
            if base.hasPrefix("timestamp") || base.hasPrefix("time ") || base == "time" { return [.text] }
            return nil
        }
    }


    // MARK: - The migrator's own tables & lock

    /// No rowid: `seq` keeps the order of application.
    package func createMigrationsTableSQL(_ table: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(table.quotedDatabaseIdentifier) (
            name TEXT NOT NULL PRIMARY KEY,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
            seq BIGINT GENERATED ALWAYS AS IDENTITY)
        """
    }

    package var migrationsOrderColumn: String { "seq" }


    // MARK: - Read-only transactions & statement timeout

    /// <https://www.postgresql.org/docs/15/runtime-config-client.html#GUC-STATEMENT-TIMEOUT>
    package var statementTimeoutSQL: String? { "SELECT set_config('statement_timeout', ?, false)" }

    /// <https://www.postgresql.org/docs/15/transaction-iso.html#XACT-REPEATABLE-READ>
    /// Writes then fail with SQLSTATE 25006 (read_only_sql_transaction),
    /// which Quarry reports as `SQLITE_READONLY`.
    /// https://www.postgresql.org/docs/15/sql-set-transaction.html
    package var readOnlySessionSQL: String? { "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY" }

    package var beginReadOnlyTransactionSQL: String { "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY" }
}
