// BookshelfDatabase: the service's database — an SQLite DatabasePool or a
// PostgreSQL PostgresDatabasePool behind `any DatabaseWriter` — with the flag
// that picks the PostgreSQL variant of the few queries and features that
// differ (see README.md, "Running on PostgreSQL").

import Quarry

/// Which database server the service runs on.
public enum DatabaseBackend: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A file opened as a WAL `DatabasePool`.
    case sqlite
    /// A PostgreSQL server, through `PostgresDatabasePool` (QuarryPostgres).
    case postgres

    /// The backend a `--database` value names: a `postgres://` or
    /// `postgresql://` URL is PostgreSQL, anything else an SQLite file path.
    public init(location: String) {
        let lowercased = location.lowercased()
        self = lowercased.hasPrefix("postgres://") || lowercased.hasPrefix("postgresql://") ? .postgres : .sqlite
    }

    /// `SQLite` or `PostgreSQL`, for messages.
    public var description: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }
}

/// The opened, migrated database of the service and its backend.
public struct BookshelfDatabase: Sendable {
    /// Where every read and write goes.
    public let writer: any DatabaseWriter
    /// Which server `writer` talks to.
    public let backend: DatabaseBackend

    /// Wraps an opened database.
    public init(writer: any DatabaseWriter, backend: DatabaseBackend) {
        self.writer = writer
        self.backend = backend
    }

    /// An SQLite pool.
    public init(_ pool: DatabasePool) {
        self.init(writer: pool, backend: .sqlite)
    }
}

extension DatabaseBackend {
    /// Whether the text column `column` (of the request's table) contains
    /// `substring`, case-sensitively: Quarry's `contains(_:)` (`instr` on
    /// SQLite, `strpos` on PostgreSQL), the substring bound. PostgreSQL text
    /// cannot hold NUL, so there a substring with a NUL matches nothing
    /// (binding it would fail).
    func textContains<Root>(column: String, _ substring: String) -> QueryExpression<Root, Bool> {
        if self == .postgres, substring.unicodeScalars.contains("\u{0}") { return QueryExpression(sql: "FALSE") }
        return QueryExpression<Root, String>(column).contains(substring)
    }
}
