// ColumnAssignment: one `SET column = value` of a batch update, written with
// assignment operators on key paths: `\.score += 1`, `\.name <- "x"`.

/// An assignment of a batch update.
///
/// ```swift
/// try Player.filter(\.teamID == nil).updateAll(db, \.score += 1, \.name <- "Free agent")
/// // UPDATE "player" SET "score" = "score" + ?, "name" = ? WHERE "team_id" IS NULL
/// ```
public struct ColumnAssignment<Root>: Sendable {
    let assignment: SQLAssignment

    init(_ column: SQLExpression, _ value: SQLExpression) {
        if case .column(let name, _) = column.node {
            assignment = SQLAssignment(column: name, value: value)
        } else if case .invalid = column.node {
            // The key path's own error says why it names no column.
            assignment = SQLAssignment(column: "", value: column)
        } else if let name = Self.jsonColumn(of: column) {
            assignment = SQLAssignment(column: "", value: SQLExpression(.invalid(DatabaseError.misuse(
                "an assignment needs a column on its left side, not a member of the JSON in column \(name): "
                    + "assign the whole value of \(name)"))))
        } else {
            assignment = SQLAssignment(column: "", value: SQLExpression(.invalid(DatabaseError.misuse("an assignment needs a column on its left side"))))
        }
    }

    /// Sets a column to a value.
    public static func set<Value>(_ keyPath: KeyPath<Root, Value>, to value: Value) -> ColumnAssignment where Root: Decodable {
        let column = SQLExpression.column(keyPath)
        return ColumnAssignment(column, .bound(value, in: Root.self, near: column))
    }

    /// Sets a column to the value of an expression.
    public static func set<Value>(_ keyPath: KeyPath<Root, Value>, to value: QueryExpression<Root, Value>) -> ColumnAssignment
    where Root: Decodable {
        ColumnAssignment(.column(keyPath), value.sqlExpression)
    }
}

infix operator <- : AssignmentPrecedence

/// Sets a column to a value: `\.name <- "Arthur"`.
public func <- <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: Value) -> ColumnAssignment<Root> {
    .set(lhs, to: rhs)
}

/// Sets a column to the value of an expression: `\.score <- \.bonus * 2`.
public func <- <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> ColumnAssignment<Root> {
    .set(lhs, to: rhs)
}

/// Adds to a column: `\.score += 1` is `"score" = "score" + ?`.
public func += <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: Value) -> ColumnAssignment<Root> {
    .set(lhs, to: lhs + rhs)
}

/// Subtracts from a column: `\.score -= 1`.
public func -= <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: Value) -> ColumnAssignment<Root> {
    .set(lhs, to: lhs - rhs)
}

/// Multiplies a column: `\.score *= 2`.
public func *= <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: Value) -> ColumnAssignment<Root> {
    .set(lhs, to: lhs * rhs)
}

/// Divides a column: `\.score /= 2`.
public func /= <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: Value) -> ColumnAssignment<Root> {
    .set(lhs, to: lhs / rhs)
}

/// Adds an expression to a column: `\.count += excluded[\.count]` in an upsert.
public func += <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> ColumnAssignment<Root> {
    .set(lhs, to: lhs + rhs)
}

/// Subtracts an expression from a column: `\.stock -= excluded[\.sold]` in an upsert.
public func -= <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> ColumnAssignment<Root> {
    .set(lhs, to: lhs - rhs)
}

extension Column {
    /// Sets the column to the value of an expression:
    /// `Column("score").set(to: excluded[Column("score")])`.
    public func set<Root, Value>(to expression: QueryExpression<Root, Value>) -> ColumnAssignment<Root> {
        ColumnAssignment(sqlExpression, expression.sqlExpression)
    }
}

extension ColumnAssignment {
    /// The column whose JSON member `expression` reads (`"address" ->> '$.city'`,
    /// possibly typed as a number or a boolean), or nil.
    static func jsonColumn(of expression: SQLExpression) -> String? {
        switch expression.node {
        case .infix("->>", let json, _):
            if case .column(let name, _) = json.node { return name }
            return nil
        case .function(let name, let arguments, _)
        where name == SQLExpression.jsonNumberFunction || name == SQLExpression.jsonBooleanFunction:
            return arguments.first.flatMap(jsonColumn(of:))
        default:
            return nil
        }
    }
}
