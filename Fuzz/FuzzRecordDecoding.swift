// FuzzRecordDecoding: libFuzzer target for decoding Codable records
// (Sources/Quarry/Records) from rows whose column values come from the fuzz
// input: integers, reals, text (also invalid UTF-8, made by SQLite from a
// blob), blobs and NULLs. Each row is decoded three ways — a Row built in
// memory, a Row fetched from SQLite, and Record.fetchAll straight from the
// statement — and each must give a record or throw, never trap.

import Foundation
import Quarry

enum FuzzMood: String, Codable, DatabaseValueConvertible {
    case happy, grumpy
}

/// Only Codable: decoded through its raw value.
enum FuzzLevel: Int, Codable {
    case low = 1, high = 2
}

struct FuzzAddress: Codable {
    var street: String
    var zip: Int?
}

struct FuzzRecord: Codable, FetchableRecord {
    var id: Int
    var count: Int64?
    var small: Int8
    var unsigned: UInt32
    var score: Double
    var ratio: Float
    var name: String
    var flag: Bool
    var date: Date
    var uuid: UUID
    var data: Data
    var address: FuzzAddress
    var mood: FuzzMood
    var level: FuzzLevel
    var tags: [String]
    var note: String?
    var optionalDate: Date?
    var optionalAddress: FuzzAddress?
}

/// The same columns, dates as milliseconds since 1970 and names in snake case.
struct FuzzSnakeRecord: Codable, FetchableRecord {
    var id: Int
    var optionalDate: Date?
    var date: Date
    var uuid: UUID?
    var name: String

    static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy { .millisecondsSince1970 }
    static var databaseColumnDecodingStrategy: DatabaseColumnNamingStrategy { .convertFromSnakeCase }
}

private let columns = [
    "id", "count", "small", "unsigned", "score", "ratio", "name", "flag", "date", "uuid", "data", "address",
    "mood", "level", "tags", "note", "optionalDate", "optionalAddress", "optional_date",
]

/// One column value, and whether SQLite must turn the blob into text.
private struct FuzzValue {
    var value: DatabaseValue
    var castToText = false
}

/// Reads the fuzz input byte by byte.
private struct Reader {
    var bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var isAtEnd: Bool { index >= bytes.count }
    mutating func byte() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }
    mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + count)
        defer { index = end }
        return index < end ? Array(bytes[index..<end]) : []
    }
    mutating func uint64() -> UInt64 {
        bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
    mutating func value() -> FuzzValue {
        let kind = byte()
        switch kind % 8 {
        case 0: return FuzzValue(value: .null)
        case 1: return FuzzValue(value: .integer(Int64(bitPattern: uint64())))
        case 2: return FuzzValue(value: .integer(Int64(Int8(bitPattern: byte()))))
        case 3: return FuzzValue(value: .real(Double(bitPattern: uint64())))
        case 4, 5:
            // 5: a longer text (32…63 bytes), for UUIDs and JSON.
            let text = bytes(Int(kind >> 3) + (kind % 8 == 5 ? 32 : 0))
            return FuzzValue(value: .text(String(decoding: text, as: UTF8.self)))
        case 6:
            // Text that may be invalid UTF-8: a blob that SQLite casts.
            return FuzzValue(value: .blob(Data(bytes(Int(kind >> 3)))), castToText: true)
        default:
            return FuzzValue(value: .blob(Data(bytes(Int(kind >> 3)))))
        }
    }
}

nonisolated(unsafe) private var database: DatabaseQueue? = nil

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordDecoding(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if database == nil {
        var configuration = Configuration()
        configuration.maximumStatementDuration = .seconds(5)
        database = try! DatabaseQueue(configuration: configuration)
    }
    let queue = database!
    var reader = Reader(bytes: UnsafeBufferPointer(start: data, count: size))
    // The first byte leaves a column out (0…18) or keeps them all.
    let omitted = Int(reader.byte())
    var names: [String] = []
    var values: [FuzzValue] = []
    for (index, name) in columns.enumerated() where index != omitted {
        names.append(name)
        values.append(reader.value())
    }

    // 1. A Row made in memory.
    if let row = try? Row(columnNames: names, databaseValues: values.map(\.value)) {
        _ = try? FuzzRecord(row: row)
        _ = try? FuzzSnakeRecord(row: row)
    }

    // 2. and 3. The same values selected by SQLite.
    let selection = zip(names, values).map { name, value in
        (value.castToText ? "CAST(? AS TEXT)" : "?") + " AS " + name.quotedDatabaseIdentifier
    }
    let sql = "SELECT " + selection.joined(separator: ", ")
    let arguments = StatementArguments(databaseValues: values.map(\.value))
    do {
        try queue.read { db in
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                _ = try? FuzzRecord(row: row)
                _ = try? FuzzSnakeRecord(row: row)
            }
            _ = try? FuzzRecord.fetchAll(db, sql: sql, arguments: arguments)
            _ = try? FuzzSnakeRecord.fetchOne(db, sql: sql, arguments: arguments)
        }
    } catch {
        preconditionFailure("selecting bound values failed: \(error)")
    }
    return 0
}
