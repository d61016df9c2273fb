// SchemaCheckError: the error of `Database.checkSchema(of:)` — every
// difference found between the record types and the live tables
// (SchemaMismatch.swift), in one error, one line per difference in its
// description (for a start-up log).

/// The error thrown by `Database.checkSchema(of:)`
/// and `DatabaseMigrator.migrate(_:checkingSchemaOf:)`: every difference
/// between the record types and the tables of the database.
///
/// Its description has a first line that counts the mismatches, then one
/// line per mismatch, ready for a log:
///
/// ```swift
/// do {
///     try dbQueue.read { db in try db.checkSchema(of: Player.self, Team.self) }
/// } catch let error as SchemaCheckError {
///     logger.critical("\(error)")
///     // The schema does not match the record types (2 mismatches):
///     // - Player: table "player" has no column "score" (expected a column for Int): Player reads and writes it
///     // - Team: column "team"."name" is nullable, expected NOT NULL: the String property is not optional, and a NULL would fail decoding
/// }
/// ```
public struct SchemaCheckError: Error, CustomStringConvertible, Sendable {
    /// Every mismatch, in the order of the record types, then of their columns.
    public let mismatches: [SchemaMismatch]

    /// Creates the error of a list of mismatches.
    public init(mismatches: [SchemaMismatch]) {
        self.mismatches = mismatches
    }

    /// A line that counts the mismatches, then one line per mismatch.
    public var description: String {
        let count = mismatches.count == 1 ? "1 mismatch" : "\(mismatches.count) mismatches"
        return (["The schema does not match the record types (\(count)):"] + mismatches.map { "- \($0)" })
            .joined(separator: "\n")
    }
}
