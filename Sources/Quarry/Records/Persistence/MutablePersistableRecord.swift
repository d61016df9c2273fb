// MutablePersistableRecord and PersistableRecord: records that insert, update,
// save, upsert and delete themselves, with persistence callbacks.

import Foundation

/// What ``MutablePersistableRecord/didInsert(_:)`` receives after an INSERT.
public struct InsertionSuccess {
    /// The rowid of the inserted row (<https://www.sqlite.org/c3ref/last_insert_rowid.html>).
    public let rowID: Int64
    /// The column that holds the rowid: the `INTEGER PRIMARY KEY` column,
    /// `"rowid"` for a table without one, nil for a `WITHOUT ROWID` table.
    public let rowIDColumn: String?
    /// The values that were inserted, with the new rowid in the rowid column
    /// (where the record inserted `NULL`, say), as GRDB gives them.
    public var persistenceContainer: PersistenceContainer { written.container }
    /// Whether the record inserted another value than the rowid in the rowid
    /// column (`NULL`, usually): the record's id property is then stale.
    var rowIDWasAssigned: Bool { written.rowID != nil }
    let written: WrittenValues

    init(rowID: Int64, rowIDColumn: String?, persistenceContainer container: PersistenceContainer) {
        self.rowID = rowID
        self.rowIDColumn = rowIDColumn
        var assigned: (index: Int, value: Int64)?
        if let rowIDColumn, let index = container.index(ofColumn: rowIDColumn),
            container.databaseValues[index] != .integer(rowID)
        {
            assigned = (index, rowID)
        }
        written = WrittenValues(sent: container, rowID: assigned)
    }
}

/// What ``MutablePersistableRecord/didUpdate(_:)`` and
/// ``MutablePersistableRecord/didSave(_:)`` receive.
public struct PersistenceSuccess {
    /// The values that were written.
    public var persistenceContainer: PersistenceContainer { written.container }
    let written: WrittenValues

    init(persistenceContainer: PersistenceContainer) {
        written = WrittenValues(sent: persistenceContainer, rowID: nil)
    }

    /// What didSave sees after an insert: the inserted values, rowid included.
    init(_ inserted: InsertionSuccess) {
        written = inserted.written
    }
}

/// The values a write sent, and the rowid that an insert puts in place of the
/// value it sent for the rowid column (`NULL`, usually).
///
/// Hot path (every insert): the container with the rowid in it is made only
/// when a callback reads it. Made eagerly, it copied the values of every
/// inserted record, whose callbacks rarely look (benchmark workload 1).
struct WrittenValues {
    let sent: PersistenceContainer
    /// The new rowid and the index of its column in `sent`; nil when there
    /// is none to put there (an update), or the sent value is the rowid.
    let rowID: (index: Int, value: Int64)?

    var container: PersistenceContainer {
        guard let rowID else { return sent }
        var container = sent
        container.databaseValues[rowID.index] = .integer(rowID.value)
        return container
    }
}

/// A record that can be written to its table.
///
/// ```swift
/// struct Player: Codable, FetchableRecord, MutablePersistableRecord {
///     var id: Int64?
///     var name: String
///     var score: Int
/// }
/// var player = Player(id: nil, name: "Arthur", score: 100)
/// try player.insert(db)     // INSERT INTO "player" ("id", "name", "score") VALUES (?, ?, ?)
/// player.id                 // the new rowid
/// ```
///
/// Methods that can assign the rowid (`insert`, `save`, `upsert` and their
/// `AndFetch` forms) are `mutating`. After an insert, ``didInsert(_:)``
/// receives the rowid. Its default implementation, for a `Decodable` record,
/// writes the rowid into the property of the `INTEGER PRIMARY KEY` column when
/// the record inserted `NULL` there: for a struct whose property is an
/// `Int64`, `Int` or an optional of them, it stores the rowid into that
/// property directly; otherwise it decodes the record again from the inserted
/// values with the new id (a record whose encoding cannot be decoded back is
/// left unchanged; implement `didInsert(_:)` then). Other records implement it:
///
/// ```swift
/// mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
/// ```
///
/// The persistence callbacks (`will…`/`around…`/`did…`) do nothing by
/// default. `willSave`/`aroundSave`/`didSave` surround every insert, update,
/// save and upsert; `willInsert`/`aroundInsert`/`didInsert` surround inserts
/// and upserts; `willUpdate`/`aroundUpdate`/`didUpdate` surround updates;
/// `willDelete`/`aroundDelete`/`didDelete` surround deletes. A throwing
/// `will…` callback cancels the operation. An `around…` callback must call
/// the closure it receives exactly once (Quarry throws a misuse error when it
/// does not), and can wrap it, in a savepoint or a timer, say:
///
/// ```swift
/// func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
///     let start = ContinuousClock.now
///     _ = try save()
///     logger.debug("saved in \(ContinuousClock.now - start)")
/// }
/// ```
///
/// Callbacks run in this order: `willSave`, `aroundSave` { `willInsert`,
/// `aroundInsert` { INSERT }, `didInsert` }, `didSave`. Upserts run the insert
/// callbacks.
///
/// ``persistenceConflictPolicy`` sets the `OR <policy>` of inserts and
/// updates called without `onConflict:`.
///
/// The primary key is read from the table schema (see ``TableRecord``).
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// The conflict resolution of inserts and updates called without
    /// `onConflict:` (default: ``ConflictResolution/abort`` for both).
    static var persistenceConflictPolicy: PersistenceConflictPolicy { get }
    /// Called before an insert or upsert; may modify the record (timestamps…) or throw to cancel.
    mutating func willInsert(_ db: Database) throws
    /// Wraps the INSERT (or upsert) statement: call `insert` exactly once.
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws
    /// Called after a successful insert or upsert, with the rowid.
    mutating func didInsert(_ inserted: InsertionSuccess)
    /// Called before an update of `columns`; throw to cancel.
    func willUpdate(_ db: Database, columns: Set<String>) throws
    /// Wraps the UPDATE statement: call `update` exactly once.
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws
    /// Called after a successful update.
    func didUpdate(_ updated: PersistenceSuccess)
    /// Called before every insert, update, save and upsert; throw to cancel.
    mutating func willSave(_ db: Database) throws
    /// Wraps every insert, update, save and upsert, with their `will…` and
    /// `did…` callbacks: call `save` exactly once.
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws
    /// Called after every successful insert, update, save and upsert.
    func didSave(_ saved: PersistenceSuccess)
    /// Called before a delete; throw to cancel.
    func willDelete(_ db: Database) throws
    /// Wraps the DELETE statement: call `delete` exactly once. It returns
    /// whether a row was deleted.
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws
    /// Called after a delete, telling whether a row was deleted.
    func didDelete(deleted: Bool)
}

