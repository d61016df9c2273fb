// SQLRequest: a request written in SQL (an SQL literal, or raw SQL with
// arguments), fetched like a query-interface request: rows, values or records.

/// A request written in SQL, whose rows decode as `Result`: a ``Row``, a
/// value (``DatabaseValueConvertible``, optional or not), or a record
/// (``FetchableRecord``, or another `Decodable` type, by column name).
///
/// ```swift
/// let request: SQLRequest<Player> = "SELECT * FROM \(Player.self) WHERE \(\Player.name) = \(name)"
/// let players = try request.fetchAll(db)
/// // SELECT * FROM "player" WHERE "name" = ?
///
/// let count = try SQLRequest<Int>(sql: "SELECT count(*) FROM player WHERE score > ?", arguments: [10]).fetchOne(db)
/// ```
///
/// Interpolated values are bound as arguments, never pasted into the SQL (see ``SQL``).
public struct SQLRequest<Result>: Sendable, ExpressibleByStringInterpolation {
    /// The SQL of the request.
    public let literal: SQL
    let decoder: ResultDecoder<Result>

    /// A request from an SQL literal.
    public init(literal: SQL) {
        self.literal = literal
        self.decoder = Self.defaultDecoder()
    }

    /// A request from raw SQL with positional or named arguments (never
    /// built from user input).
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        self.init(literal: SQL(sql: sql, arguments: arguments))
    }

    /// A request from SQL text without interpolations.
    public init(stringLiteral value: String) {
        self.init(literal: SQL(stringLiteral: value))
    }

    /// A request from SQL text with interpolations.
    public init(stringInterpolation: SQLInterpolation) {
        self.init(literal: SQL(stringInterpolation: stringInterpolation))
    }

    /// How rows decode as `Result`, chosen from what `Result` is.
    private static func defaultDecoder() -> ResultDecoder<Result> {
        .natural(for: Result.self, root: Result.self, tableName: nil)
    }

    /// The SQL text and arguments the request runs.
    public func sql(_ db: Database) throws -> GeneratedSQL {
        try literal.sql(db)
    }

    /// The statement of the request, with its arguments bound.
    private func prepared(_ db: Database) throws -> any PreparedStatement {
        let generated = try literal.sql(db)
        return try db.prepared(sql: generated.sql, arguments: generated.arguments)
    }

    /// How to read each row.
    private var reading: RowReading<Result> {
        decoder.reading(.plain)
    }

    /// All the rows of the request.
    public func fetchAll(_ db: Database) throws -> [Result] {
        try prepared(db).fetchAll(reading)
    }

    /// The first row of the request, or nil. The SQL is run as written (no
    /// `LIMIT` is added).
    public func fetchOne(_ db: Database) throws -> Result? {
        try prepared(db).fetchOne(reading)
    }

    /// A cursor over the rows of the request, read one at a time.
    public func fetchCursor(_ db: Database) throws -> StatementCursor<Result> {
        try prepared(db).fetchCursor(reading)
    }
}

extension SQLRequest where Result: Hashable {
    /// The distinct rows of the request, as a set.
    public func fetchSet(_ db: Database) throws -> Set<Result> {
        Set(try fetchAll(db))
    }
}
