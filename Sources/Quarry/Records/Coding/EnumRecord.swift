// EnumRecord: records that are enums with associated values, stored in one
// table with a discriminator column (single-table inheritance):
//
//     enum Media: Codable, FetchableRecord, PersistableRecord {
//         case book(Book)         // kind = 'book', columns of Book
//         case film(Film)         // kind = 'film', columns of Film
//     }
//
// Synthesized Codable codes an enum as a keyed container with one key, the
// case, holding a nested container of its associated values (`_0`, or their
// labels). The record coders read that shape as:
// - the case's key is the value of the discriminator column
//   (`TableRecord.databaseDiscriminatorColumn`, "kind" by default);
// - each associated value is stored in columns of the row: a single value
//   in the column named by its label, a struct spread over columns under its
//   own keys (ColumnGroupPath.Rule .enumCase and .payload).
//
// Writing a record writes the columns of every case, NULL for those of other
// cases (so that an update from one case to another leaves nothing stale),
// in one order per type: EnumRecordColumns learns it once per type by
// encoding a made-up value of each case.

import Foundation
import Synchronization

extension TableRecord {
    /// `"kind"`: the column that holds the case of an enum record.
    public static var databaseDiscriminatorColumn: String { "kind" }
}

/// The columns an enum record writes: those of all its cases, in one order.
final class EnumRecordColumns: Sendable {
    /// Column names (naming strategy applied), the discriminator first.
    let columns: [String]
    let indexes: [String: Int]

    init(columns: [String]) {
        self.columns = columns
        var indexes: [String: Int] = [:]
        for (index, column) in columns.enumerated() where indexes[column] == nil { indexes[column] = index }
        self.indexes = indexes
    }

    private static let known = Mutex<[ObjectIdentifier: EnumRecordColumns?]>([:])

    /// Whether `type` is an enum with associated values (a candidate enum record).
    static func isEnumRecord(_ type: Any.Type) -> Bool {
        (EnumMetadata.info(of: type)?.payloadCaseCount ?? 0) > 0
    }

    /// The column that holds the case of `type` when it is an enum record
    /// (its ``TableRecord/databaseDiscriminatorColumn``, `"kind"` for a type
    /// that is no TableRecord); nil for other types. The record coders read
    /// it once, when they are made.
    static func discriminatorColumn(of type: Any.Type) -> String? {
        guard isEnumRecord(type) else { return nil }
        return (type as? any TableRecord.Type)?.databaseDiscriminatorColumn ?? "kind"
    }

    /// The columns of every case of an enum record, or nil when they cannot be
    /// learned (a record that is not Decodable, or a case the probe cannot make).
    static func of<Record: EncodableRecord & Encodable>(_ type: Record.Type) -> EnumRecordColumns? {
        let id = ObjectIdentifier(Record.self)
        if let known = known.withLock({ $0[id] }) { return known }
        let columns = learn(Record.self)
        known.withLock { $0[id] = columns }
        return columns
    }

    private static func learn<Record: EncodableRecord & Encodable>(_ type: Record.Type) -> EnumRecordColumns? {
        guard let decodable = Record.self as? any Decodable.Type else { return nil }
        var columns: [String] = []
        var caseIndex = 0
        while true {
            let caseCount = CaseCount()
            guard let value = makeCase(decodable, caseIndex, caseCount) as? Record else { return nil }
            var container = PersistenceContainer()
            do {
                try PersistenceEncoder.encode(value, into: &container, canonicalEnumOrder: false)
            } catch {
                return nil
            }
            for column in container.columns where !columns.contains(column) { columns.append(column) }
            caseIndex += 1
            if caseIndex >= caseCount.value { break }
        }
        return EnumRecordColumns(columns: columns)
    }

    /// A value of case `index`, its associated values made by the key-path probe.
    private static func makeCase<T: Decodable>(_ type: T.Type, _ index: Int, _ count: CaseCount) -> T? {
        for choice in 0..<ProbeValues.choiceCount {
            if let value = try? T(from: CaseProbeDecoder(caseIndex: index, choice: choice, caseCount: count)) {
                return value
            }
        }
        return nil
    }
}

/// The number of cases, learned when the enum asks for its container.
private final class CaseCount: @unchecked Sendable {
    var value = 0
}

/// Decodes an enum record as case `caseIndex`, with made-up associated values.
private struct CaseProbeDecoder: Decoder {
    let caseIndex: Int
    let choice: Int
    let caseCount: CaseCount
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let cases = EnumMetadata.allCases(Key.self) ?? []
        caseCount.value = cases.count
        guard caseIndex < cases.count else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no case \(caseIndex)"))
        }
        return KeyedDecodingContainer(Keyed<Key>(key: cases[caseIndex], choice: choice))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "an enum record decodes from a keyed container"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "an enum record decodes from a keyed container"))
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let key: Key
        let choice: Int
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [key] }
        func contains(_ key: Key) -> Bool { key.stringValue == self.key.stringValue }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try ProbeValues.make(T.self, bit: false, choice: choice, depth: 1)
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try NestedProbeDecoder(bit: false, choice: choice, depth: 1).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try NestedProbeDecoder(bit: false, choice: choice, depth: 1).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder { NestedProbeDecoder(bit: false, choice: choice, depth: 1) }
        func superDecoder(forKey key: Key) throws -> any Decoder { NestedProbeDecoder(bit: false, choice: choice, depth: 1) }
    }
}
