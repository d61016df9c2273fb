// How Quarry's DatabaseValue crosses the PostgreSQL wire protocol, both ways.
//
// Arguments: NULL, integers, reals and texts are sent in text format with the
// type OID 0 ("unspecified"), as libpq does when it is given no parameter
// types, so the server infers each parameter's type from its context: the
// same `.integer(1)` fills an int2, int8, numeric, float8 or bool column, and
// the same `.text` fills a text, varchar, uuid, date, timestamptz or jsonb
// one. Blobs are sent as typed `bytea` in binary format (their bytes as they
// are). The documentation of PostgresSession has the full table.
//
// Results: PostgresNIO 1.33 asks for every result column in binary format, so
// each type that Quarry reads is decoded here from its binary form (see
// PostgresSession for the table).

import Foundation
import PostgresNIO  // re-exports NIOCore
import Quarry

/// One statement argument, as PostgresNIO binds it.
struct PostgresArgument: PostgresDynamicTypeEncodable {
    let value: DatabaseValue

    var psqlType: PostgresDataType {
        if case .blob = value { return .bytea }
        return PostgresDataType(0)  // unspecified: the server infers the type
    }

    var psqlFormat: PostgresFormat {
        if case .blob = value { return .binary }
        return .text
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        switch value {
        case .null:
            break  // never called: NULL is bound with appendNull()
        case .integer(let integer):
            byteBuffer.writeString(String(integer))
        case .real(let real):
            byteBuffer.writeString(PostgresArgument.text(of: real))
        case .text(let text):
            byteBuffer.writeString(text)
        case .blob(let data):
            byteBuffer.writeBytes(data)
        }
    }

    /// The text of a real that float8, float4 and numeric inputs read back
    /// exactly: the shortest round-trip digits, and PostgreSQL's spelling of
    /// the special values.
    static func text(of real: Double) -> String {
        if real.isNaN { return "NaN" }
        if real.isInfinite { return real < 0 ? "-Infinity" : "Infinity" }
        return "\(real)"
    }

    /// The bindings of a list of arguments.
    static func bindings(_ arguments: [DatabaseValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            if argument.isNull {
                bindings.appendNull()
            } else {
                bindings.append(PostgresArgument(value: argument))
            }
        }
        return bindings
    }
}

/// A result cell whose type QuarryPostgres cannot read.
struct UnsupportedColumnType: Error {
    let column: String
    let typeOID: UInt32
}

/// The conversion of result cells to DatabaseValue.
enum PostgresCellDecoder {
    /// Seconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for dates and timestamps.
    static let postgresEpoch: Int64 = 946_684_800

    static func value(of cell: PostgresCell) throws(UnsupportedColumnType) -> DatabaseValue {
        guard var buffer = cell.bytes else { return .null }
        if cell.format == .text {
            return textFormatValue(buffer: &buffer, type: cell.dataType)
        }
        let oid = cell.dataType.rawValue
        switch cell.dataType {
        case .bool:
            guard let byte = buffer.readInteger(as: UInt8.self) else { break }
            return .integer(byte == 0 ? 0 : 1)
        case .int2:
            guard let integer = buffer.readInteger(as: Int16.self) else { break }
            return .integer(Int64(integer))
        case .int4:
            guard let integer = buffer.readInteger(as: Int32.self) else { break }
            return .integer(Int64(integer))
        case .int8:
            guard let integer = buffer.readInteger(as: Int64.self) else { break }
            return .integer(integer)
        case .oid, .regclass, .regtype, .regproc, .xid, .cid:
            guard let integer = buffer.readInteger(as: UInt32.self) else { break }
            return .integer(Int64(integer))
        case .float4:
            guard let bits = buffer.readInteger(as: UInt32.self) else { break }
            return .real(Double(Float(bitPattern: bits)))
        case .float8:
            guard let bits = buffer.readInteger(as: UInt64.self) else { break }
            return .real(Double(bitPattern: bits))
        case .numeric:
            guard let text = numericText(&buffer) else { break }
            // A whole number that fits 64 bits (SUM of integers, COUNT in
            // some forms) is an integer, as in SQLite; others keep every
            // digit as text.
            if !text.contains("."), let integer = Int64(text) { return .integer(integer) }
            return .text(text)
        case .text, .varchar, .bpchar, .name, .char, .json, .xml, .unknown:
            return .text(buffer.readString(length: buffer.readableBytes) ?? "")
        case .jsonb:
            // A version byte (1), then the JSON text.
            guard buffer.readInteger(as: UInt8.self) == 1 else { break }
            return .text(buffer.readString(length: buffer.readableBytes) ?? "")
        case .bytea:
            return .blob(Data(buffer.readableBytesView))
        case .uuid:
            guard let bytes = buffer.readBytes(length: 16) else { break }
            return .text(uuidText(bytes))
        case .date:
            guard let days = buffer.readInteger(as: Int32.self) else { break }
            return .text(dateText(days: days))
        case .timestamp, .timestamptz:
            guard let microseconds = buffer.readInteger(as: Int64.self) else { break }
            return .text(timestampText(microseconds: microseconds))
        case .time:
            guard let microseconds = buffer.readInteger(as: Int64.self) else { break }
            return .text(timeText(microseconds: microseconds))
        case .void:
            // The result of a function that returns nothing (pg_sleep, pg_advisory_lock).
            return .null
        default:
            break
        }
        throw UnsupportedColumnType(column: cell.columnName, typeOID: oid)
    }

