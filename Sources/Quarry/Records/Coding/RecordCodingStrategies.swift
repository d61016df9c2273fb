// RecordCodingStrategies: how Codable records name their columns and store
// dates and UUIDs. Each record type picks its strategies with static properties
// (see FetchableRecord and EncodableRecord); the defaults need no code.

import Foundation

/// How the coding keys of a Codable record become column names.
///
/// The default, ``useCodingKeys``, uses `CodingKey.stringValue` unchanged, so
/// `case teamID = "team_id"` in `CodingKeys` maps the `teamID` property to the
/// `team_id` column. Reading matches column names case-insensitively, as SQLite
/// does.
///
/// ```swift
/// struct Player: Codable, FetchableRecord, PersistableRecord {
///     static let databaseColumnDecodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
///     static let databaseColumnEncodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
///     var teamID: Int64?      // column "team_id"
/// }
/// ```
public enum DatabaseColumnNamingStrategy: Sendable {
    /// The coding key's `stringValue` is the column name.
    case useCodingKeys
    /// `teamID` becomes `team_id`, `playerName` becomes `player_name`,
    /// `myURLValue` becomes `my_url_value`: a word starts at each uppercase
    /// letter that follows a lowercase letter or digit, or that starts a
    /// lowercase run after an uppercase run.
    case convertToSnakeCase
    /// A custom function from coding key to column name.
    case custom(@Sendable (String) -> String)

    /// The column name for a coding key.
    public func columnName(for key: String) -> String {
        switch self {
        case .useCodingKeys: return key
        case .convertToSnakeCase: return Self.snakeCase(key)
        case .custom(let transform): return transform(key)
        }
    }

    static func snakeCase(_ key: String) -> String {
        let characters = Array(key)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    if result.last != "_" { result.append("_") }
                }
            }
            result += character.lowercased()
        }
        return result
    }
}

/// GRDB's name of the naming strategy that reads columns
/// (``FetchableRecord/databaseColumnDecodingStrategy``).
public typealias DatabaseColumnDecodingStrategy = DatabaseColumnNamingStrategy

/// GRDB's name of the naming strategy that writes columns
/// (``EncodableRecord/databaseColumnEncodingStrategy``).
public typealias DatabaseColumnEncodingStrategy = DatabaseColumnNamingStrategy

extension DatabaseColumnNamingStrategy {
    /// GRDB's name of ``useCodingKeys``.
    public static var useDefaultKeys: Self { .useCodingKeys }

    /// GRDB's name of ``convertToSnakeCase`` for reading: a `team_id` column
    /// decodes the `teamID` property.
    ///
    /// GRDB converts each column name to a key; Quarry converts each key to
    /// a column name, as it does for writing, so a read and a write of the
    /// same record always agree.
    public static var convertFromSnakeCase: Self { .convertToSnakeCase }
}

/// How a Codable record stores its `Date` properties.
public enum DatabaseDateEncodingStrategy: Sendable {
    /// UTC text `"YYYY-MM-DD HH:MM:SS.SSS"` (``DatabaseDateFormat``), the default.
    case `default`
    /// ISO 8601 text with milliseconds and `Z`: `"2024-05-01T12:30:00.000Z"`.
    case iso8601
    /// A REAL number of seconds since 1970-01-01 00:00:00 UTC.
    case secondsSince1970
    /// An INTEGER number of milliseconds since 1970-01-01 00:00:00 UTC.
    case millisecondsSince1970
}

/// How a Codable record reads its `Date` properties.
public enum DatabaseDateDecodingStrategy: Sendable {
    /// Text in the formats ``DatabaseDateFormat`` reads (which include ISO 8601),
    /// or a number of seconds since 1970: the default.
    case `default`
    /// A number of milliseconds since 1970-01-01 00:00:00 UTC (text is refused).
    case millisecondsSince1970
}

/// How a Codable record stores its `UUID` properties.
public enum DatabaseUUIDEncodingStrategy: Sendable {
    /// A 16-byte blob, the default.
    case blob
    /// Canonical uppercase text: `"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"`.
    case uppercaseString
    /// Canonical lowercase text: `"e621e1f8-c36c-495a-93fc-0c247a3e6e5f"`.
    case lowercaseString
}

extension DatabaseDateEncodingStrategy {
    func databaseValue(for date: Date) -> DatabaseValue {
        switch self {
        case .default:
            return .text(DatabaseDateFormat.string(from: date))
        case .iso8601:
            var text = DatabaseDateFormat.string(from: date)
            // "YYYY-MM-DD HH:MM:SS.SSS" → "YYYY-MM-DDTHH:MM:SS.SSSZ"
            if let space = text.firstIndex(of: " ") { text.replaceSubrange(space...space, with: "T") }
            return .text(text + "Z")
        case .secondsSince1970:
            return .real(date.timeIntervalSince1970)
        case .millisecondsSince1970:
            return .integer(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
    }
}

extension DatabaseDateDecodingStrategy {
    func date(from value: DatabaseValue) -> Date? {
        switch self {
        case .default:
            return Date.fromDatabaseValue(value)
        case .millisecondsSince1970:
            switch value {
            case .integer(let milliseconds): return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            case .real(let milliseconds): return Date(timeIntervalSince1970: milliseconds / 1000)
            default: return nil
            }
        }
    }
}

extension DatabaseUUIDEncodingStrategy {
    func databaseValue(for uuid: UUID) -> DatabaseValue {
        switch self {
        case .blob: return uuid.databaseValue
        case .uppercaseString: return .text(uuid.uuidString)
        case .lowercaseString: return .text(uuid.uuidString.lowercased())
        }
    }
}

/// A record's coding `userInfo` as Foundation's JSON coders take it.
///
/// `JSONEncoder.userInfo` and `JSONDecoder.userInfo` are typed
/// `[CodingUserInfoKey: any Sendable]`, and the records' (GRDB's spelling)
/// `[CodingUserInfoKey: Any]`; Swift has no cast between the two, since
/// `Sendable` is a marker protocol. For the same reason the two value types
/// are one type at run time (`(any Sendable).self == Any.self`, checked by
/// `NestedUserInfoTests`), so the dictionary is reinterpreted as it is. The
/// values are only read by the coder of one record's column, on the thread
/// that encodes or decodes that record.
func jsonCoderUserInfo(_ userInfo: [CodingUserInfoKey: Any]) -> [CodingUserInfoKey: any Sendable] {
    unsafeBitCast(userInfo, to: [CodingUserInfoKey: any Sendable].self)
}
