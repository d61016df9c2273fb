// RecordError: errors thrown by record persistence and by-key fetching.

/// An error thrown by the persistence and by-key methods of records.
///
/// ```swift
/// do {
///     try player.update(db)
/// } catch RecordError.recordNotFound(let table, let key) {
///     // No row in `table` has this primary key.
/// }
/// ```
public enum RecordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No row matches the primary key of the record (``MutablePersistableRecord/update(_:onConflict:)``).
    /// The key lists the primary key columns with their values.
    case recordNotFound(databaseTableName: String, key: [String: DatabaseValue])
    /// The record has no value for a primary key column, so it cannot be
    /// updated or deleted.
    case missingPrimaryKey(databaseTableName: String, column: String)
    /// The columns of a key are neither the primary key nor a unique index,
    /// so they may match several rows.
    case notUniqueKey(databaseTableName: String, columns: [String])
    /// A single value was given as key, but the primary key has several columns,
    /// or a key names no column.
    case invalidKey(databaseTableName: String, reason: String)
    /// The record's `databaseTableName` is a view
    /// (<https://www.sqlite.org/lang_createview.html>), and no `INSTEAD OF`
    /// trigger of the view handles the statement (`"INSERT"`, `"UPDATE"`,
    /// `"DELETE"`), or the statement is an upsert (`"UPSERT"`), which SQLite
    /// refuses on views. Records over views are fetched like any other.
    case viewNotWritable(recordType: String, databaseViewName: String, statement: String)

    /// A sentence naming the table and the key.
    public var description: String {
        switch self {
        case .recordNotFound(let table, let key):
            let keyText = key.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            return "record not found in table \"\(table)\" with key [\(keyText)]"
        case .missingPrimaryKey(let table, let column):
            return "the record for table \"\(table)\" has no value for its primary key column \"\(column)\""
        case .notUniqueKey(let table, let columns):
            return "columns \(columns.map { "\"\($0)\"" }.joined(separator: ", ")) of table \"\(table)\" "
                + "are not the primary key nor a unique index"
        case .invalidKey(let table, let reason):
            return "invalid key for table \"\(table)\": \(reason)"
        case .viewNotWritable(let type, let view, let statement):
            if statement == "UPSERT" {
                return "\(type) cannot be upserted: \"\(view)\" is a view, and SQLite refuses UPSERT on views"
            }
            return "\(type) cannot run \(statement): \"\(view)\" is a view without an INSTEAD OF \(statement) trigger"
        }
    }
}
