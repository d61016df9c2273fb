// Decoding many rows that share their columns (the slices of an included
// association, prefetched rows) without resolving coding keys for each row.

extension FetchableRecord {
    /// A function that decodes records from rows that all have `columnNames`.
    ///
    /// For a Decodable record that uses Quarry's default `init(row:)`, the
    /// coding key → column layout is resolved once and shared by all rows; a
    /// hand-written `init(row:)` is always honored (it is detected on the
    /// first row, as for statements).
    static func rowReader(columnNames: [String]) -> (Row) throws -> Self {
        guard let decodable = Self.self as? any (FetchableRecord & Decodable).Type,
            let box = openRowReader(decodable, columnNames) as? RowReaderBox<Self>
        else { return { try Self(row: $0) } }
        let fastReader = box.read
        switch DefaultRowInitializerProbe.usesDefault(Self.self) {
        case true?: return fastReader
        case false?: return { try Self(row: $0) }
        case nil:
            var decided: ((Row) throws -> Self)?
            return { row in
                if let decided { return try decided(row) }
                let (result, usedDefault) = DefaultRowInitializerProbe.probe(Self.self) { Result { try Self(row: row) } }
                DefaultRowInitializerProbe.record(Self.self, usesDefault: usedDefault)
                decided = usedDefault ? fastReader : { try Self(row: $0) }
                return try result.get()
            }
        }
    }
}

extension FetchableRecord where Self: Decodable {
    /// The Decodable reader of rows with `columnNames`, with one shared layout.
    static func decodableRowReader(columnNames: [String]) -> RowReaderBox<Self> {
        let layout = DecodingLayout(
            columnNames: columnNames, naming: Self.databaseColumnDecodingStrategy, jsonDecoder: Self.databaseJSONDecoder(for:))
        // One decoder for all rows, pointed at each row in turn.
        let decoder = RecordDecoder(
            row: Row(layout: RowLayout(columnNames: columnNames), databaseValues: []), layout: layout,
            recordType: Self.self, dateStrategy: Self.databaseDateDecodingStrategy)
        if let plan = DirectDecodingPlan.of(Self.self) {
            let direct = DirectRecordReader<Self>(plan: plan, layout: layout)
            return RowReaderBox { row in try decoder.decodeRow(row) { try direct.read($0) } }
        }
        return RowReaderBox { row in try decoder.decodeRow(row) { try Self(from: $0) } }
    }
}

private func openRowReader<R: FetchableRecord & Decodable>(_ type: R.Type, _ columnNames: [String]) -> AnyObject {
    R.decodableRowReader(columnNames: columnNames)
}

/// A row reader in a generic class, so that it casts back to its exact type.
final class RowReaderBox<Record> {
    let read: (Row) throws -> Record
    init(_ read: @escaping (Row) throws -> Record) { self.read = read }
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
