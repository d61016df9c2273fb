// Test support: pins the exact SQL and arguments a request generates.

import Quarry
import Testing

/// Checks the SQL and arguments that `request` generates on `db`.
func expectSQL<Root, Result>(
    _ request: QueryRequest<Root, Result>, _ db: Database, _ sql: String, _ arguments: StatementArguments = [],
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let generated = try request.sql(db)
    #expect(generated.sql == sql, sourceLocation: sourceLocation)
    #expect(generated.arguments == arguments, sourceLocation: sourceLocation)
}

/// Checks generated SQL text and arguments.
func expectGenerated(
    _ generated: GeneratedSQL, _ sql: String, _ arguments: StatementArguments = [],
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(generated.sql == sql, sourceLocation: sourceLocation)
    #expect(generated.arguments == arguments, sourceLocation: sourceLocation)
}