    /// A text-format cell (PostgresNIO 1.33 asks for binary results, so this
    /// is a fallback): integers, reals and booleans are parsed, anything else
    /// is text.
    static func textFormatValue(buffer: inout ByteBuffer, type: PostgresDataType) -> DatabaseValue {
        let text = buffer.readString(length: buffer.readableBytes) ?? ""
        switch type {
        case .int2, .int4, .int8, .oid:
            if let integer = Int64(text) { return .integer(integer) }
        case .float4, .float8:
            if let real = Double(text) { return .real(real) }
        case .bool:
            return .integer(text == "t" ? 1 : 0)
        default:
            break
        }
        return .text(text)
    }

    /// The exact decimal text of a binary numeric: `NaN`, `Infinity`,
    /// `-Infinity`, or digits with the value's display scale, as PostgreSQL
    /// prints it. Nil if the bytes are not a numeric.
    static func numericText(_ buffer: inout ByteBuffer) -> String? {
        guard let (count, weight, sign, scale) = buffer.readMultipleIntegers(as: (Int16, Int16, UInt16, Int16).self),
            count >= 0, scale >= 0
        else { return nil }
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        case 0x0000, 0x4000: break
        default: return nil
        }
        var digits: [Int16] = []
        digits.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let digit = buffer.readInteger(as: Int16.self), (0..<10_000).contains(digit) else { return nil }
            digits.append(digit)
        }
        func digit(at index: Int) -> Int16 { index >= 0 && index < digits.count ? digits[index] : 0 }
        func padded(_ value: Int16) -> String {
            let text = String(value)
            return String(repeating: "0", count: 4 - text.count) + text
        }
        var text = sign == 0x4000 ? "-" : ""
        // Digit i stands for digits[i] × 10000^(weight - i).
        if weight < 0 {
            text += "0"
        } else {
            text += String(digit(at: 0))
            for index in stride(from: 1, through: Int(weight), by: 1) { text += padded(digit(at: index)) }
        }
        if scale > 0 {
            var fraction = ""
            var index = Int(weight) + 1
            while fraction.count < Int(scale) {
                fraction += padded(digit(at: index))
                index += 1
            }
            text += "." + fraction.prefix(Int(scale))
        }
        return text
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase, as PostgreSQL prints a uuid.
    static func uuidText(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `YYYY-MM-DD` (the date part of Quarry's date format), or `infinity` / `-infinity`.
    static func dateText(days: Int32) -> String {
        if days == Int32.max { return "infinity" }
        if days == Int32.min { return "-infinity" }
        let seconds = (Int64(days) * 86_400) + postgresEpoch
        let text = DatabaseDateFormat.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return String(text.dropLast(" 00:00:00.000".count))
    }

    /// Quarry's date format, `YYYY-MM-DD HH:MM:SS.SSS` in UTC (microseconds
    /// rounded to the millisecond), or `infinity` / `-infinity`.
    static func timestampText(microseconds: Int64) -> String {
        if microseconds == Int64.max { return "infinity" }
        if microseconds == Int64.min { return "-infinity" }
        // Round to the millisecond in integers, half away from zero as
        // DatabaseDateFormat does, before going through Double.
        let (quotient, remainder) = microseconds.quotientAndRemainder(dividingBy: 1000)
        let milliseconds = quotient + (remainder >= 500 ? 1 : remainder <= -500 ? -1 : 0)
        let seconds = Double(milliseconds) / 1000 + Double(postgresEpoch)
        return DatabaseDateFormat.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// `HH:MM:SS`, with the fraction of a second when there is one (trailing
    /// zeros dropped), as PostgreSQL prints a time.
    static func timeText(microseconds: Int64) -> String {
        let seconds = microseconds / 1_000_000
        let fraction = microseconds % 1_000_000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = two(seconds / 3600) + ":" + two(seconds / 60 % 60) + ":" + two(seconds % 60)
        if fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 6 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }
}
