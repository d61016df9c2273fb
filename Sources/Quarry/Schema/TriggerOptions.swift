// TriggerOptions, TriggerTiming and TriggerEvent: the options of CREATE TRIGGER
// (https://www.sqlite.org/lang_createtrigger.html): when the trigger runs, and
// for which statement.

/// Options of `Database.create(trigger:options:on:timing:event:when:body:)`.
///
/// ```swift
/// try db.create(trigger: "book_touch", options: [.ifNotExists, .temporary], on: "book",
///               timing: .after, event: .update(of: ["title"])) { t in … }
/// // CREATE TEMPORARY TRIGGER IF NOT EXISTS "book_touch" AFTER UPDATE OF "title" ON "book" …
/// ```
public struct TriggerOptions: OptionSet, Sendable {
    /// The bits of the options.
    public let rawValue: Int

    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: does nothing if a trigger of that name exists (its
    /// definition is not compared).
    public static let ifNotExists = TriggerOptions(rawValue: 1 << 0)

    /// `TEMPORARY`: the trigger lives in the connection's temp schema, fires
    /// only for this connection's statements, and disappears when the
    /// connection closes.
    public static let temporary = TriggerOptions(rawValue: 1 << 1)
}

/// When a trigger runs, relative to the statement that fires it.
public enum TriggerTiming: String, Sendable, Equatable {
    /// `BEFORE`: before each row changes (tables only).
    case before = "BEFORE"
    /// `AFTER`: after each row changed (tables only).
    case after = "AFTER"
    /// `INSTEAD OF`: in place of the change, which does not happen (views
    /// only): this is how a view accepts INSERT, UPDATE and DELETE.
    case insteadOf = "INSTEAD OF"
}

/// The statement that fires a trigger.
///
/// ```swift
/// .insert                     // INSERT
/// .delete                     // DELETE
/// .update                     // UPDATE
/// .update(of: ["title"])      // UPDATE OF "title"
/// ```
public struct TriggerEvent: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case insert, delete, update
    }

    let kind: Kind
    /// The columns of `UPDATE OF`, or nil for any UPDATE.
    let columns: [String]?

    /// `INSERT`: the trigger runs for each inserted row, which `NEW` names.
    public static let insert = TriggerEvent(kind: .insert, columns: nil)

    /// `DELETE`: the trigger runs for each deleted row, which `OLD` names.
    public static let delete = TriggerEvent(kind: .delete, columns: nil)

    /// `UPDATE`: the trigger runs for each updated row; `OLD` names its
    /// values before the update, `NEW` after.
    public static let update = TriggerEvent(kind: .update, columns: nil)

    /// `UPDATE OF "a", "b"`: the trigger runs for each row of an UPDATE that
    /// sets one of the columns (whether or not the value changes).
    ///
    /// - parameter columns: the columns; at least one.
    public static func update(of columns: [String]) -> TriggerEvent {
        TriggerEvent(kind: .update, columns: columns)
    }

    /// `INSERT`, `DELETE`, `UPDATE` or `UPDATE OF "a", "b"`.
    func sql() throws -> String {
        switch kind {
        case .insert: return "INSERT"
        case .delete: return "DELETE"
        case .update:
            guard let columns else { return "UPDATE" }
            guard !columns.isEmpty else {
                throw DatabaseError.misuse("a trigger on UPDATE OF columns needs at least one column")
            }
            return "UPDATE OF " + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        }
    }
}
