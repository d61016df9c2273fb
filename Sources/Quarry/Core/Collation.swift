// Collation: the name of an SQLite collating sequence, for comparisons,
// ordering and column definitions.

/// An SQLite collation, for comparisons and ordering
/// (<https://www.sqlite.org/datatype3.html#collation>).
public struct Collation: Sendable, Hashable {
    /// The collation name.
    public let name: String
    /// A collation by name, including custom ones registered on the connection.
    public init(_ name: String) { self.name = name }
    /// Byte-wise comparison (SQLite's default).
    public static let binary = Collation("BINARY")
    /// Case-insensitive for ASCII letters.
    public static let nocase = Collation("NOCASE")
    /// Ignores trailing spaces.
    public static let rtrim = Collation("RTRIM")
}
