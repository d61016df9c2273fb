// SchemaStorageClass: the kinds of values a column declares it holds, and the
// kinds a property type can read — the type half of the start-up schema
// check (Database+SchemaCheck.swift).
//
// The check only flags what surely fails, so both sides are answered
// conservatively, nil meaning "anything may work, do not judge":
//
// - A column's declared type gives its values' storage class. On SQLite,
//   through its type affinity
//   (<https://www.sqlite.org/datatype3.html#determination_of_column_affinity>):
//   INTEGER affinity holds integers, TEXT affinity texts (it turns numbers
//   into text), REAL reals, a declared BLOB blobs; no declared type and
//   NUMERIC affinity (NUMERIC, BOOLEAN, DATE, DATETIME, JSON, ANY…) accept
//   anything: nil (SQLiteDialect.storageClasses(ofDeclaredType:)). On
//   PostgreSQL, from the type name `format_type` prints, as QuarryPostgres
//   reads its values (its dialect's storageClasses(ofDeclaredType:)).
// - A property type reads the storage classes its `fromDatabaseValue`
//   accepts (Int: integers and reals; String: text; Data: blobs and text;
//   Date: text and numbers, numbers only with the milliseconds strategy…);
//   an enum with raw values those of its raw value; another Codable type
//   either asks for one value (those of that value) or is JSON (text or a
//   blob of JSON bytes). A custom DatabaseValueConvertible type: nil.

import Foundation

/// A storage class of database values.
package enum SchemaStorageClass: String, Hashable, Comparable, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"

    package static func < (lhs: Self, rhs: Self) -> Bool {
        let order: [Self] = [.integer, .real, .text, .blob]
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }

    /// `INTEGER or REAL`.
    static func describe(_ classes: Set<Self>) -> String {
        let names = classes.sorted().map(\.rawValue)
        guard let last = names.last else { return "nothing" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }
}
