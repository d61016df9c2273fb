// SQLGenerationContext: turns SQLExpression and SQLSelectQuery values into SQL
// text and the list of values bound to its `?` placeholders.
//
// This is the single place where the query interface writes SQL: identifier
// quoting, placeholders, operator parentheses, aliases, joins, LIMIT. Values
// are appended to `arguments` in the order their placeholders appear in the
// text, and are never written into the text itself — except in the literal
// mode (`rendersValuesAsLiterals`) of the schema objects that SQLite forbids
// parameters in (views, triggers, CHECK constraints): there each value is
// written by DatabaseValue.sqlLiteral, the one literal renderer, in place of
// its placeholder.
//
// This file holds the state, placeholders, table alias names and
// expressions; SQLGenerationContext+Select.swift the SELECT statement and its
// joins; SQLGenerationContext+Writes.swift the batch DELETE and UPDATE.

/// Generates SQL text and its arguments.
final class SQLGenerationContext {
    /// The connection, needed to look up foreign keys and column counts for joins.
    let db: Database?

    /// The dialect the SQL is written in: the connection's, SQLite's without
    /// one. Read once, when the context is made.
    let dialect: any SQLDialect

    /// The values for the `?` placeholders generated so far, in order.
    private(set) var arguments: [DatabaseValue] = []

    // The generation state below is internal, not private, only because the
    // SELECT clauses (SQLGenerationContext+Select.swift) read and set it.

    /// Names given to table aliases in this statement.
    var aliasNames: [ObjectIdentifier: String] = [:]
    var usedNames: Set<String> = []

    /// The name that qualifies `.current` columns, or nil for unqualified columns.
    var currentQualifier: String?

    /// The table of the SELECT being generated, and the name that refers to
    /// it (its alias, or the table name): association aggregates correlate
    /// their subqueries with it.
    var currentSource: (name: String, table: String)?

    /// How deep `sql(_:)` is in the expression tree being generated.
    private var depth = 0

    /// The deepest expression tree generated: SQLite's own limit
    /// (SQLITE_MAX_EXPR_DEPTH, <https://www.sqlite.org/limits.html#max_expr_depth>).
    /// Deeper trees would fail to compile anyway, and generating their SQL by
    /// recursion could exhaust the thread's stack.
    static let maximumDepth = 1000

    /// Whether values are written as SQL literals (`'text'`, `42`) instead
    /// of `?` placeholders, for the schema objects where SQLite allows no
    /// parameters: views, triggers and CHECK constraints
    /// (see Schema/DatabaseValue+SQLLiteral.swift). `arguments` then stays empty.
    let rendersValuesAsLiterals: Bool

    init(db: Database?, rendersValuesAsLiterals: Bool = false) {
        self.db = db
        self.dialect = db?.sqlDialect ?? SQLiteDialect()
        self.rendersValuesAsLiterals = rendersValuesAsLiterals
    }

    /// `?`, with `value` appended to the arguments; or, in literal mode, the
    /// value as an SQL literal. A negative number is parenthesized, so that a
    /// `-` before it never makes a `--` comment.
    func placeholder(_ value: DatabaseValue) -> String {
        guard rendersValuesAsLiterals else {
            arguments.append(value)
            return "?"
        }
        let literal = value.sqlLiteral
        return literal.hasPrefix("-") ? "(" + literal + ")" : literal
    }

    /// Forgets the arguments from `start` on: their placeholders were
    /// replaced by a position in the selection (`GROUP BY 1`).
    func removeArguments(from start: Int) {
        arguments.removeSubrange(start...)
    }

    // MARK: - Expressions

