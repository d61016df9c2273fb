// DecodingLayout: coding key → column index for one record type and one
// statement, resolved once and shared by every row (see RecordDecoder.swift
// for why decoding is written the way it is).

import Foundation

/// Coding key → column index for one record type and one set of columns,
/// shared by all fetches of a statement.
final class DecodingLayout {
    let columnNames: [String]
    private let nameIndex: RowLayout
    /// Keys in the order the record asked for them, with their column index (-1: missing).
    var keys: [String] = []
    var indexes: [Int32] = []
    /// Keys asked for out of order.
    private var fallback: [String: Int32] = [:]
    private let naming: DatabaseColumnNamingStrategy
    /// The record's JSON decoder of a column, and those made so far.
    private let makeJSONDecoder: (String) -> JSONDecoder
    private var jsonDecoders: [String: JSONDecoder] = [:]
    /// The statement column index of `columnNames[0]`: non-zero for the
    /// columns of an included association, which follow other columns.
    let offset: Int32

    init(
        columnNames: [String], naming: DatabaseColumnNamingStrategy, offset: Int32 = 0,
        jsonDecoder: @escaping (String) -> JSONDecoder
    ) {
        self.columnNames = columnNames
        self.nameIndex = RowLayout(columnNames: columnNames)
        self.naming = naming
        self.offset = offset
        self.makeJSONDecoder = jsonDecoder
    }

    /// The JSON decoder of a column (the record's ``FetchableRecord/databaseJSONDecoder(for:)``).
    func jsonDecoder(forColumn column: String) -> JSONDecoder {
        if let decoder = jsonDecoders[column] { return decoder }
        let decoder = makeJSONDecoder(column)
        jsonDecoders[column] = decoder
        return decoder
    }

    /// The column name a key maps to.
    func columnName(for key: String) -> String { naming.columnName(for: key) }

    /// The column index of a key, through the dictionary (slow path).
    func resolve(_ key: String) -> Int32 {
        if let index = fallback[key] { return index }
        let index = nameIndex.index(of: naming.columnName(for: key)).map { Int32($0) + offset } ?? -1
        fallback[key] = index
        return index
    }
}
