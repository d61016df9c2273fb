// SQLExpression: an SQL expression as a value tree, turned into text and bound
// arguments by SQLGenerationContext.
//
// This is the untyped core of the query interface. The typed layer
// (QueryExpression<Root, Value>, in QueryInterface/) wraps it, so that the
// compiler checks key paths and value types, while all SQL text is produced
// here, in one place.

import Foundation

/// An SQL expression: a column, a bound value, an operation, a function call, a
/// subquery, or raw SQL.
///
/// You rarely build one directly: the query interface makes them from key
/// paths (`\.score > 10`). Use `init(sql:arguments:)` for SQL the query
/// interface does not express.
///
/// Values inside an expression are always bound as statement arguments; they
/// never appear in the SQL text.
public struct SQLExpression: Sendable {
    package enum Node: Sendable {
        /// A column of the table the expression is evaluated on.
        case column(String, SQLQualifier)
        /// A bound value.
        case value(DatabaseValue)
        /// Raw SQL with `?` placeholders for `arguments`.
        case literal(String, [DatabaseValue])
        /// An ``SQL`` literal, its interpolations rendered in place.
        case interpolated(SQL)
        /// `NOT x`, `-x`.
        case prefix(String, SQLExpression)
        /// `x IS NULL`, `x IS NOT NULL`.
        case postfix(SQLExpression, String)
        /// `x op y`; `op` is an SQL operator such as `=`, `AND`, `+`, `||`.
        case infix(String, SQLExpression, SQLExpression)
        /// `name(arguments)`, `name(DISTINCT argument)`.
        case function(String, [SQLExpression], distinct: Bool)
        /// `COUNT(*)`.
        case countAll
        /// An aggregate limited to some rows: `COUNT("id") FILTER (WHERE "score" > ?)`
        /// (<https://www.sqlite.org/lang_aggfunc.html#aggfilter>).
        case aggregateFilter(SQLExpression, SQLExpression)
        /// `x [NOT] IN (a, b, c)`.
        case inList(SQLExpression, [SQLExpression], negated: Bool)
        /// `x [NOT] IN (SELECT ...)`.
        case inSubquery(SQLExpression, SQLSelectQuery, negated: Bool)
        /// `[NOT] EXISTS (SELECT ...)`.
        case exists(SQLSelectQuery, negated: Bool)
        /// `(SELECT ...)`, a scalar subquery.
        case subquery(SQLSelectQuery)
        /// An aggregate of the rows an association links to the current row,
        /// as a correlated subquery: `(SELECT COUNT(*) FROM "book" WHERE ...)`.
        /// Indirect: inline, its payload would make every node, and each
        /// level of `sql(_:)`'s recursion, larger (see DeepExpressionTests).
        indirect case associationAggregate(SQLAssociationAggregate)
        /// `x [NOT] BETWEEN a AND b`.
        case between(SQLExpression, SQLExpression, SQLExpression, negated: Bool)
        /// `x [NOT] LIKE pattern [ESCAPE e]`, or `GLOB` (without escape).
        case match(String, SQLExpression, SQLExpression, escape: String?, negated: Bool)
        /// `CASE [subject] WHEN a THEN b ... [ELSE c] END`.
        case caseWhen(SQLExpression?, [SQLCaseBranch], SQLExpression?)
        /// `x COLLATE name`.
        case collate(SQLExpression, String)
        /// `*` or `"alias".*`.
        case allColumns(SQLQualifier)
        /// The single-column primary key of a table, looked up when SQL is
        /// generated, equal to one of the values: `"id" = ?`, `"id" IN (?, ?)`,
        /// or `0` (false) for no value.
        case primaryKeyIn(table: String, [DatabaseValue], SQLQualifier)
        /// The single-column primary key of a table, looked up when SQL is generated.
        case primaryKeyColumn(table: String, SQLQualifier)
        /// A call to an FTS5 auxiliary function, whose column arguments are
        /// looked up when SQL is generated: `highlight("book_ft", ?, ?, ?)`.
        /// Indirect, like association aggregates, to keep nodes small.
        indirect case fullTextFunction(SQLFullTextFunction)
        /// An expression that could not be built (a key path that names no
        /// column); generating SQL for it throws this error.
        case invalid(any Error)
    }

