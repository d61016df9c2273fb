// RecordValueFormat: how one record type turns Swift values into database
// values, and back: its Date and UUID strategies and its JSON coders.
//
// Persistence (PersistenceEncoder, RecordDecoder) applies a record's formats
// to its properties. Every other place where a Swift value of a record's
// property meets SQL (filters, keys, IN lists, BETWEEN, batch assignments,
// selected values) goes through this type too, so that a query binds a value
// exactly as the record stores it: a record that stores dates as milliseconds
// is queried with milliseconds, never with the default text format.

import Foundation

/// The value formats of one record type (the defaults for other types).
struct RecordValueFormat {
    let dateEncoding: DatabaseDateEncodingStrategy
    let dateDecoding: DatabaseDateDecodingStrategy
    let uuidEncoding: DatabaseUUIDEncodingStrategy
    let jsonEncoder: (String) -> JSONEncoder
    let jsonDecoder: (String) -> JSONDecoder

    /// The formats of types that are not records.
    static var standard: RecordValueFormat {
        RecordValueFormat(
            dateEncoding: .default, dateDecoding: .default, uuidEncoding: .blob,
            jsonEncoder: { _ in .databaseDefault() }, jsonDecoder: { _ in .databaseDefault() })
    }

    /// The formats of `type`: its own when it is a record, the defaults otherwise.
    ///
    /// A record that only reads (FetchableRecord, not EncodableRecord) binds
    /// dates the way it reads them.
    ///
    /// A wrapper record (one that decodes another record from its
    /// single-value container) that does not write itself binds values in the
    /// formats of the record it wraps, since its columns are that record's.
    static func of(_ type: Any.Type) -> RecordValueFormat {
        let type = type is any EncodableRecord.Type ? type : RecordColumns.formatType(of: type)
        let encodable = type as? any EncodableRecord.Type
        let fetchable = type as? any FetchableRecord.Type
        if encodable == nil && fetchable == nil { return .standard }
        let dateDecoding = fetchable?.databaseDateDecodingStrategy ?? .default
        let dateEncoding = encodable?.databaseDateEncodingStrategy
            ?? (dateDecoding == .millisecondsSince1970 ? .millisecondsSince1970 : .default)
        return RecordValueFormat(
            dateEncoding: dateEncoding,
            dateDecoding: dateDecoding,
            uuidEncoding: encodable?.databaseUUIDEncodingStrategy ?? .blob,
            jsonEncoder: { column in encodable?.databaseJSONEncoder(for: column) ?? .databaseDefault() },
            jsonDecoder: { column in fetchable?.databaseJSONDecoder(for: column) ?? .databaseDefault() })
    }

    /// The database value the record stores for `value` in `column` (nil when
    /// the column is not known); nil when the value is neither
    /// DatabaseValueConvertible nor Encodable.
    func databaseValue(of value: Any, column: String?) throws -> DatabaseValue? {
        if let optional = value as? any OptionalValue, optional.isNone { return .null }
        if let date = value as? Date { return dateEncoding.databaseValue(for: date) }
        if let uuid = value as? UUID { return uuidEncoding.databaseValue(for: uuid) }
        if let convertible = value as? any DatabaseValueConvertible { return try convertible.databaseValue }
        guard let encodable = value as? any Encodable else { return nil }
        return try encode(encodable, column: column)
    }

    /// The value of an Encodable type that is not DatabaseValueConvertible:
    /// its single value, or its JSON text when it encodes as a container.
    private func encode<T: Encodable>(_ value: T, column: String?) throws -> DatabaseValue {
        if let single = try SingleDatabaseValueEncoder.databaseValue(
            of: value, dateStrategy: dateEncoding, uuidStrategy: uuidEncoding)
        {
            return single
        }
        return .text(String(decoding: try jsonEncoder(column ?? "").encode(value), as: UTF8.self))
    }

    /// Whether a value's database value depends on a record's formats: a
    /// Date or UUID (strategies), or a type that is not
    /// DatabaseValueConvertible (single value or JSON). Other values skip
    /// the look-up of the formats, on the hot paths of keys and filters.
    static func dependsOnFormat(_ value: Any) -> Bool {
        value is Date || value is UUID || !(value is any DatabaseValueConvertible)
    }

    /// The database value of a key column of `type`, `nil` being `NULL`.
    ///
    /// Hot path of every fetch, existence check and delete by key: only a
    /// Date or a UUID depends on the record's formats, and comparing the
    /// value's dynamic type with theirs costs two pointer comparisons (a
    /// dynamic cast through `Any` cost about a microsecond per key).
    static func keyValue(_ value: (any DatabaseValueConvertible)?, of type: Any.Type, column: String?) throws -> DatabaseValue {
        guard let value else { return .null }
        // Opened: `Value` below is the value's dynamic type.
        return try keyValue(statically: value, of: type, column: column)
    }

    /// ``keyValue(_:of:column:)`` for a value of a static type (a fetch by
    /// key): the same answer, without boxing the value in an existential,
    /// which asked the runtime for metadata at every fetch.
    static func keyValue<Value: DatabaseValueConvertible>(
        statically value: Value, of type: Any.Type, column: String?
    ) throws -> DatabaseValue {
        guard Value.self == Date.self || Value.self == UUID.self else { return try value.databaseValue }
        return try of(type).databaseValue(of: value, column: column) ?? value.databaseValue
    }
}

/// Lets generic code see whether a value is `nil`.
protocol OptionalValue {
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    var isNone: Bool { self == nil }
}

extension JSONEncoder {
    /// The JSON encoder of nested values by default, in the format GRDB
    /// writes: dates as milliseconds since 1970, data as base64, sorted keys,
    /// non-finite floats refused.
    public static func databaseDefault() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.dataEncodingStrategy = .base64
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

extension JSONDecoder {
    /// The JSON decoder of nested values by default: the format of
    /// ``JSONEncoder/databaseDefault()``.
    public static func databaseDefault() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.dataDecodingStrategy = .base64
        decoder.nonConformingFloatDecodingStrategy = .throw
        return decoder
    }
}
