// Fetching rows with raw SQL: Row.fetchCursor / fetchAll / fetchOne.


extension Row {
    /// A cursor over the rows of `sql`: rows are read one at a time, in constant memory.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT * FROM player WHERE score > ?", arguments: [10])
    /// while let row = try rows.next() { ... }
    /// ```
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> StatementCursor<Row> {
        try db.prepared(sql: sql, arguments: arguments).fetchCursor(.rows)
    }

    /// A cursor over the rows of a prepared statement.
    public static func fetchCursor(
        _ statement: Statement, arguments: StatementArguments = StatementArguments()
    ) throws -> StatementCursor<Row> {
        let layout = RowLayout(columnNames: statement.columnNames)
        return try StatementCursor(statement: statement, arguments: arguments) { statement in
            Row(statement, layout: layout)
        }
    }

    /// All rows of `sql`.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Row] {
        try db.prepared(sql: sql, arguments: arguments).fetchAll(.rows)
    }

    /// All rows of a prepared statement.
    public static func fetchAll(
        _ statement: Statement, arguments: StatementArguments = StatementArguments()
    ) throws -> [Row] {
        try statement.bindArguments(arguments)
        let layout = RowLayout(columnNames: statement.columnNames)
        var rows: [Row] = []
        try statement.forEachRow { rows.append(Row(statement, layout: layout)) }
        return rows
    }

    /// The distinct rows of `sql` (same column names and values).
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Row> {
        try Set(fetchCursor(db, sql: sql, arguments: arguments))
    }

    /// The first row of `sql`, or nil if there is none.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Row? {
        try db.prepared(sql: sql, arguments: arguments).fetchOne(.rows)
    }

    /// The first row of a prepared statement, or nil if there is none.
    public static func fetchOne(
        _ statement: Statement, arguments: StatementArguments = StatementArguments()
    ) throws -> Row? {
        try statement.bindArguments(arguments)
        return try statement.firstRow { Row(statement, layout: RowLayout(columnNames: statement.columnNames)) }
    }
}

extension Statement {
    /// Decodes the first row with `decode`, or returns nil if there is no row;
    /// the statement is reset either way.
    @inline(__always)
    func firstRow<T>(_ decode: () throws -> T) throws -> T? {
        defer { reset() }
        guard try step() else { return nil }
        return try decode()
    }
}