    /// The node, in a box whose deinit frees deep trees without recursion
    /// (see ``NodeBox``).
    /// A `var` only so that NodeBox's deinit can test it with
    /// `isKnownUniquelyReferenced`; never reassigned.
    fileprivate var box: NodeBox

    /// The node of the expression.
    package var node: Node { box.node }

    package init(_ node: Node) { box = NodeBox(node) }

    /// Raw SQL, with `?` placeholders bound to `arguments`.
    ///
    /// ```swift
    /// let expression = SQLExpression(sql: "julianday(?) - julianday(created_at)", arguments: [Date()])
    /// ```
    ///
    /// The SQL is used as written: quote identifiers in it yourself (see
    /// `String.quotedDatabaseIdentifier`), and never build it from user input.
    public init(sql: String, arguments: [(any DatabaseValueConvertible)?] = []) {
        var values: [DatabaseValue] = []
        for argument in arguments {
            guard let argument else {
                values.append(.null)
                continue
            }
            do {
                values.append(try argument.databaseValue)
            } catch {
                self.init(.invalid(error))
                return
            }
        }
        self.init(.literal(sql, values))
    }

    /// The column named `name` of the table the expression applies to.
    public static func column(_ name: String) -> SQLExpression {
        SQLExpression(.column(name, .current))
    }

    /// A value, bound as a statement argument.
    public static func value(_ value: DatabaseValue) -> SQLExpression {
        SQLExpression(.value(value))
    }

    /// A value, bound as a statement argument; an unconvertible value gives an
    /// expression that throws when SQL is generated.
    static func value(of value: (any DatabaseValueConvertible)?) -> SQLExpression {
        guard let value else { return SQLExpression(.value(.null)) }
        do {
            return SQLExpression(.value(try value.databaseValue))
        } catch {
            return SQLExpression(.invalid(error))
        }
    }

    /// `COUNT(*)`.
    public static let countAll = SQLExpression(.countAll)

    /// A function call: `SQLExpression.function("lower", [.column("name")])`.
    public static func function(_ name: String, _ arguments: [SQLExpression], distinct: Bool = false) -> SQLExpression {
        SQLExpression(.function(name, arguments, distinct: distinct))
    }

    /// The operands of a chain of `op` (`a AND b AND c`), left to right;
    /// the expression itself when it is not an `op`. Iterative: a chain
    /// built in a loop can be very long.
    func chainOperands(_ op: String) -> [SQLExpression] {
        var operands: [SQLExpression] = []
        var pending = [self]
        while let next = pending.popLast() {
            if case .infix(let innerOp, let lhs, let rhs) = next.node, innerOp == op {
                pending.append(rhs)
                pending.append(lhs)
            } else {
                operands.append(next)
            }
        }
        return operands
    }

    /// Whether the expression is the `NULL` literal value.
    var isNullValue: Bool {
        if case .value(.null) = node { return true }
        return false
    }

