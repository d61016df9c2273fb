// AuditEntry: a row of the `audit` table, written by triggers on `book` for
// each insert, update and delete, whatever statement made the change.

import Quarry

/// One change of a book, recorded by a trigger in the transaction of the
/// change: `{"id": 3, "table_name": "book", "row_id": 1, "action": "update",
/// "old_title": "Kindred", "new_title": "Kindred (25th)", "changed_at": "2026-11-25T23:01:48Z"}`.
/// Its JSON keys are its column names; a nil title is left out.
public struct AuditEntry: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "audit"

    /// The primary key; newer entries have larger ids.
    public var id: Int64
    /// The table that changed (`book`).
    public var tableName: String
    /// The rowid of the changed row (the book's id).
    public var rowID: Int64
    /// `insert`, `update` or `delete`.
    public var action: String
    /// The title before the change (nil for an insert).
    public var oldTitle: String?
    /// The title after the change (nil for a delete).
    public var newTitle: String?
    /// When the change was made, in UTC: `YYYY-MM-DDTHH:MM:SSZ`.
    public var changedAt: String

    enum CodingKeys: String, CodingKey {
        case id, tableName = "table_name", rowID = "row_id", action, oldTitle = "old_title", newTitle = "new_title"
        case changedAt = "changed_at"
    }
}
