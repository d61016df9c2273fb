// Cursor: iteration over the rows of a statement, one row at a time, in constant memory.

/// A sequence of values read from the database one at a time.
///
/// A cursor steps an SQLite statement lazily: fetching ten million rows with a
/// cursor uses the memory of one row. Iterate with `while let`:
///
/// ```swift
/// let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM player")
/// while let row = try cursor.next() {
///     let name: String = try row["name"]
/// }
/// ```
///
/// A cursor is usable only inside the database access closure that created it.
public protocol Cursor<Element>: AnyObject {
    /// The type of the values.
    associatedtype Element

    /// The next value, or nil when the cursor is exhausted.
    func next() throws -> Element?
}

extension Cursor {
    /// Calls `body` on each remaining value.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() { try body(element) }
    }

    /// Combines the remaining values, like `Sequence.reduce(_:_:)`.
    public func reduce<Result>(_ initialResult: Result, _ combine: (Result, Element) throws -> Result) throws -> Result {
        var result = initialResult
        while let element = try next() { result = try combine(result, element) }
        return result
    }
}

extension Array {
    /// Collects the remaining values of a cursor.
    public init<C: Cursor>(_ cursor: C) throws where C.Element == Element {
        self.init()
        while let element = try cursor.next() { append(element) }
    }
}

/// A cursor over the rows of a statement, each decoded by a closure.
///
/// ``Row/fetchCursor(_:sql:arguments:)``, the `fetchCursor` methods of
/// ``DatabaseValueConvertible`` types, and records' `fetchCursor` return one.
/// The statement is reset when the cursor is exhausted, fails, or is released.
/// A cursor that failed throws the same error from every later `next()`, so
/// that a caller that goes on iterating never takes a failed query for a
/// complete one.
public final class StatementCursor<Element>: Cursor {
    /// The statement stepped through (DatabaseConnection.swift): SQLite's
    /// `Statement`, or a server's statement whose rows came back whole.
    private let statement: any PreparedStatement
    /// Reads the current row.
    private let read: () throws -> Element
    private var isDone = false
    /// The error that ended the cursor, thrown again by every later `next()`.
    private var failure: (any Error)?

    init(statement: Statement, arguments: StatementArguments, decode: @escaping (Statement) throws -> Element) throws {
        self.statement = statement
        read = { try decode(statement) }
        try statement.bindArguments(arguments)
    }

    /// A cursor over a statement already bound, whose rows `read` reads.
    init(prepared: any PreparedStatement, read: @escaping () throws -> Element) {
        statement = prepared
        self.read = read
    }

    deinit {
        if !isDone { statement.reset() }
    }

    /// The next decoded row, or nil when all rows have been read.
    public func next() throws -> Element? {
        guard !isDone else {
            if let failure { throw failure }
            return nil
        }
        do {
            if try statement.step() {
                return try read()
            }
        } catch {
            isDone = true
            failure = error
            statement.reset()
            throw error
        }
        isDone = true
        statement.reset()
        return nil
    }
}

/// GRDB's name of a cursor over rows: `Row.fetchCursor` returns one.
public typealias RowCursor = StatementCursor<Row>

/// GRDB's name of a cursor over values: `String.fetchCursor` returns one.
public typealias DatabaseValueCursor<Value> = StatementCursor<Value>

/// GRDB's name of a cursor over records: `Player.fetchCursor` returns one.
public typealias RecordCursor<Record> = StatementCursor<Record>
