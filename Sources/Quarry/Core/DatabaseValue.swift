// DatabaseValue: the five storage classes of SQLite as one Swift value.
//
// Every value that crosses the boundary between Swift and SQLite is, at some
// point, one of these five cases. See <https://www.sqlite.org/datatype3.html>.

import Foundation

/// A value as SQLite stores it: `NULL`, an integer, a real number, text, or a blob.
///
/// ```swift
/// let values = try Row.fetchOne(db, sql: "SELECT 1, 'a', NULL")?.databaseValues
/// // [.integer(1), .text("a"), .null]
/// ```
///
/// SQLite has five storage classes (<https://www.sqlite.org/datatype3.html>);
/// `DatabaseValue` has one case for each.
public enum DatabaseValue: Hashable, Sendable {
    /// The SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double precision floating point number.
    case real(Double)
    /// A UTF-8 string. It may contain NUL characters.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// Whether the value is `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The name of the storage class, as SQLite's `typeof()` returns it:
    /// `null`, `integer`, `real`, `text` or `blob`.
    public var storageClassName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// An SQL-literal-like rendering, for messages and debugging: `NULL`, `42`,
    /// `1.5`, `'it''s'`, `X'0102'`. Long texts and blobs are shortened.
    public var description: String {
        switch self {
        case .null, .integer:
            return sqlLiteral
        case .real(let value):
            return String(value)
        case .text(let value):
            let shown = value.count > 64 ? String(value.prefix(64)) + "…" : value
            return shown.quoted(by: "'")
        case .blob(let data):
            return "X'" + DatabaseValue.hexDigits(data.prefix(32)) + (data.count > 32 ? "…" : "") + "'"
        }
    }

    /// The bytes in uppercase hexadecimal: `[0xAB, 1]` gives `AB01`.
    package static func hexDigits(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension DatabaseValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// Creates `NULL`.
    public init(nilLiteral: ()) { self = .null }
    /// Creates an integer value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// Creates a real value.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// Creates a text value.
    public init(stringLiteral value: String) { self = .text(value) }
    /// Creates the integer 1 for `true`, 0 for `false`.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
