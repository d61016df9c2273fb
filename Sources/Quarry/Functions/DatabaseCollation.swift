// DatabaseCollation: a Swift comparison of text, usable in SQL as a
// collating sequence (https://www.sqlite.org/c3ref/create_collation.html).
// Its closure is retained for SQLite the way DatabaseFunction's is: one
// retain handed to SQLite, released by SQLite's destructor callback.

import CSQLite
import Foundation

/// A text ordering written in Swift, used by SQL through `COLLATE name`.
///
/// ```swift
/// db.add(collation: .localizedCaseInsensitiveCompare)
/// try Player.order { $0.name.collating(.localizedCaseInsensitiveCompare) }.fetchAll(db)
/// // SELECT * FROM "player" ORDER BY "name" COLLATE "localizedCaseInsensitiveCompare"
/// try db.create(table: "player") { t in
///     t.column("name", .text).collate(DatabaseCollation.localizedCompare.collation)
/// }
/// ```
///
/// Register collations on every connection of a queue or pool through
/// ``Configuration/prepareDatabase``.
public struct DatabaseCollation: Sendable {
    /// The SQL name of the collation.
    public let name: String
    let compare: @Sendable (String, String) -> ComparisonResult

    /// A collation named `name` that orders text with `function`.
    ///
    /// - parameters:
    ///   - name: the SQL name of the collation.
    ///   - function: orders two texts; it must be consistent (a total order).
    public init(_ name: String, function: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.compare = function
    }

    /// The collation, for the query interface and column definitions.
    public var collation: Collation { Collation(name) }

    /// Foundation's `localizedCompare(_:)`: Unicode-aware, in the order of
    /// the current locale. On Linux, Foundation compares with ICU: accented
    /// letters sort with their base letter (`apple`, `Émile`, `Eve`), and
    /// scripts sort in blocks (Latin, then Cyrillic, then CJK).
    public static let localizedCompare = DatabaseCollation("localizedCompare") { $0.localizedCompare($1) }

    /// Foundation's `localizedCaseInsensitiveCompare(_:)`.
    public static let localizedCaseInsensitiveCompare = DatabaseCollation("localizedCaseInsensitiveCompare") {
        $0.localizedCaseInsensitiveCompare($1)
    }

    /// Foundation's `localizedStandardCompare(_:)`: the order of file names
    /// in a file browser (numbers by value: `file2` before `file10`).
    public static let localizedStandardCompare = DatabaseCollation("localizedStandardCompare") {
        $0.localizedStandardCompare($1)
    }
}

extension ColumnDefinition {
    /// The column's default collation, a Swift collation
    /// (``Database/add(collation:)`` must register it on every connection).
    public func collate(_ collation: DatabaseCollation) -> Self {
        collate(collation.collation)
    }
}

extension Database {
    /// Makes `collation` usable in SQL on this connection, replacing a
    /// collation of the same name.
    public func add(collation: DatabaseCollation) throws {
        try require(.swiftFunctions, "custom collations (add(collation:))")
        let box = CollationBox(collation.compare)
        let context = Unmanaged.passRetained(box).toOpaque()
        let code = sqlite3_create_collation_v2(
            sqliteConnection, collation.name, SQLITE_UTF8, context,
            { context, count1, bytes1, count2, bytes2 in CollationBox.compare(context, count1, bytes1, count2, bytes2) },
            { context in
                guard let context else { return }
                Unmanaged<CollationBox>.fromOpaque(context).release()
            })
        guard code == SQLITE_OK else {
            // Unlike sqlite3_create_function_v2, a failed registration does
            // not call the destructor: release the box here.
            Unmanaged<CollationBox>.fromOpaque(context).release()
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(sqliteConnection)),
                message: "could not add collation \(collation.name): \(String(cString: sqlite3_errmsg(sqliteConnection)))")
        }
    }

    /// Removes a collation added with ``add(collation:)``.
    public func remove(collation: DatabaseCollation) throws {
        let code = sqlite3_create_collation_v2(sqliteConnection, collation.name, SQLITE_UTF8, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(sqliteConnection)),
                message: "could not remove collation \(collation.name): \(String(cString: sqlite3_errmsg(sqliteConnection)))")
        }
    }
}

private final class CollationBox {
    let compare: @Sendable (String, String) -> ComparisonResult
    init(_ compare: @escaping @Sendable (String, String) -> ComparisonResult) { self.compare = compare }

    static func compare(
        _ context: UnsafeMutableRawPointer?, _ count1: Int32, _ bytes1: UnsafeRawPointer?, _ count2: Int32,
        _ bytes2: UnsafeRawPointer?
    ) -> Int32 {
        guard let context else { return 0 }
        let box = Unmanaged<CollationBox>.fromOpaque(context).takeUnretainedValue()
        switch box.compare(text(bytes1, count1), text(bytes2, count2)) {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }

    private static func text(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }
}
