// The CASE forms of the query interface beyond `caseWhen(_:otherwise:)`
// (QueryExpression+Functions.swift): the simple form, which compares one
// subject with each branch's value, and the searched form with expressions,
// not only values, in its branches.

/// A simple `CASE` expression: the result of the first branch whose value
/// equals the subject, or `otherwise`.
///
/// ```swift
/// caseWhen(\Player.teamID, [(1, "red"), (2, "blue")], otherwise: "none")
/// // CASE "team_id" WHEN ? THEN ? WHEN ? THEN ? ELSE ? END
/// ```
///
/// A `NULL` subject equals no value, so it gives `otherwise`.
public func caseWhen<Root, Subject, Value>(
    _ subject: QueryExpression<Root, Subject>, _ branches: [(Subject, Value)], otherwise: Value
) -> QueryExpression<Root, Value> {
    let subjectSQL = subject.sqlExpression
    return QueryExpression(SQLExpression(.caseWhen(
        subjectSQL,
        branches.map { SQLCaseBranch(when: .bound($0.0, in: Root.self, near: subjectSQL), then: .bound($0.1, in: Root.self)) },
        .bound(otherwise, in: Root.self))))
}

/// A simple `CASE` expression on a column: `CASE "team_id" WHEN ? THEN ? ELSE ? END`.
public func caseWhen<Root: Decodable, Subject, Value>(
    _ subject: KeyPath<Root, Subject>, _ branches: [(Subject, Value)], otherwise: Value
) -> QueryExpression<Root, Value> {
    caseWhen(QueryExpression(subject), branches, otherwise: otherwise)
}

/// A `CASE` expression whose results are expressions: the result of the
/// first branch whose condition holds, or `otherwise`.
///
/// ```swift
/// caseWhen([(\Player.bonus > 0, QueryExpression(\Player.score) + \.bonus)], otherwise: QueryExpression(\Player.score))
/// // CASE WHEN "bonus" > ? THEN "score" + "bonus" ELSE "score" END
/// ```
public func caseWhen<Root, Value>(
    _ branches: [(QueryExpression<Root, Bool>, QueryExpression<Root, Value>)], otherwise: QueryExpression<Root, Value>
) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.caseWhen(
        nil, branches.map { SQLCaseBranch(when: $0.0.sqlExpression, then: $0.1.sqlExpression) }, otherwise.sqlExpression)))
}