    /// The SQL of an expression.
    ///
    /// `sql(_:)` recurses once per level of an expression (through
    /// `operand(_:)`), up to `maximumDepth` levels: its stack frame must stay
    /// small (see DeepExpressionTests, which run under AddressSanitizer too).
    /// So it binds no payload: each case's text is built by a function of its
    /// own, never inlined, and only that function's frame is on the stack.
    func sql(_ expression: SQLExpression) throws -> String {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw Self.tooDeep() }
        switch expression.node {
        case .column, .allColumns: return try columnSQL(expression)
        case .value, .literal, .countAll: return try valueSQL(expression)
        case .interpolated: return try interpolatedSQL(expression)
        case .prefix, .postfix, .collate: return try unarySQL(expression)
        case .infix: return try infixSQL(expression)
        case .function, .aggregateFilter: return try functionSQL(expression)
        case .inList, .inSubquery, .exists, .subquery, .associationAggregate: return try subquerySQL(expression)
        case .between, .match: return try rangeSQL(expression)
        case .caseWhen: return try caseWhenSQL(expression)
        case .primaryKeyIn, .primaryKeyColumn: return try primaryKeySQL(expression)
        case .fullTextFunction: return try fullTextFunctionSQL(expression)
        case .invalid(let error): throw error
        }
    }

    @inline(never)
    private static func tooDeep() -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_TOOBIG,
            message: "the expression is nested more than \(maximumDepth) levels deep, SQLite's limit")
    }

    @inline(never)
    private func columnSQL(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .column(let name, let qualifier): return try qualifierPrefix(qualifier) + name.quotedDatabaseIdentifier
        case .allColumns(let qualifier): return try qualifierPrefix(qualifier) + "*"
        default: return ""
        }
    }

    @inline(never)
    private func valueSQL(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .value(let value):
            return placeholder(value)
        case .literal(let sql, let values):
            guard rendersValuesAsLiterals, !values.isEmpty else {
                arguments += values
                return sql
            }
            // The fragment's parameters are plain `?` (see SQLFragment), one
            // per value; the scan skips strings, quoted identifiers and comments.
            var remaining = values.makeIterator()
            return try SQLFragment.rewritingParameters(sql) { _ in
                guard let value = remaining.next() else {
                    throw DatabaseError(resultCode: .SQLITE_RANGE, message: "a parameter has no value", sql: sql)
                }
                return placeholder(value)
            }
        case .countAll:
            return "COUNT(*)"
        default:
            return ""
        }
    }

    @inline(never)
    private func interpolatedSQL(_ expression: SQLExpression) throws -> String {
        guard case .interpolated(let literal) = expression.node else { return "" }
        return try sql(literal)
    }

    @inline(never)
    private func unarySQL(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .prefix(let op, let operand): return op + (try self.operand(operand))
        case .postfix(let operand, let op): return try self.operand(operand) + " " + op
        case .collate(let operand, let collation): return try self.operand(operand) + " COLLATE " + collation.quotedDatabaseIdentifier
        default: return ""
        }
    }

    @inline(never)
    private func infixSQL(_ expression: SQLExpression) throws -> String {
        guard case .infix(let op, let lhs, let rhs) = expression.node else { return "" }
        if op == "AND" || op == "OR" {
            // Flatten chains of the same operator: (a) AND (b) AND (c).
            return try expression.chainOperands(op).map(self.operand).joined(separator: " \(op) ")
        }
        if op == "->>", case .value(.text(let path)) = rhs.node, let extraction = dialect.jsonPathExtraction(lhs, path: path) {
            return try sql(extraction)
        }
        return try self.operand(lhs) + " \(op) " + self.operand(rhs)
    }

    @inline(never)
    private func functionSQL(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .function(let name, let functionArguments, let distinct):
            return try callSQL(name, functionArguments, distinct: distinct, filter: nil)
        case .aggregateFilter(let aggregate, let condition):
            // https://www.sqlite.org/lang_aggfunc.html#aggfilter
            // The filter belongs to the aggregate call, inside anything the
            // dialect wraps around it: `CAST(COALESCE(SUM(x) FILTER (…), 0) AS …)`.
            if case .function(let name, let functionArguments, let distinct) = aggregate.node {
                return try callSQL(name, functionArguments, distinct: distinct, filter: condition)
            }
            let aggregateSQL = try sql(aggregate)
            return aggregateSQL + (try filterSQL(condition))
        default:
            return ""
        }
    }

    /// ` FILTER (WHERE …)`, or empty without a condition.
    ///
    /// Call it only after the SQL of the aggregate's arguments is generated:
    /// the filter's values follow the arguments' values, as its text follows
    /// theirs (`SUM(age * ?) FILTER (WHERE age > ?)` binds 3, then 5).
    /// Never inlined: see `sql(_:)`.
    @inline(never)
    private func filterSQL(_ condition: SQLExpression?) throws -> String {
        guard let condition else { return "" }
        return " FILTER (WHERE " + (try sql(condition)) + ")"
    }

    /// The SQL of a call to `name`, followed by the aggregate's
    /// ` FILTER (WHERE condition)` when there is a condition, in the dialect's
    /// spelling. The call's arguments are generated before the filter, so
    /// that the values are bound in the order of their placeholders. Never
    /// inlined: see `sql(_:)`.
    @inline(never)
    private func callSQL(_ name: String, _ functionArguments: [SQLExpression], distinct: Bool, filter condition: SQLExpression?) throws -> String {
        if name == SQLExpression.hasSuffixFunction, functionArguments.count == 2 {
            let callSQL = try sql(dialect.hasSuffix(functionArguments[0], functionArguments[1]))
            return callSQL + (try filterSQL(condition))
        }
        if name == SQLExpression.castFunction, functionArguments.count == 2,
            case .value(.text(let type)) = functionArguments[1].node {
            let callSQL = try castSQL(functionArguments[0], DatabaseColumnType(rawValue: type))
            return callSQL + (try filterSQL(condition))
        }
        if let rewritten = try dialect.rewrittenFunctionCall(name, functionArguments) {
            let callSQL = try sql(rewritten)
            return callSQL + (try filterSQL(condition))
        }
        let argumentSQLs = try functionArguments.map(sql)
        // A dialect writes the filter after every argument (see
        // `SQLDialect.functionCallSQL`), so its values come last.
        let filter = try filterSQL(condition)
        if let text = dialect.functionCallSQL(name, arguments: argumentSQLs, distinct: distinct, filter: filter) {
            return text
        }
        return name + "(" + (distinct ? "DISTINCT " : "") + argumentSQLs.joined(separator: ", ") + ")" + filter
    }

    /// `CAST(x AS type)`, with the type as the dialect writes it in a column
    /// definition (`BIGINT` for `INTEGER` on PostgreSQL). The type name comes
    /// from a `DatabaseColumnType`, written by the program, never a value.
    private func castSQL(_ operand: SQLExpression, _ type: DatabaseColumnType) throws -> String {
        return "CAST(" + (try sql(operand)) + " AS " + dialect.columnTypeSQL(type) + ")"
    }

    @inline(never)
    private func subquerySQL(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .inList(let operand, let list, let negated):
            // A dialect may have no empty list.
            if list.isEmpty, let text = dialect.emptyInList(negated: negated) { return text }
            return try self.operand(operand) + (negated ? " NOT IN (" : " IN (") + list.map(sql).joined(separator: ", ") + ")"
        case .inSubquery(let operand, let query, let negated):
            return try self.operand(operand) + (negated ? " NOT IN (" : " IN (") + selectSQL(query) + ")"
        case .exists(let query, let negated):
            return (negated ? "NOT EXISTS (" : "EXISTS (") + (try selectSQL(query)) + ")"
        case .subquery(let query):
            return "(" + (try selectSQL(query)) + ")"
        case .associationAggregate(let aggregate):
            return try associationAggregateSQL(aggregate)
        default:
            return ""
        }
    }

    @inline(never)
    private func rangeSQL(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .between(let operand, let low, let high, let negated):
            return try self.operand(operand) + (negated ? " NOT BETWEEN " : " BETWEEN ") + self.operand(low) + " AND " + self.operand(high)
        case .match("GLOB", let operand, let pattern, nil, let negated):
            // A dialect without GLOB: the same match as a case-sensitive LIKE.
            guard let like = try dialect.likePattern(forGlob: pattern) else { return try matchSQL(expression) }
            return try self.operand(operand) + (negated ? " NOT LIKE " : " LIKE ") + placeholder(.text(like)) + #" ESCAPE '\'"#
        case .match:
            return try matchSQL(expression)
        default:
            return ""
        }
    }

    /// `x [NOT] LIKE pattern [ESCAPE e]`, `x [NOT] GLOB pattern`, as written.
    private func matchSQL(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .match(let op, let operand, let pattern, let escape, let negated):
            var text = try self.operand(operand) + (negated ? " NOT \(op) " : " \(op) ") + self.operand(pattern)
            if let escape {
                text += " ESCAPE " + placeholder(.text(escape))
            }
            return text
        default:
            return ""
        }
    }

    @inline(never)
    private func caseWhenSQL(_ expression: SQLExpression) throws -> String {
        guard case .caseWhen(let subject, let branches, let otherwise) = expression.node else { return "" }
        var text = "CASE"
        if let subject { text += " " + (try operand(subject)) }
        for branch in branches {
            text += " WHEN " + (try sql(branch.when)) + " THEN " + (try sql(branch.then))
        }
        if let otherwise { text += " ELSE " + (try sql(otherwise)) }
        return text + " END"
    }

    @inline(never)
    private func primaryKeySQL(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .primaryKeyIn(let table, let values, let qualifier): return try primaryKeySQL(table, values, qualifier)
        case .primaryKeyColumn(let table, let qualifier): return try primaryKeyColumnSQL(table, qualifier)
        default: return ""
        }
    }

    /// `"id"`, the primary key column of `table`. Never inlined, like
    /// `primaryKeySQL`: `sql(_:)` recurses once per level of an expression,
    /// and its stack frame must stay small (see DeepExpressionTests).
    @inline(never)
    private func primaryKeyColumnSQL(_ table: String, _ qualifier: SQLQualifier) throws -> String {
        try qualifierPrefix(qualifier) + singlePrimaryKey(table).quotedDatabaseIdentifier
    }

    /// The primary key column of `table`; throws if it has several columns.
    private func singlePrimaryKey(_ table: String) throws -> String {
        guard let db else { throw DatabaseError.misuse("a request by primary key needs a database connection") }
        let primaryKey = try SQLSchemaLookup.primaryKey(db, table: table)
        guard primaryKey.count == 1 else {
            throw DatabaseError.misuse(
                "the primary key of table \"\(table)\" has \(primaryKey.count) columns "
                    + "(\(primaryKey.joined(separator: ", "))): use a key dictionary instead")
        }
        return primaryKey[0]
    }

    /// `"id" = ?`, `"id" IN (?, ?)` or `FALSE`, for the primary key of `table`.
    @inline(never)
    private func primaryKeySQL(_ table: String, _ values: [DatabaseValue], _ qualifier: SQLQualifier) throws -> String {
        let column = SQLExpression(.column(try singlePrimaryKey(table), qualifier))
        switch values.count {
        case 0: return "FALSE"
        case 1: return try sql(SQLExpression(.infix("=", column, SQLExpression(.value(values[0])))))
        default: return try sql(SQLExpression(.inList(column, values.map { SQLExpression(.value($0)) }, negated: false)))
        }
    }

    /// `bm25("book_ft", ?, ?)`, `highlight("book_ft", ?, ?, ?)`: an FTS5
    /// auxiliary function (<https://www.sqlite.org/fts5.html#_auxiliary_functions_>).
    /// Its first argument is the full-text table's hidden column, named after
    /// the table and written unqualified; columns are bound as their index in
    /// the table, looked up here. Never inlined: see `sql(_:)`.
    @inline(never)
    private func fullTextFunctionSQL(_ expression: SQLExpression) throws -> String {
        guard case .fullTextFunction(let call) = expression.node else { return "" }
        var columns: [String] = []
        if call.arguments.contains(where: \.needsColumns) {
            guard let db else {
                throw DatabaseError.misuse("generating the SQL of \(call.name)() on \(call.table) needs a database connection")
            }
            columns = try db.columns(in: call.table).map { $0.name.asciiLowercased }
        }
        func index(of column: String) throws -> Int {
            guard let index = columns.firstIndex(of: column.asciiLowercased) else {
                throw DatabaseError.misuse(
                    "\(call.name)(): the full-text table \(call.table) has no column \(column) "
                        + "(its columns: \(columns.joined(separator: ", ")))")
            }
            return index
        }
        var text = call.name + "(" + call.table.quotedDatabaseIdentifier
        for argument in call.arguments {
            switch argument {
            case .value(let value):
                arguments.append(value)
                text += ", ?"
            case .column(let name):
                arguments.append(.integer(Int64(try index(of: name))))
                text += ", ?"
            case .weights(let weights):
                var values: [Double] = []
                for (column, weight) in weights.sorted(by: { $0.key < $1.key }) {
                    let position = try index(of: column)
                    while values.count <= position { values.append(1) }
                    values[position] = weight
                }
                for value in values {
                    arguments.append(.real(value))
                    text += ", ?"
                }
            }
        }
        return text + ")"
    }

    /// The SQL of an operand, in parentheses unless it is a single term.
    private func operand(_ expression: SQLExpression) throws -> String {
        switch expression.node {
        case .column, .value, .function, .countAll, .subquery, .allColumns, .invalid, .associationAggregate, .aggregateFilter,
            .fullTextFunction:
            return try sql(expression)
        default:
            return "(" + (try sql(expression)) + ")"
        }
    }

    /// Runs `body` with the columns of the current table qualified by `table`
    /// (PostgreSQL's upsert needs `"player"."score"`, where SQLite reads
    /// `"score"` as the existing row's).
    func qualifyingCurrentColumns<T>(with table: String, _ body: () throws -> T) rethrows -> T {
        let savedQualifier = currentQualifier
        defer { currentQualifier = savedQualifier }
        currentQualifier = table
        return try body()
    }

    private func qualifierPrefix(_ qualifier: SQLQualifier) throws -> String {
        switch qualifier {
        case .current:
            return currentQualifier.map { $0.quotedDatabaseIdentifier + "." } ?? ""
        case .alias(let alias):
            guard let name = aliasNames[ObjectIdentifier(alias)] else {
                throw DatabaseError.misuse(
                    "the table alias \(alias.name.map { "\"\($0)\"" } ?? "") is not used in this request: "
                        + "give it to the request or association with aliased(_:)")
            }
            return name.quotedDatabaseIdentifier + "."
        case .excluded:
            return "excluded."
        case .triggerRow(let isNew):
            return isNew ? "NEW." : "OLD."
        }
    }

    /// Names the aliases of joins (recursively) before any expression refers to them.
    func registerAliases(of joins: [SQLJoin]) {
        for join in joins {
            _ = register(join.alias, preferred: join.alias.name ?? join.key)
            registerAliases(of: join.joins)
        }
    }

    /// Gives `alias` a name unique in the statement, preferring `preferred`.
    func register(_ alias: TableAlias, preferred: String) -> String {
        if let name = aliasNames[ObjectIdentifier(alias)] { return name }
        var name = preferred
        var counter = 1
        while usedNames.contains(name.asciiLowercased) {
            counter += 1
            name = preferred + String(counter)
        }
        usedNames.insert(name.asciiLowercased)
        aliasNames[ObjectIdentifier(alias)] = name
        return name
    }
}
