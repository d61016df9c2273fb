// TableDefinition+ColumnGroup: the columns of a column group in the schema
// DSL — `t.columns(of: Address.self, inGroup: "address")` adds
// `address_street`, `address_city`, with types and NOT NULL read from the
// group's Swift types, the way its records will store them.

import Foundation

extension TableDefinition {
    /// Adds one column per member of a column group, named as records store
    /// them (see ``ColumnGroup``).
    ///
    /// ```swift
    /// struct Address: Codable, ColumnGroup {
    ///     var street: String
    ///     var city: String
    ///     var postalCode: String?
    /// }
    ///
    /// try db.create(table: "customer") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     try t.columns(of: Address.self, inGroup: "address")
    /// }
    /// // CREATE TABLE "customer" ("id" INTEGER PRIMARY KEY AUTOINCREMENT,
    /// //   "address_street" TEXT NOT NULL, "address_city" TEXT NOT NULL, "address_postalCode" TEXT)
    /// ```
    ///
    /// Column types follow the members' Swift types: integers `INTEGER`,
    /// `Bool` `BOOLEAN`, floating point `DOUBLE`, `String` `TEXT`, `Data`
    /// `BLOB`, `Date` `DATETIME`, nested values stored as JSON `JSON`; other
    /// types (UUID, Decimal, enums…) get no declared type, so SQLite keeps
    /// their values as stored (<https://www.sqlite.org/datatype3.html>).
    /// Non-optional members are `NOT NULL`, unless the whole group is optional.
    /// Names are the record-level keys (the record's naming strategy is not
    /// known here; a record with ``DatabaseColumnNamingStrategy/convertToSnakeCase``
    /// needs its columns written by hand).
    ///
    /// - Parameters:
    ///   - type: The column group type.
    ///   - groupKey: The coding key of the group's property in the record.
    ///   - optional: Whether the record's property is optional: no column is then `NOT NULL`.
    /// - Returns: The column definitions, in the group's order, for further modifiers.
    /// - Throws: An error when the group's members cannot be learned (a type the probe cannot decode).
    @discardableResult
    public func columns<Group: ColumnGroup>(
        of type: Group.Type, inGroup groupKey: String, optional: Bool = false
    ) throws -> [ColumnDefinition] {
        try ColumnGroupColumns.members(of: Group.self, inGroup: groupKey).map { member in
            let definition = column(member.name, member.type)
            if !optional && !member.isOptional { definition.notNull() }
            return definition
        }
    }
}

extension AlterTableDefinition {
    /// Adds one column per member of a column group: `ALTER TABLE … ADD COLUMN`
    /// for each, named and typed as in ``TableDefinition/columns(of:inGroup:optional:)``.
    ///
    /// SQLite cannot add a `NOT NULL` column without a default to a table, so
    /// groups added to an existing table are always nullable: decode them as
    /// optional properties, or add defaults on the returned definitions.
    ///
    /// - Parameters:
    ///   - type: The column group type.
    ///   - groupKey: The coding key of the group's property in the record.
    /// - Returns: The column definitions, in the group's order, for further modifiers.
    /// - Throws: An error when the group's members cannot be learned.
    @discardableResult
    public func add<Group: ColumnGroup>(columnsOf type: Group.Type, inGroup groupKey: String) throws -> [ColumnDefinition] {
        try ColumnGroupColumns.members(of: Group.self, inGroup: groupKey).map { add(column: $0.name, $0.type) }
    }
}

/// The columns of a column group, as the schema DSL declares them.
enum ColumnGroupColumns {
    struct Member {
        let name: String
        let type: DatabaseColumnType?
        let isOptional: Bool
    }

    static func members<Group: ColumnGroup>(of type: Group.Type, inGroup groupKey: String) throws -> [Member] {
        let probe = try RecordColumns.probe(Group.self)
        let path = ColumnGroupPath(parent: nil, group: Group.self, key: groupKey)
        return zip(probe.keys, probe.types).map { key, type in
            Member(name: path.key(of: key), type: columnType(of: type), isOptional: probe.optionalKeys.contains(key))
        }
    }

    /// The declared type of a column that stores values of `type`.
    static func columnType(of type: Any.Type) -> DatabaseColumnType? {
        switch type {
        case is Bool.Type: return .boolean
        case is String.Type: return .text
        case is Data.Type: return .blob
        case is Date.Type: return .datetime
        case is any FixedWidthInteger.Type: return .integer
        case is any BinaryFloatingPoint.Type: return .double
        case is UUID.Type, is Decimal.Type, is URL.Type: return nil
        default: break
        }
        if type is any DatabaseValueConvertible.Type { return nil }
        if let raw = type as? any RawRepresentable.Type { return rawColumnType(raw) }
        // A struct, array or dictionary: stored as JSON text.
        return EnumMetadata.info(of: type) == nil ? .json : nil
    }

    private static func rawColumnType<R: RawRepresentable>(_ type: R.Type) -> DatabaseColumnType? {
        columnType(of: R.RawValue.self)
    }
}
