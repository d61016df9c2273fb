// ColumnGroup: a nested Codable struct that a record stores as real columns
// (`address_street`, `address_city`) instead of one JSON column.
//
// A group is opted into by conformance, with no macro and no column list:
// the record's encoder, decoder and key-path probe see the group's type at a
// coding key and code its members as columns of the record's own row, their
// names made by `databaseColumnName(forKey:inGroup:)` (a prefix by default).
// Groups nest: a group inside a group composes both names
// (`address_geo_latitude`). Everything here is shared by the three coders:
//
// - ColumnGroupPath: the chain of group keys from the record down to a group,
//   which turns a member's coding key into the key of its column;
// - ColumnGroupDecoder / ColumnGroupEncoder: the Decoder and Encoder handed
//   to a group's `init(from:)` and `encode(to:)`; their keyed containers are
//   the record's own containers with a path, so a group's members are read
//   and written exactly like the record's own properties.

import Foundation

/// A nested value type that a record stores in columns of its own table,
/// one column per property, instead of one JSON column.
///
/// By default a nested `Codable` struct is stored as JSON text in one
/// column. Conform it to `ColumnGroup` to spread it over columns instead:
///
/// ```swift
/// struct Address: Codable, ColumnGroup {
///     var street: String
///     var city: String
/// }
///
/// struct Customer: Codable, FetchableRecord, PersistableRecord {
///     var id: Int64
///     var name: String
///     var address: Address       // columns address_street, address_city
///     var billing: Address?      // columns billing_street, billing_city
/// }
///
/// try db.create(table: "customer") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull()
///     t.columns(of: Address.self, inGroup: "address")
///     t.columns(of: Address.self, inGroup: "billing", optional: true)
/// }
///
/// // SELECT * FROM "customer" WHERE "address_city" = 'Oslo'
/// let customers = try Customer.filter(\.address.city == "Oslo").fetchAll(db)
/// ```
///
/// - The column of a member is named by
///   ``databaseColumnName(forKey:inGroup:)``: the group's coding key, an
///   underscore, and the member's coding key (`address_city`). Implement it
///   to choose another rule. The record's column naming strategy then applies
///   to the whole name.
/// - Key paths into a group name its columns: `\.address.city` is the column
///   `address_city`, in filters, ordering, selections and assignments. A key
///   path to the group itself (`\.address`) names several columns, and is
///   refused with an error that lists them.
/// - An optional group is stored as NULL in each of its columns when it is
///   nil, and decodes as nil when all of its columns are NULL.
/// - Groups nest: a group property inside a group is stored in columns
///   whose names compose both rules (`address_geo_latitude`).
/// - A group nested in a value stored as JSON (an array of addresses, a
///   group inside a struct that is not a group) is part of that JSON.
public protocol ColumnGroup: Codable {
    /// The key of the column that stores the member `key` of a group stored
    /// at the coding key `groupKey` of its record (or of its enclosing group).
    ///
    /// The default is `"\(groupKey)_\(key)"`: the member `city` of the group
    /// `address` is stored in the column `address_city`. Return `key` to store
    /// the members under their own names.
    ///
    /// - Parameters:
    ///   - key: The coding key of a member of the group.
    ///   - groupKey: The coding key of the group in its record or enclosing group.
    static func databaseColumnName(forKey key: String, inGroup groupKey: String) -> String
}

extension ColumnGroup {
    /// `"\(groupKey)_\(key)"`.
    ///
    /// - Parameters:
    ///   - key: The coding key of a member of the group.
    ///   - groupKey: The coding key of the group in its record or enclosing group.
    public static func databaseColumnName(forKey key: String, inGroup groupKey: String) -> String {
        "\(groupKey)_\(key)"
    }
}

/// The chain of groups from a record down to one group: turns the coding key
/// of a member into the coding key of its column in the record's row.
///
/// The case of an enum record (EnumRecord.swift) and the values it carries
/// are paths too, whose members keep their own keys.
final class ColumnGroupPath {
    enum Rule {
        /// A column group: its naming rule applies.
        case group(any ColumnGroup.Type)
        /// The case of an enum record: its associated values are stored in
        /// columns (a struct value is spread over columns, like a group).
        case enumCase
        /// A struct carried by the case of an enum record: its members are
        /// columns, under their own keys.
        case payload
    }

