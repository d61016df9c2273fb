// Tests of the SQL layer itself: the text of record statements, expression
// parentheses, clause order, and argument order.

import Foundation
import Testing

@testable import Quarry
import QuarryPostgres

@Suite struct SQLGenerationTests {
    @Test func recordStatements() {
        #expect(RecordStatementSQL.insert(into: "player", columns: ["id", "name"], conflict: .abort, upsertUpdating: nil, returning: nil)
            == "INSERT INTO \"player\" (\"id\", \"name\") VALUES (?, ?)")
        #expect(RecordStatementSQL.insert(into: "player", columns: ["id", "name"], conflict: .ignore, upsertUpdating: nil, returning: "*")
            == "INSERT OR IGNORE INTO \"player\" (\"id\", \"name\") VALUES (?, ?) RETURNING *")
        #expect(RecordStatementSQL.insert(into: "player", columns: ["id", "name"], conflict: .abort, upsertUpdating: ["name"], returning: nil)
            == "INSERT INTO \"player\" (\"id\", \"name\") VALUES (?, ?) ON CONFLICT DO UPDATE SET \"name\" = excluded.\"name\"")
        #expect(RecordStatementSQL.insert(into: "t", columns: [], conflict: .replace, upsertUpdating: nil, returning: nil)
            == "INSERT OR REPLACE INTO \"t\" DEFAULT VALUES")
        #expect(RecordStatementSQL.update("order", setting: ["a b", "c\"d"], keyColumns: ["id"], conflict: .fail, returning: "\"x\"")
            == "UPDATE OR FAIL \"order\" SET \"a b\" = ?, \"c\"\"d\" = ? WHERE \"id\" = ? RETURNING \"x\"")
        #expect(RecordStatementSQL.delete(from: "t", keyColumns: ["a", "b"], returning: nil) == "DELETE FROM \"t\" WHERE \"a\" = ? AND \"b\" = ?")
        #expect(RecordStatementSQL.delete(from: "t", keyColumns: [], returning: nil) == "DELETE FROM \"t\"")
        #expect(RecordStatementSQL.select("1", from: "t", keyColumns: ["id"], limitOne: true) == "SELECT 1 FROM \"t\" WHERE \"id\" = ? LIMIT 1")
        #expect(RecordStatementSQL.select("*", from: "t", column: "id", valueCount: 3) == "SELECT * FROM \"t\" WHERE \"id\" IN (?, ?, ?)")
        #expect(RecordStatementSQL.selectionList([]) == "*")
        #expect(RecordStatementSQL.selectionList(["a", "b"]) == "\"a\", \"b\"")
    }

    @Test func jsonPathsAsPostgreSQLKeyArrays() {
        #expect(PostgreSQLDialect.jsonPathKeys("$.address.city") == #"{"address","city"}"#)
        #expect(PostgreSQLDialect.jsonPathKeys(#"$."a.b".c"#) == #"{"a.b","c"}"#)
        #expect(PostgreSQLDialect.jsonPathKeys(#"$."say \"hi\"""#) == #"{"say \"hi\""}"#)
        #expect(PostgreSQLDialect.jsonPathKeys("$") == nil)
        #expect(PostgreSQLDialect.jsonPathKeys("city") == nil)
        #expect(PostgreSQLDialect.jsonPathKeys(#"$."open"#) == nil)
    }

    @Test func globPatternsAsLikePatterns() {
        #expect(PostgreSQLDialect.likePattern(glob: "Ev[*]*") == "Ev*%")
        #expect(PostgreSQLDialect.likePattern(glob: "?ora") == "_ora")
        #expect(PostgreSQLDialect.likePattern(glob: "50%_off\\*") == "50\\%\\_off\\\\%")
        #expect(PostgreSQLDialect.likePattern(glob: "[[][?]") == "[?")
        // Sets and ranges have no LIKE equivalent.
        #expect(PostgreSQLDialect.likePattern(glob: "[ab]") == nil)
        #expect(PostgreSQLDialect.likePattern(glob: "[a-z]") == nil)
        #expect(PostgreSQLDialect.likePattern(glob: "x[") == nil)
    }

    @Test func recordStatementsInPostgreSQLsDialect() throws {
        // No OR clause: IGNORE is ON CONFLICT DO NOTHING, an upsert targets the primary key.
        #expect(RecordStatementSQL.insert(
            into: "player", columns: ["id", "name"], conflict: .ignore, upsertUpdating: nil, returning: "\"id\"",
            dialect: PostgreSQLDialect())
            == "INSERT INTO \"player\" (\"id\", \"name\") VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING \"id\"")
        #expect(RecordStatementSQL.insert(
            into: "player", columns: ["id", "name"], conflict: .abort, upsertUpdating: ["name"], returning: nil,
            upsertTarget: ["id"], dialect: PostgreSQLDialect())
            == "INSERT INTO \"player\" (\"id\", \"name\") VALUES (?, ?) ON CONFLICT (\"id\") DO UPDATE SET \"name\" = excluded.\"name\"")
        #expect(RecordStatementSQL.insert(
            into: "t", columns: [], conflict: .abort, upsertUpdating: nil, returning: "\"id\"", dialect: PostgreSQLDialect())
            == "INSERT INTO \"t\" DEFAULT VALUES RETURNING \"id\"")
        #expect(RecordStatementSQL.update("t", setting: ["a"], keyColumns: ["id"], conflict: .abort, returning: nil, dialect: PostgreSQLDialect())
            == "UPDATE \"t\" SET \"a\" = ? WHERE \"id\" = ?")
        // The policies PostgreSQL lacks are refused before any SQL is written.
        try PostgreSQLDialect().checkConflictResolution(.ignore, insert: true)
        try PostgreSQLDialect().checkConflictResolution(.abort, insert: false)
        try SQLiteDialect().checkConflictResolution(.replace, insert: true)
        for policy in [ConflictResolution.replace, .fail, .rollback] {
            #expect(throws: DatabaseError.self) { try PostgreSQLDialect().checkConflictResolution(policy, insert: true) }
        }
        #expect(throws: DatabaseError.self) { try PostgreSQLDialect().checkConflictResolution(.ignore, insert: false) }
    }

    @Test func expressionsAreParenthesizedAndFlattened() throws {
        let context = SQLGenerationContext(db: nil)
        let a = SQLExpression(.infix("=", .column("a"), .value(1)))
        let b = SQLExpression(.infix("=", .column("b"), .value(2)))
        let c = SQLExpression(.postfix(.column("c"), "IS NULL"))
        let both = SQLExpression(.infix("AND", SQLExpression(.infix("AND", a, b)), c))
        let either = SQLExpression(.infix("OR", both, SQLExpression(.prefix("NOT ", a))))
        #expect(try context.sql(either) == "((\"a\" = ?) AND (\"b\" = ?) AND (\"c\" IS NULL)) OR (NOT (\"a\" = ?))")
        #expect(context.arguments == [1, 2, 1])
    }

    @Test func clausesAndArgumentsComeInTextOrder() throws {
        var inner = SQLSelectQuery(source: .table("t"))
        inner.filter = SQLExpression(.infix(">", .column("x"), .value(1)))
        var query = SQLSelectQuery(source: .subquery(inner))
        query.selection = [SQLSelectable(expression: SQLExpression(.infix("+", .column("x"), .value(2))), alias: "y")]
        query.filter = SQLExpression(.infix("<", .column("x"), .value(3)))
        query.groupBy = [.column("x")]
        query.having = SQLExpression(.infix(">", .countAll, .value(4)))
        query.ordering = [SQLOrdering(expression: .column("y"), isDescending: true, nulls: .last)]
        query.offset = 5
        let context = SQLGenerationContext(db: nil)
        let sql = try context.selectSQL(query)
        #expect(sql
            == "SELECT \"x\" + ? AS \"y\" FROM (SELECT * FROM \"t\" WHERE \"x\" > ?) WHERE \"x\" < ? GROUP BY \"x\" HAVING COUNT(*) > ? ORDER BY \"y\" DESC NULLS LAST LIMIT -1 OFFSET ?")
        #expect(context.arguments == [2, 1, 3, 4, 5])
    }

    @Test func invalidExpressionsThrowTheirError() {
        struct Failure: Error {}
        let context = SQLGenerationContext(db: nil)
        #expect(throws: Failure.self) { try context.sql(SQLExpression(.invalid(Failure()))) }
        #expect(throws: DatabaseError.self) { try context.sql(SQLExpression(sql: "?", arguments: [UInt64.max])) }
    }

    @Test func joinsNeedAConnectionToDiscoverForeignKeys() {
        var query = SQLSelectQuery(source: .table("player"))
        query.joins = [SQLJoin(
            kind: .inner, tableName: "team", key: "team", alias: TableAlias(),
            condition: .foreignKey(childHoldsForeignKey: false, foreignKeyColumns: nil), isSelected: false)]
        let error = #expect(throws: DatabaseError.self) { try SQLGenerationContext(db: nil).selectSQL(query) }
        #expect(error?.message == "generating the SQL of a join on team needs a database connection")
    }
}
