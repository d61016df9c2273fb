// Conformances of Foundation's value types to DatabaseValueConvertible.
//
// Storage formats are chosen to match GRDB's, so that a database written by an
// app that used GRDB reads back unchanged:
// - Date: UTC text "YYYY-MM-DD HH:MM:SS.SSS" (see DatabaseDateFormat).
// - UUID: a 16-byte blob.
// - URL: its absolute string, as text.
// - Decimal: its exact decimal text.

import Foundation

extension Date: DatabaseValueConvertible {
    /// UTC text `"YYYY-MM-DD HH:MM:SS.SSS"`: see ``DatabaseDateFormat``.
    public var databaseValue: DatabaseValue { .text(DatabaseDateFormat.string(from: self)) }

    /// Reads a date text (see ``DatabaseDateFormat``), or a number of seconds
    /// since 1970-01-01 00:00:00 UTC.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Date? {
        switch dbValue {
        case .text(let text): return DatabaseDateFormat.date(from: text)
        case .integer(let seconds): return Date(timeIntervalSince1970: Double(seconds))
        case .real(let seconds): return Date(timeIntervalSince1970: seconds)
        default: return nil
        }
    }
}

extension UUID: DatabaseValueConvertible {
    /// The 16 bytes of the UUID, as a blob.
    public var databaseValue: DatabaseValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }

    /// Reads a 16-byte blob, or a text in the canonical
    /// `E621E1F8-C36C-495A-93FC-0C247A3E6E5F` form (any letter case).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UUID? {
        switch dbValue {
        case .blob(let data) where data.count == 16:
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { target in
                data.withUnsafeBytes { source in target.copyMemory(from: source) }
            }
            return UUID(uuid: bytes)
        case .text(let text):
            return UUID(uuidString: text)
        default:
            return nil
        }
    }
}

extension URL: DatabaseValueConvertible {
    /// The absolute string of the URL, as text.
    public var databaseValue: DatabaseValue { .text(absoluteString) }

    /// Reads a text that `URL(string:)` accepts.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> URL? {
        guard case .text(let text) = dbValue else { return nil }
        return URL(string: text)
    }
}

extension Decimal: DatabaseValueConvertible {
    /// The exact decimal text of the number (`"12.30"` is stored as `"12.3"`).
    ///
    /// Text keeps every digit; SQLite compares such texts as strings, so use
    /// `CAST(column AS REAL)` to order or sum them numerically.
    public var databaseValue: DatabaseValue {
        .text(NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX")))
    }

    /// Reads a decimal text, an integer, or a real (through its shortest
    /// round-tripping text, so that a REAL `0.99` becomes exactly `0.99`).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Decimal? {
        switch dbValue {
        case .integer(let value):
            return Decimal(value)
        case .real(let value):
            guard value.isFinite else { return nil }
            return Decimal(string: String(value), locale: Locale(identifier: "en_US_POSIX"))
        case .text(let text):
            // Decimal(string:) accepts a numeric prefix ("12abc" gives 12), and
            // texts such as "--1": refuse anything but a whole decimal number.
            guard isDecimalNumber(text) else { return nil }
            return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        default:
            return nil
        }
    }

    /// Whether `text` is a whole decimal number: an optional sign, digits with
    /// at most one decimal point (at least one digit), and an optional exponent
    /// `e` or `E` with an optional sign and at least one digit.
    private static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let integerDigits = bytes.prefix(while: isDigit).count
        bytes = bytes.dropFirst(integerDigits)
        var fractionDigits = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fractionDigits = bytes.prefix(while: isDigit).count
            bytes = bytes.dropFirst(fractionDigits)
        }
        guard integerDigits + fractionDigits > 0 else { return false }
        if let first = bytes.first, first == UInt8(ascii: "e") || first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponentDigits = bytes.prefix(while: isDigit).count
            guard exponentDigits > 0 else { return false }
            bytes = bytes.dropFirst(exponentDigits)
        }
        return bytes.isEmpty
    }
}
