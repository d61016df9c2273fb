// DatabaseCollation: a Swift comparison of text, usable in SQL as a
// collating sequence (https://www.sqlite.org/c3ref/create_collation.html).
// SQLite's room registers it (SQLite/Database+SwiftFunctions.swift).

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
        try createSQLiteCollation(collation.name, compare: collation.compare)
    }

    /// Removes a collation added with ``add(collation:)``.
    public func remove(collation: DatabaseCollation) throws {
        try removeSQLiteCollation(collation.name)
    }
}
