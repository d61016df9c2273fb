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
        if db.server != nil {
            return try StatementCursor(serverRows: db.serverRows(sql: sql, arguments: arguments), decode: RowDecodingError.naming(sql) { try $0[0] as Self })
        }
        return try StatementCursor(statement: db.cachedStatement(sql: sql), arguments: arguments) { statement in
            try statement.decode(Self.self, at: 0)
        }
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
        if db.server != nil { return try db.serverRows(sql: sql, arguments: arguments).map(RowDecodingError.naming(sql) { try $0[0] as Self }) }
        let statement = try db.cachedStatement(sql: sql)
        try statement.bindArguments(arguments)
        var values: [Self] = []
        try statement.forEachRow { values.append(try statement.decode(Self.self, at: 0)) }
        return values
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
        if db.server != nil { return try db.serverRows(sql: sql, arguments: arguments).first.flatMap(RowDecodingError.naming(sql) { try $0[0] as Self? }) }
        let statement = try db.cachedStatement(sql: sql)
        try statement.bindArguments(arguments)
        return try statement.firstRow { try statement.decodeIfPresent(Self.self, at: 0) } ?? nil
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// The distinct values in the first column of the rows of `sql`.
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Self> {
        if db.server != nil { return try Set(db.serverRows(sql: sql, arguments: arguments).map(RowDecodingError.naming(sql) { try $0[0] as Self })) }
        let statement = try db.cachedStatement(sql: sql)
        try statement.bindArguments(arguments)
        var values: Set<Self> = []
        try statement.forEachRow { values.insert(try statement.decode(Self.self, at: 0)) }
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
        if db.server != nil { return try db.serverRows(sql: sql, arguments: arguments).map(RowDecodingError.naming(sql) { try $0[0] as Wrapped? }) }
        let statement = try db.cachedStatement(sql: sql)
        try statement.bindArguments(arguments)
        var values: [Wrapped?] = []
        try statement.forEachRow { values.append(try statement.decodeIfPresent(Wrapped.self, at: 0)) }
        return values
    }

    /// A cursor over the values in the first column of the rows of `sql`, nil for `NULL`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> StatementCursor<Wrapped?> {
        if db.server != nil {
            return try StatementCursor(serverRows: db.serverRows(sql: sql, arguments: arguments), decode: RowDecodingError.naming(sql) { try $0[0] as Wrapped? })
        }
        return try StatementCursor(statement: db.cachedStatement(sql: sql), arguments: arguments) { statement in
            try statement.decodeIfPresent(Wrapped.self, at: 0)
        }
    }
}
