// Check constraints written with the query interface:
// `t.column("score", .integer).check { $0 >= 0 }`, `t.check(Column("a") <= Column("b"))`.
//
// A schema cannot hold bound parameters, so the values of these expressions
// are written as SQL literals by the one literal renderer (DatabaseValue.sqlLiteral).

extension ColumnDefinition {
    /// `CHECK (…)` built from the column; values are written as SQL literals.
    ///
    /// ```swift
    /// t.column("score", .integer).check { $0 >= 0 }   // "score" INTEGER CHECK ("score" >= 0)
    /// ```
    ///
    /// An expression that cannot be written (a key path that names no column)
    /// makes the table creation throw.
    @discardableResult
    public func check(_ condition: (Column) -> QueryExpression<ColumnDefinition, Bool>) -> Self {
        do {
            return check(sql: try SchemaExpression.sql(condition(Column(name)).sqlExpression))
        } catch {
            invalidCheck = invalidCheck ?? error
            return self
        }
    }
}

extension TableDefinition {
    /// Adds a table check constraint built from columns; values are written
    /// as SQL literals.
    ///
    /// ```swift
    /// t.check(Column("start") <= Column("end"))   // CHECK ("start" <= "end")
    /// ```
    public func check(_ condition: QueryExpression<TableDefinition, Bool>) {
        do {
            check(sql: try SchemaExpression.sql(condition.sqlExpression))
        } catch {
            invalidCheck = invalidCheck ?? error
        }
    }
}

/// The SQL of an expression with its values written as literals.
enum SchemaExpression {
    static func sql(_ expression: SQLExpression) throws -> String {
        try SQLGenerationContext(db: nil, rendersValuesAsLiterals: true).sql(expression)
    }
}