/// A record that can be written to its table: the protocol most records adopt.
///
/// It has the full API of ``MutablePersistableRecord``, which it refines,
/// and adds non-mutating forms of `insert`, `save`, `upsert` and their
/// `AndFetch` forms, as GRDB does, so that a `let` value can be written:
///
/// ```swift
/// struct Player: Codable, FetchableRecord, PersistableRecord {
///     var id: Int64?
///     var name: String
/// }
/// let arthur = Player(id: 1, name: "Arthur")
/// try arthur.insert(db)   // INSERT INTO "player" ("id", "name") VALUES (?, ?)
///
/// var barbara = Player(id: nil, name: "Barbara")
/// try barbara.insert(db)  // barbara.id is now set
/// ```
///
/// Unlike GRDB, a `var` record still gets its auto-incremented id back: on a
/// variable, the mutating form (which runs ``MutablePersistableRecord/didInsert(_:)``
/// on the value itself) is chosen; on a constant, the non-mutating one (which
/// runs it on a copy).
public protocol PersistableRecord: MutablePersistableRecord {}

extension MutablePersistableRecord {
    /// ``ConflictResolution/abort`` for inserts and updates.
    public static var persistenceConflictPolicy: PersistenceConflictPolicy { PersistenceConflictPolicy() }
    /// Calls `insert`.
    public func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws { _ = try insert() }
    /// Calls `update`.
    public func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        _ = try update()
    }
    /// Calls `save`.
    public func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws { _ = try save() }
    /// Calls `delete`.
    public func aroundDelete(_ db: Database, delete: () throws -> Bool) throws { _ = try delete() }
    /// Does nothing.
    public mutating func willInsert(_ db: Database) throws {}
    /// Does nothing.
    public mutating func didInsert(_ inserted: InsertionSuccess) {}
    /// Does nothing.
    public func willUpdate(_ db: Database, columns: Set<String>) throws {}
    /// Does nothing.
    public func didUpdate(_ updated: PersistenceSuccess) {}
    /// Does nothing.
    public mutating func willSave(_ db: Database) throws {}
    /// Does nothing.
    public func didSave(_ saved: PersistenceSuccess) {}
    /// Does nothing.
    public func willDelete(_ db: Database) throws {}
    /// Does nothing.
    public func didDelete(deleted: Bool) {}
}

extension MutablePersistableRecord where Self: Decodable {
    /// Writes the new rowid into the property of the rowid column, when the
    /// record inserted `NULL` there (see ``MutablePersistableRecord``).
    public mutating func didInsert(_ inserted: InsertionSuccess) {
        guard let rowIDColumn = inserted.rowIDColumn, inserted.rowIDWasAssigned else { return }
        // Fast path: store the rowid into the property directly (structs).
        if RecordIDWriter.write(inserted.rowID, into: &self, column: rowIDColumn) { return }
        // The container holds the new rowid already.
        let container = inserted.persistenceContainer
        guard let row = try? Row(columnNames: container.columns, databaseValues: container.databaseValues) else { return }
        let dateStrategy: DatabaseDateDecodingStrategy =
            Self.databaseDateEncodingStrategy == .millisecondsSince1970 ? .millisecondsSince1970 : .default
        let buffer = RowBuffer(row)
        let decoder = RecordDecoder(
            source: buffer, columnNames: row.columnNames,
            layout: DecodingLayout(
                columnNames: row.columnNames, naming: Self.databaseColumnEncodingStrategy,
                jsonDecoder: RecordValueFormat.of(Self.self).jsonDecoder),
            recordType: Self.self, dateStrategy: dateStrategy)
        if let record = try? withExtendedLifetime(buffer, { try decoder.decoding(buffer) { try Self(from: $0) } }) {
            self = record
        }
    }
}