    /// The same expression with every unqualified column qualified by `qualifier`.
    func qualified(by qualifier: SQLQualifier) -> SQLExpression {
        switch node {
        case .column(let name, .current): return SQLExpression(.column(name, qualifier))
        case .allColumns(.current): return SQLExpression(.allColumns(qualifier))
        case .primaryKeyIn(let table, let values, .current): return SQLExpression(.primaryKeyIn(table: table, values, qualifier))
        case .primaryKeyColumn(let table, .current): return SQLExpression(.primaryKeyColumn(table: table, qualifier))
        case .column, .value, .literal, .countAll, .allColumns, .invalid, .subquery, .exists, .primaryKeyIn, .primaryKeyColumn,
            .associationAggregate, .fullTextFunction:
            return self
        case .prefix(let op, let x): return SQLExpression(.prefix(op, x.qualified(by: qualifier)))
        case .postfix(let x, let op): return SQLExpression(.postfix(x.qualified(by: qualifier), op))
        case .infix(let op, let x, let y):
            return SQLExpression(.infix(op, x.qualified(by: qualifier), y.qualified(by: qualifier)))
        case .aggregateFilter(let x, let y):
            return SQLExpression(.aggregateFilter(x.qualified(by: qualifier), y.qualified(by: qualifier)))
        case .function(let name, let arguments, let distinct):
            return SQLExpression(.function(name, arguments.map { $0.qualified(by: qualifier) }, distinct: distinct))
        case .inList(let x, let list, let negated):
            return SQLExpression(.inList(x.qualified(by: qualifier), list.map { $0.qualified(by: qualifier) }, negated: negated))
        case .inSubquery(let x, let query, let negated):
            return SQLExpression(.inSubquery(x.qualified(by: qualifier), query, negated: negated))
        case .between(let x, let low, let high, let negated):
            return SQLExpression(.between(
                x.qualified(by: qualifier), low.qualified(by: qualifier), high.qualified(by: qualifier), negated: negated))
        case .match(let op, let x, let pattern, let escape, let negated):
            return SQLExpression(.match(
                op, x.qualified(by: qualifier), pattern.qualified(by: qualifier), escape: escape, negated: negated))
        case .caseWhen(let subject, let branches, let otherwise):
            return SQLExpression(.caseWhen(
                subject?.qualified(by: qualifier),
                branches.map { SQLCaseBranch(when: $0.when.qualified(by: qualifier), then: $0.then.qualified(by: qualifier)) },
                otherwise?.qualified(by: qualifier)))
        case .collate(let x, let collation): return SQLExpression(.collate(x.qualified(by: qualifier), collation))
        case .interpolated(let literal):
            return SQLExpression(.interpolated(SQL(elements: literal.elements.map { element in
                switch element {
                case .text, .identifier, .query: return element
                case .expression(let x): return .expression(x.qualified(by: qualifier))
                case .list(let items): return .list(items.map { $0.qualified(by: qualifier) })
                }
            })))
        }
    }
}

/// The node of an expression, in a class so that freeing a tree is iterative.
///
/// An expression built programmatically can be as deep as memory allows
/// (`(1...100_000).reduce(expr) { $0 + $1 }`). Freeing nested enum payloads
/// recurses once per level and overflows the stack far below that, even
/// though SQL generation refuses the expression (it throws SQLITE_TOOBIG past
/// SQLite's 1000 levels). This deinit instead moves the children of each node
/// it frees onto an explicit stack, so that no release goes deeper than one
/// level.
final class NodeBox: @unchecked Sendable {
    // `@unchecked`: `node` is only written in deinit, when no other reference
    // to the box exists.
    fileprivate(set) var node: SQLExpression.Node

    init(_ node: SQLExpression.Node) { self.node = node }

    deinit {
        guard node.hasExpressionChildren else { return }
        var pending = node.takeChildren()
        node = .countAll
        while var expression = pending.popLast() {
            // Only a box this loop holds the last reference to is freed here:
            // take its children first, so its own deinit has nothing to free.
            if isKnownUniquelyReferenced(&expression.box), expression.box.node.hasExpressionChildren {
                pending.append(contentsOf: expression.box.node.takeChildren())
                expression.box.node = .countAll
            }
        }
    }
}

extension SQLExpression {
    /// Whether an association aggregate appears in the expression
    /// (subqueries excluded).
    var containsAssociationAggregate: Bool {
        var pending = [self]
        while let expression = pending.popLast() {
            if case .associationAggregate = expression.node { return true }
            pending += expression.node.takeChildren()
        }
        return false
    }
}

