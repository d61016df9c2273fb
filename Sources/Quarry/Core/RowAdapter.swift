// RowAdapter: views of a row's columns, for raw SQL that joins tables whose
// columns share names (`SELECT player.*, team.* …`): a range of the columns,
// or named scopes, each decoded into its own record. GRDB's spellings
// (`splittingRowAdapters(columnCounts:)`, `ScopeAdapter`, `RangeRowAdapter`,
// `SuffixRowAdapter`) name one value type here, not a protocol.

/// Which columns of a fetched row a record reads: a range of them, or named
/// scopes (``Row/scopes``), each a view of its own.
///
/// Without an adapter, a record decoded from `SELECT player.*, team.*` reads
/// each same-named column (`id`, `name`) from the leftmost table. Split the
/// row by table instead:
///
/// ```swift
/// let adapters = splittingRowAdapters(columnCounts: [
///     try db.columns(in: "player").count, try db.columns(in: "team").count])
/// let adapter = ScopeAdapter(["player": adapters[0], "team": adapters[1]])
/// let rows = try Row.fetchAll(db, sql: "SELECT player.*, team.* FROM player JOIN team ON team.id = player.teamID", adapter: adapter)
/// for row in rows {
///     let player: Player = try row["player"]
///     let team: Team = try row["team"]
/// }
/// ```
///
/// An adapter that asks for columns the row does not have throws a
/// ``DatabaseError`` (`SQLITE_MISUSE`) naming the range and the row's width.
public struct RowAdapter: Sendable {
    indirect enum Kind: Sendable {
        /// The columns in the range.
        case range(Range<Int>)
        /// The columns from an index to the end.
        case suffix(Int)
        /// The base row (all columns, or an adapter's), with named scopes.
        case scopes(base: RowAdapter?, [String: RowAdapter])
    }

    let kind: Kind

    /// The columns in `range`: `RangeRowAdapter(0..<3)`.
    public init(_ range: Range<Int>) {
        kind = .range(range)
    }

    /// The columns in `range`: `RangeRowAdapter(0...2)`.
    public init(_ range: ClosedRange<Int>) {
        kind = .range(Range(range))
    }

    /// The columns from `index` to the end: `SuffixRowAdapter(fromIndex: 3)`.
    public init(fromIndex index: Int) {
        kind = .suffix(index)
    }

    /// All columns, with named scopes: `ScopeAdapter(["team": adapters[1]])`.
    public init(_ scopes: [String: RowAdapter]) {
        kind = .scopes(base: nil, scopes)
    }

    /// The columns of `base`, with named scopes (each applied to the whole
    /// fetched row).
    public init(base: RowAdapter, scopes: [String: RowAdapter]) {
        kind = .scopes(base: base, scopes)
    }

    /// The view of `row` this adapter describes.
    func adapt(_ row: Row) throws -> Row {
        switch kind {
        case .range(let range):
            return try row.columns(range)
        case .suffix(let index):
            return try row.columns(index..<max(index, row.count))
        case .scopes(let base, let scopes):
            var adapted = try base?.adapt(row) ?? row
            for (name, adapter) in scopes {
                adapted.scopes[name] = try adapter.adapt(row)
            }
            return adapted
        }
    }
}

/// GRDB's name of the adapter of a range of columns.
public typealias RangeRowAdapter = RowAdapter

/// GRDB's name of the adapter of the columns from an index to the end.
public typealias SuffixRowAdapter = RowAdapter

/// GRDB's name of the adapter that names scopes.
public typealias ScopeAdapter = RowAdapter

/// Adapters that split a row into consecutive groups of columns, one per
/// count, the last one taking the remaining columns: for
/// `SELECT player.*, team.*`, pass the column counts of both tables.
///
/// ```swift
/// let adapters = splittingRowAdapters(columnCounts: [4, 2])
/// // RangeRowAdapter(0..<4), SuffixRowAdapter(fromIndex: 4)
/// ```
public func splittingRowAdapters(columnCounts: [Int]) -> [RowAdapter] {
    var adapters: [RowAdapter] = []
    var start = 0
    for (index, count) in columnCounts.enumerated() {
        if index == columnCounts.count - 1 {
            adapters.append(RowAdapter(fromIndex: start))
        } else {
            adapters.append(RowAdapter(start..<start + max(0, count)))
            start += max(0, count)
        }
    }
    return adapters
}

extension Row {
    /// The columns in `range`, as a row of its own.
    func columns(_ range: Range<Int>) throws -> Row {
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw DatabaseError.misuse(
                "a row adapter asks for the columns \(range.lowerBound)..<\(range.upperBound) of a row of \(count) columns \(columnNames)")
        }
        return Row(layout: RowLayout(columnNames: Array(columnNames[range])), databaseValues: Array(databaseValues[range]))
    }

    // MARK: Fetching adapted rows

    /// A cursor over the rows of `sql`, each adapted by `adapter`.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: RowAdapter
    ) throws -> MapCursor<StatementCursor<Row>, Row> {
        try fetchCursor(db, sql: sql, arguments: arguments).map { try adapter.adapt($0) }
    }

    /// All the rows of `sql`, each adapted by `adapter`.
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: RowAdapter
    ) throws -> [Row] {
        try fetchAll(db, sql: sql, arguments: arguments).map { try adapter.adapt($0) }
    }

    /// The first row of `sql`, adapted by `adapter`, or nil.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: RowAdapter
    ) throws -> Row? {
        try fetchOne(db, sql: sql, arguments: arguments).map { try adapter.adapt($0) }
    }
}
