// EncodableRecord: a type that writes its values into database columns,
// by hand or through Encodable.

import Foundation

/// A type that can write its values into database columns.
///
/// An `Encodable` type needs no code: each coding key becomes a column (its
/// `stringValue`, or the ``databaseColumnEncodingStrategy``), `nil` becomes
/// `NULL`, `Date` and `UUID` follow ``databaseDateEncodingStrategy`` and
/// ``databaseUUIDEncodingStrategy``, enums with raw values store their raw
/// value, and other nested `Encodable` values (structs, arrays, dictionaries)
/// are stored as JSON text with sorted keys.
///
/// A hand-written ``encode(to:)`` gives full control:
///
/// ```swift
/// func encode(to container: inout PersistenceContainer) throws {
///     container["id"] = id
///     container["name"] = name
/// }
/// ```
public protocol EncodableRecord {
    /// Writes the values of the record into `container`.
    func encode(to container: inout PersistenceContainer) throws

    /// How coding keys become column names when encoding (default: ``DatabaseColumnNamingStrategy/useCodingKeys``).
    static var databaseColumnEncodingStrategy: DatabaseColumnNamingStrategy { get }

    /// How `Date` properties are stored (default: ``DatabaseDateEncodingStrategy/default``, UTC text).
    static var databaseDateEncodingStrategy: DatabaseDateEncodingStrategy { get }

    /// How `UUID` properties are stored (default: ``DatabaseUUIDEncodingStrategy/blob``, 16 bytes).
    static var databaseUUIDEncodingStrategy: DatabaseUUIDEncodingStrategy { get }

    /// The JSON encoder of the nested values (structs, arrays, dictionaries)
    /// stored in `column`.
    ///
    /// The default writes the format GRDB writes, so that a database shared
    /// with a GRDB app reads the same on both sides: dates as milliseconds
    /// since 1970, `Data` as base64, keys sorted, non-finite floats refused
    /// (`JSONEncoder.databaseDefault()`). Return your own encoder
    /// for another format:
    ///
    /// ```swift
    /// static func databaseJSONEncoder(for column: String) -> JSONEncoder {
    ///     let encoder = JSONEncoder.databaseDefault()
    ///     encoder.dateEncodingStrategy = .iso8601
    ///     return encoder
    /// }
    /// ```
    ///
    /// Implement ``FetchableRecord/databaseJSONDecoder(for:)`` to match.
    /// Quarry asks once per column and connection, and keeps the encoder.
    static func databaseJSONEncoder(for column: String) -> JSONEncoder

    /// The `userInfo` that `encode(to:)` finds in its `Encoder` (default: empty).
    ///
    /// ```swift
    /// static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [.storage: "database"] }
    /// ```
    ///
    /// The default ``databaseJSONEncoder(for:)`` passes it on to the values
    /// stored as JSON, as GRDB's does.
    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// Whether Quarry may write the record's stored properties straight into
    /// its columns instead of calling `encode(to:)` for each record written
    /// (default: false: `encode(to:)` runs for every record, as in GRDB).
    ///
    /// Return `true` only for a record whose `encode(to:)` is the synthesized
    /// one: you assert that it writes each property to its column, unchanged.
    /// Swift cannot tell a synthesized `encode(to:)` from a hand-written one
    /// at run time, so Quarry cannot check this for you: an `encode(to:)`
    /// that maps or counts values would be skipped.
    ///
    /// Quarry then encodes without `encode(to:)` a struct whose stored
    /// properties are all `Int`, `Int64`, `Double`, `Bool`, `String` or
    /// optional ones, and that keeps the default `encode(to container:)` of
    /// `Encodable` records. As a safety net, it first runs `encode(to:)` once
    /// on made-up values and keeps calling it if it does not write one value
    /// per stored property, each unchanged. The columns and values are the same
    /// as through `encode(to:)`, in less time.
    ///
    /// ```swift
    /// struct Player: Codable, PersistableRecord {
    ///     static let databaseEncodesStoredPropertiesDirectly = true
    ///     var id: Int64
    ///     var name: String
    ///     var score: Int
    /// }
    /// ```
    static var databaseEncodesStoredPropertiesDirectly: Bool { get }
}

extension EncodableRecord {
    /// ``DatabaseColumnNamingStrategy/useCodingKeys``.
    public static var databaseColumnEncodingStrategy: DatabaseColumnNamingStrategy { .useCodingKeys }
    /// ``DatabaseDateEncodingStrategy/default``.
    public static var databaseDateEncodingStrategy: DatabaseDateEncodingStrategy { .default }
    /// ``DatabaseUUIDEncodingStrategy/blob``.
    public static var databaseUUIDEncodingStrategy: DatabaseUUIDEncodingStrategy { .blob }
    /// `JSONEncoder.databaseDefault()`: GRDB's JSON format, with the
    /// record's ``databaseEncodingUserInfo``.
    public static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        let encoder = JSONEncoder.databaseDefault()
        let userInfo = databaseEncodingUserInfo
        if !userInfo.isEmpty { encoder.userInfo = jsonCoderUserInfo(userInfo) }
        return encoder
    }
    /// Empty.
    public static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [:] }
    /// False: `encode(to:)` runs for every record written.
    public static var databaseEncodesStoredPropertiesDirectly: Bool { false }

    /// The values of the record by column: `["id": 1, "name": "Arthur"]`.
    public var databaseDictionary: [String: DatabaseValue] {
        get throws {
            let container = try PersistenceContainer(self)
            return Dictionary(zip(container.columns, container.databaseValues), uniquingKeysWith: { _, last in last })
        }
    }
}

extension EncodableRecord where Self: Encodable {
    /// Encodes the record through `Encodable` (see ``EncodableRecord``).
    public func encode(to container: inout PersistenceContainer) throws {
        try PersistenceEncoder.encode(self, into: &container)
    }
}
