// Row.decode(_:): a copied row decoded through Decodable, whatever the
// type's init(row:).

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
