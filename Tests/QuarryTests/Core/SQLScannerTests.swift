// Tests of the raw SQL scanner's server statements (Core/SQLScanner.swift):
// regressions found by the fuzz target Fuzz/FuzzSQLScanner.swift.

import Testing

@testable import Quarry

@Suite struct SQLScannerTests {
    /// `?NNN` near Int.max after a statement that used arguments: adding
    /// the statement's offset to the number trapped on overflow.
    @Test(arguments: [
        ("SELECT ?; SELECT ?9223372036854775807", 1),
        ("SELECT ?, ?; SELECT ?9223372036854775807", 2),
        ("SELECT ?, ?; SELECT ?9223372036854775806", 2),
    ])
    func hugeNumberedParameterThrows(sql: String, argumentCount: Int) {
        let arguments = StatementArguments(databaseValues: Array(repeating: .integer(1), count: argumentCount))
        #expect(throws: DatabaseError.self) {
            _ = try SQLScanner.serverStatements(sql, arguments, dialect: SQLiteDialect())
        }
    }

    @Test func numberedParameterInASecondStatementStillBinds() throws {
        let statements = try SQLScanner.serverStatements("SELECT ?; SELECT ?1", [1, 2], dialect: SQLiteDialect())
        #expect(statements.count == 2)
        #expect(statements[1].values == [.integer(2)])
    }
}
