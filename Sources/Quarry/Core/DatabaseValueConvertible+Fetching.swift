// Fetching single values with raw SQL: Int.fetchOne(db, sql:), String.fetchAll(...), and so on.
//
// Values are read from the first column of each row, through the type's fast path.

extension DatabaseValueConvertible {
    /// A cursor over the values in the first column of the rows of `sql`.
    ///
    /// Throws when a value is `NULL` or does not convert; use
    /// `Optional<Self>.fetchCursor` for columns that may be `NULL`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> StatementCursor<Self> {
        try db.prepared(sql: sql, arguments: arguments).fetchCursor(.firstColumn)
    }

    /// The values in the first column of the rows of `sql`.
    ///
    /// ```swift
    /// let names = try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY name")
    /// ```
    ///
    /// Throws when a value is `NULL` or does not convert; use
    /// `Optional<Self>.fetchAll` for columns that may be `NULL`.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try db.prepared(sql: sql, arguments: arguments).fetchAll(.firstColumn)
    }

    /// The value in the first column of the first row of `sql`; nil if there is
    /// no row or the value is `NULL`.
    ///
    /// ```swift
    /// let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM player")   // Int?
    /// ```
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try db.prepared(sql: sql, arguments: arguments).fetchOne(.optionalFirstColumn()) ?? nil
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values in the first column of the rows of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Self> {
        let statement = try db.prepared(sql: sql, arguments: arguments)
        let read = try statement.reader(RowReading<Self>.firstColumn)
        var values: Set<Self> = []
        try statement.forEachRow { values.insert(try read()) }
        return values
    }
}

extension Optional where Wrapped: DatabaseValueConvertible {
    /// The values in the first column of the rows of `sql`, nil for `NULL`.
    ///
    /// ```swift
    /// let emails = try Optional<String>.fetchAll(db, sql: "SELECT email FROM player")   // [String?]
    /// ```
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Wrapped?] {
        try db.prepared(sql: sql, arguments: arguments).fetchAll(.optionalFirstColumn())
    }

    /// A cursor over the values in the first column of the rows of `sql`, nil for `NULL`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> StatementCursor<Wrapped?> {
        try db.prepared(sql: sql, arguments: arguments).fetchCursor(.optionalFirstColumn())
    }
}