    let parent: ColumnGroupPath?
    let rule: Rule
    /// The coding key of the group in its record or enclosing group.
    let key: String

    init(parent: ColumnGroupPath?, group: any ColumnGroup.Type, key: String) {
        self.parent = parent
        self.rule = .group(group)
        self.key = key
    }

    init(parent: ColumnGroupPath?, rule: Rule, key: String) {
        self.parent = parent
        self.rule = rule
        self.key = key
    }

    /// The record-level key of a member: the innermost rule first.
    func key(of member: String) -> String {
        let name: String
        switch rule {
        case .group(let group): name = group.databaseColumnName(forKey: member, inGroup: key)
        case .enumCase, .payload: name = member
        }
        return parent?.key(of: name) ?? name
    }

    /// Whether a struct value at this level is spread over columns (the
    /// associated values of an enum record's case), not stored as JSON.
    var spreadsValues: Bool {
        if case .enumCase = rule { return true }
        return false
    }

    /// What the path stands for, in error messages.
    var subject: String {
        switch rule {
        case .group(let group): return "the column group \(group)"
        case .enumCase: return "the case \"\(key)\""
        case .payload: return "the value of the case \"\(parent?.key ?? key)\""
        }
    }

    /// The record-level keys of every column of a group at this path, nested
    /// groups included, in the order the group decodes them.
    func memberKeys(of group: any ColumnGroup.Type) throws -> [String] {
        try group.relativeColumnKeys().map(key(of:))
    }
}

extension Optional where Wrapped == ColumnGroupPath {
    /// The record-level key of a container's key: its column's key (the
    /// naming strategy then applies), composed with the enclosing groups'
    /// keys if any (the record's own containers have no path).
    @inline(__always)
    func recordKey(_ key: String) -> String {
        guard let path = self else { return key }
        return path.key(of: key)
    }

    /// The path of a value of `type` at `key` of a container at this path,
    /// when the value is spread over columns of the record — a column group,
    /// or a struct carried by an enum record's case — and nil for a value
    /// stored in one column. The encoder and the decoder both ask this.
    func spreadPath(for type: Any.Type, key: String) -> ColumnGroupPath? {
        if let group = type as? any ColumnGroup.Type { return ColumnGroupPath(parent: self, group: group, key: key) }
        if let path = self, path.spreadsValues { return ColumnGroupPath(parent: path, rule: .payload, key: key) }
        return nil
    }
}

extension ColumnGroup {
    /// The keys of the group's columns relative to the group (nested groups
    /// composed): the keys of the group's probe, which flattens nested groups.
    static func relativeColumnKeys() throws -> [String] {
        try RecordColumns.probe(Self.self).keys
    }
}

/// The Decoder handed to a group's `init(from:)`: its keyed container is the
/// record decoder's container, reading the group's columns by their
/// record-level keys.
struct ColumnGroupDecoder: Decoder {
    let decoder: RecordDecoder
    let path: ColumnGroupPath
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { decoder.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordKeyedDecodingContainer<Key>(decoder: decoder, groupPath: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw refusal([Any].self, "an unkeyed container")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw refusal(Any.self, "a single value container")
    }

    private func refusal(_ type: Any.Type, _ container: String) -> RowDecodingError {
        decoder.error(
            .other("\(path.subject) asked for \(container); it must decode its members with a keyed container"),
            column: path.parent?.key(of: path.key) ?? path.key, expectedType: type)
    }
}

/// The Encoder handed to a group's `encode(to:)`: its keyed container is the
/// record encoder's container, writing the group's columns by their
/// record-level keys.
struct ColumnGroupEncoder: Encoder {
    let encoder: PersistenceEncoder
    let path: ColumnGroupPath
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { encoder.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordKeyedEncodingContainer<Key>(encoder: encoder, groupPath: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.fail("\(path.subject) asked for an unkeyed container; it must encode its members with a keyed container")
        return encoder.unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        encoder.fail("\(path.subject) asked for a single value container; it must encode its members with a keyed container")
        return encoder.singleValueContainer()
    }
}
