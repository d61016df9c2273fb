// Decoding many rows that share their columns (the rows of a RETURNING
// clause, cached records) without resolving coding keys for each row.

extension FetchableRecord {
    /// A function that decodes records from rows that all have `columnNames`.
    ///
    /// The record reader (FetchableRecord.swift) is made once, so the coding
    /// key → column layout is resolved once and shared by all rows; a
    /// hand-written `init(row:)` is always honored.
    static func rowReader(columnNames: [String]) -> (Row) throws -> Self {
        // Readers read whichever source each row comes from: this buffer
        // only gives them the columns.
        let read = reader(for: RowBuffer(columnNames: columnNames), columns: 0..<columnNames.count)
        return { row in
            let buffer = RowBuffer(columnNames: columnNames, values: row.databaseValues)
            return try withExtendedLifetime(buffer) { try read(buffer) }
        }
    }
}

extension Row {
    /// The row decoded as `type` through `Decodable`, with the coding
    /// strategies of `type`, even when `type` has a hand-written `init(row:)`:
    /// the way for a hand-written `init(row:)` to reuse the Decodable decoding.
    ///
    /// ```swift
    /// struct PlayerInfo: FetchableRecord {
    ///     var player: Player
    ///     var bonus: Int
    ///     init(row: Row) throws {
    ///         player = try row.decode(Player.self)   // the Decodable decoding of Player
    ///         bonus = try row["bonus"]
    ///     }
    /// }
    /// ```
    ///
    /// Throws a ``RowDecodingError`` that names the type and the column.
    public func decode<T: FetchableRecord & Decodable>(_ type: T.Type) throws -> T {
        try T.decodedFromRow(self)
    }
}