extension SQLExpression.Node {
    /// Whether the node holds other expressions.
    fileprivate var hasExpressionChildren: Bool {
        switch self {
        case .column, .value, .literal, .countAll, .allColumns, .invalid, .primaryKeyIn, .primaryKeyColumn: return false
        // Literals are written by hand: shallow.
        case .exists, .subquery, .interpolated, .associationAggregate, .fullTextFunction: return false
        default: return true
        }
    }

    /// The expressions the node holds (subqueries excluded: they are shallow).
    fileprivate func takeChildren() -> [SQLExpression] {
        switch self {
        case .column, .value, .literal, .countAll, .allColumns, .invalid, .exists, .subquery, .primaryKeyIn, .primaryKeyColumn,
            .interpolated, .associationAggregate, .fullTextFunction:
            return []
        case .prefix(_, let x), .postfix(let x, _), .collate(let x, _), .inSubquery(let x, _, _): return [x]
        case .infix(_, let x, let y), .aggregateFilter(let x, let y): return [x, y]
        case .function(_, let arguments, _): return arguments
        case .inList(let x, let list, _): return [x] + list
        case .between(let x, let low, let high, _): return [x, low, high]
        case .match(_, let x, let pattern, _, _): return [x, pattern]
        case .caseWhen(let subject, let branches, let otherwise):
            var children: [SQLExpression] = []
            if let subject { children.append(subject) }
            for branch in branches { children += [branch.when, branch.then] }
            if let otherwise { children.append(otherwise) }
            return children
        }
    }
}

/// One `WHEN ... THEN ...` branch of a `CASE` expression.
package struct SQLCaseBranch: Sendable {
    var when: SQLExpression
    var then: SQLExpression
}

/// Which table a column belongs to.
package enum SQLQualifier: Sendable {
    /// The table of the query or association the expression is attached to.
    case current
    /// A table alias chosen by the user (self-joins, references across joins).
    case alias(TableAlias)
    /// The row an upsert would have inserted: `excluded."column"`
    /// (<https://www.sqlite.org/lang_upsert.html>).
    case excluded
    /// The row a trigger runs for: `NEW."column"` or `OLD."column"`
    /// (<https://www.sqlite.org/lang_createtrigger.html>).
    case triggerRow(isNew: Bool)
}

/// A name for one occurrence of a table in a query, for self-joins and for
/// expressions that refer to a joined table.
///
/// ```swift
/// let manager = TableAlias(name: "manager")
/// let request = Employee
///     .joining(required: Employee.manager.aliased(manager))
///     .filter(manager[\.lastName] == "Adams")
/// ```
///
/// Each alias is distinct, even when two have the same name: Quarry gives
/// them different names in the SQL if needed.
public final class TableAlias: Sendable {
    /// The name asked for, if any.
    public let name: String?

    /// Creates an alias; `name` is used in the SQL when it is free.
    public init(name: String? = nil) {
        self.name = name
    }

    /// The column `name` of this occurrence of the table.
    public subscript(_ columnName: String) -> SQLExpression {
        SQLExpression(.column(columnName, .alias(self)))
    }
}

extension SQLExpression {
    /// The markers of a JSON member (`"address" ->> '$.zip'`) read as a
    /// number or a boolean, by its Swift type: SQLGenerationContext writes
    /// the member itself on SQLite, whose `->>` returns SQL numbers, and casts
    /// it on PostgreSQL, whose `->>` returns text.
    package static let jsonNumberFunction = "QUARRY_JSON_NUMBER"
    package static let jsonBooleanFunction = "QUARRY_JSON_BOOLEAN"

    /// The marker of `hasSuffix(text, suffix)`, which each dialect writes
    /// its own way (`SQLDialect.hasSuffix(_:_:)`).
    static let hasSuffixFunction = "QUARRY_HAS_SUFFIX"

    /// The marker of `cast(x, as: type)`: its arguments are the expression
    /// and the type's name as a text value, which is written in place, in
    /// the dialect's spelling (`SQLGenerationContext.castSQL`), not bound.
    static let castFunction = "QUARRY_CAST"
}
