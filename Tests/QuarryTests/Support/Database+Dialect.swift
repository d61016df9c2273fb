// Test support: which dialect a connection speaks, for tests whose expected
// SQL or results differ between SQLite and PostgreSQL. Quarry itself asks
// its dialect (SQLDialect) instead of branching on the backend.

@testable import Quarry
import QuarryPostgres

extension Database {
    /// Whether the connection speaks PostgreSQL's SQL (a PostgreSQL server,
    /// or the stand-in server with PostgreSQL's dialect).
    var isPostgreSQL: Bool { sqlDialect is PostgreSQLDialect }
}
