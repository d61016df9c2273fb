// FetchableRecord: a type built from database rows, by hand or through Decodable.

import Foundation
import Synchronization

/// A type that can be decoded from a database row.
///
/// A `Decodable` type needs no code: its properties are read from the columns
/// named by its `CodingKeys`.
///
/// ```swift
/// struct Player: Decodable, FetchableRecord, TableRecord {
///     var id: Int64
///     var name: String
///     var teamID: Int64?
///     enum CodingKeys: String, CodingKey {
///         case id, name, teamID = "team_id"
///     }
/// }
/// let players = try Player.fetchAll(db)              // SELECT * FROM "player"
/// ```
///
/// Decodable records are decoded straight from the SQLite statement, with the
/// column of each coding key resolved once per statement. A record can instead
/// implement ``init(row:)`` by hand; Quarry then uses it for every fetch, even
/// when the type is also `Decodable` (Quarry detects, on the first row of the
/// first fetch, whether `init(row:)` is its own default).
///
/// Property types: everything ``DatabaseValueConvertible`` (integers, `Bool`,
/// `Double`, `String`, `Data`, `Date`, `UUID`, `URL`, `Decimal`, enums with
/// raw values), optionals (`NULL`), and any other `Decodable` value (structs,
/// arrays, dictionaries), read from JSON text. A missing column, `NULL` for a
/// non-optional property, a value that does not convert and bad JSON throw a
/// ``RowDecodingError`` that names the record type, the column and the value
/// found. An optional property whose column is missing is nil.
public protocol FetchableRecord {
    /// Creates a record from a row.
    init(row: Row) throws

    /// How coding keys become column names when decoding (default: ``DatabaseColumnNamingStrategy/useCodingKeys``).
    static var databaseColumnDecodingStrategy: DatabaseColumnNamingStrategy { get }

    /// How `Date` properties are read (default: ``DatabaseDateDecodingStrategy/default``).
    static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy { get }

    /// The JSON decoder of the nested values (structs, arrays, dictionaries)
    /// read from `column`.
    ///
    /// The default reads the format GRDB writes: dates as milliseconds since
    /// 1970, `Data` as base64 (`JSONDecoder.databaseDefault()`).
    /// Implement it together with ``EncodableRecord/databaseJSONEncoder(for:)``:
    ///
    /// ```swift
    /// static func databaseJSONDecoder(for column: String) -> JSONDecoder {
    ///     let decoder = JSONDecoder.databaseDefault()
    ///     decoder.dateDecodingStrategy = .iso8601
    ///     return decoder
    /// }
    /// ```
    ///
    /// Quarry asks once per column and statement, and keeps the decoder.
    static func databaseJSONDecoder(for column: String) -> JSONDecoder

    /// The `userInfo` that `init(from:)` finds in its `Decoder` (default: empty).
    /// Quarry reads it once per statement. The default
    /// ``databaseJSONDecoder(for:)`` passes it on to the values stored as
    /// JSON, as GRDB's does; a decoder of your own sets it itself
    /// (`decoder.userInfo = databaseDecodingUserInfo`).
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// Whether Quarry may decode rows straight into the record's stored
    /// properties instead of calling `init(from:)` for each row (default:
    /// false: `init(from:)` runs for every row, as in GRDB).
    ///
    /// Return `true` only for a record whose `init(from:)` is the synthesized
    /// one: you assert that it reads each column into its property, unchanged.
    /// Swift cannot tell a synthesized `init(from:)` from a hand-written one at
    /// run time, so Quarry cannot check this for you: an `init(from:)` that
    /// maps, checks or counts values would be skipped.
    ///
    /// Quarry then decodes without `init(from:)` a struct whose stored
    /// properties are all `Int`, `Int64`, `Double`, `Bool`, `String` or
    /// optional ones. As a safety net, it first runs `init(from:)` once on
    /// made-up values and keeps calling it if it does not ask for one value per
    /// stored property, each kept unchanged. The values and the errors are the
    /// same as through `init(from:)`, in less time.
    ///
    /// ```swift
    /// struct Player: Codable, FetchableRecord {
    ///     static let databaseDecodesStoredPropertiesDirectly = true
    ///     var id: Int64
    ///     var name: String
    ///     var score: Int
    /// }
    /// ```
    static var databaseDecodesStoredPropertiesDirectly: Bool { get }
}

extension FetchableRecord {
    /// ``DatabaseColumnNamingStrategy/useCodingKeys``.
    public static var databaseColumnDecodingStrategy: DatabaseColumnNamingStrategy { .useCodingKeys }
    /// ``DatabaseDateDecodingStrategy/default``.
    public static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy { .default }
    /// `JSONDecoder.databaseDefault()`: GRDB's JSON format, with the
    /// record's ``databaseDecodingUserInfo``, so that a nested value decoded
    /// from JSON reads the same `userInfo` as the record.
    public static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder.databaseDefault()
        let userInfo = databaseDecodingUserInfo
        if !userInfo.isEmpty { decoder.userInfo = jsonCoderUserInfo(userInfo) }
        return decoder
    }
    /// Empty.
    public static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [:] }
    /// False: `init(from:)` runs for every row.
    public static var databaseDecodesStoredPropertiesDirectly: Bool { false }
}

extension FetchableRecord where Self: Decodable {
    /// Decodes the record from the row through `Decodable`.
    public init(row: Row) throws {
        DefaultRowInitializerProbe.markUsed(Self.self)
        self = try Self.decodedFromRow(row)
    }

    /// The record decoded from `row` through `Decodable`, whatever its `init(row:)`.
    static func decodedFromRow(_ row: Row) throws -> Self {
        let buffer = RowBuffer(row)
        return try withExtendedLifetime(buffer) {
            try sourceReader(buffer, columns: 0..<buffer.columnCount).read(buffer)
        }
    }

    /// A function that decodes records from the current row of `source`,
    /// reading the columns `columns` (the first ones, or those of an included
    /// association), through `Decodable`.
    static func sourceReader(_ source: any RowSource, columns: Range<Int>) -> ReaderBox<Self> {
        let allNames = source.columnNames
        let columnNames = Array(allNames[columns.clamped(to: allNames.indices)])
        let layout = DecodingLayout(
            columnNames: columnNames, naming: Self.databaseColumnDecodingStrategy, offset: Int32(columns.lowerBound),
            jsonDecoder: Self.databaseJSONDecoder(for:))
        let decoder = RecordDecoder(
            source: source, columnNames: columnNames, layout: layout, recordType: Self.self,
            dateStrategy: Self.databaseDateDecodingStrategy)
        if let plan = DirectDecodingPlan.of(Self.self) {
            let direct = DirectRecordReader<Self>(plan: plan, layout: layout)
            return ReaderBox({ try decoder.decoding($0) { try direct.read($0) } }, columns: columns, layout: layout)
        }
        return ReaderBox({ try decoder.decoding($0) { try Self(from: $0) } }, columns: columns, layout: layout)
    }
}

extension FetchableRecord {
    /// A function that decodes records from the current row of `source`:
    /// the Decodable fast path when the type uses the default `init(row:)`,
    /// else `init(row:)` on a copied row.
    ///
    /// The reader is kept on the source, so that a cached statement (a
    /// fetch by primary key, say) builds its decoder and resolves its column
    /// layout once, not at each call.
    static func reader(for source: any RowSource, columnCount: Int? = nil) -> (any RowSource) throws -> Self {
        reader(for: source, columns: 0..<min(columnCount ?? source.columnCount, source.columnCount))
    }

    /// A function that decodes records from the columns `columns` of the
    /// current row of `source` (see ``reader(for:columnCount:)``).
    static func reader(for source: any RowSource, columns: Range<Int>) -> (any RowSource) throws -> Self {
        let statement = source
        let key = ObjectIdentifier(Self.self)
        // The column names change only when SQLite recompiles the statement
        // after a schema change, which drops the cached readers; otherwise the
        // range identifies the columns.
        statement.invalidateStaleLayouts()
        if let last = statement.lastRecordReader, last.type == key {
            // Only a ReaderBox<Self> is ever stored under Self's identifier.
            let cached = unsafeDowncast(last.reader, to: ReaderBox<Self>.self)
            if cached.columns == columns { return cached.read }
        }
        if let cached = statement.recordReaders[key] as? ReaderBox<Self>, cached.columns == columns {
            statement.lastRecordReader = (key, cached)
            return cached.read
        }
        func keep(_ read: @escaping (any RowSource) throws -> Self, layout: DecodingLayout? = nil) -> (any RowSource) throws -> Self {
            let box = ReaderBox(read, columns: columns, layout: layout)
            statement.recordReaders[key] = box
            statement.lastRecordReader = (key, box)
            return read
        }
        func makeRowReader() -> (any RowSource) throws -> Self {
            let allNames = statement.columnNames
            let readable = columns.clamped(to: allNames.indices)
            let rowLayout = RowLayout(columnNames: Array(allNames[readable]))
            return { statement in
                do {
                    return try Self(row: Row(statement, columns: readable, layout: rowLayout))
                } catch var error as RowDecodingError where error.sql == nil {
                    // init(row:) does not know the SQL: add it.
                    error.sql = statement.sourceSQL
                    throw error
                }
            }
        }
        guard let decodable = Self.self as? any (FetchableRecord & Decodable).Type,
            // A closure returned by the opened generic function would be erased
            // to `any FetchableRecord & Decodable`: a generic class casts back exactly.
            let fastBox = openStatementReader(decodable, statement, columns) as? ReaderBox<Self>
        else { return keep(makeRowReader()) }
        let fastReader = fastBox.read
        switch DefaultRowInitializerProbe.usesDefault(Self.self) {
        case true?: return keep(fastReader, layout: fastBox.layout)
        case false?: return keep(makeRowReader())
        case nil:
            // Probe on the first row: does init(row:) run Quarry's default?
            let rowReader = makeRowReader()
            var decided: ((any RowSource) throws -> Self)?
            return { statement in
                if let decided { return try decided(statement) }
                let (result, usedDefault) = DefaultRowInitializerProbe.probe(Self.self) {
                    Result { try rowReader(statement) }
                }
                DefaultRowInitializerProbe.record(Self.self, usesDefault: usedDefault)
                decided = usedDefault ? fastReader : rowReader
                return try result.get()
            }
        }
    }
}

private func openStatementReader<R: FetchableRecord & Decodable>(
    _ type: R.Type, _ source: any RowSource, _ columns: Range<Int>
) -> AnyObject {
    R.sourceReader(source, columns: columns)
}

/// A reader closure with the number of columns it reads, and the column
/// layout of the Decodable path. It carries the closure out of an opened
/// existential with its exact type, and is kept on the source.
final class ReaderBox<Record> {
    let read: (any RowSource) throws -> Record
    let columns: Range<Int>
    let layout: DecodingLayout?
    init(_ read: @escaping (any RowSource) throws -> Record, columns: Range<Int>, layout: DecodingLayout?) {
        self.read = read
        self.columns = columns
        self.layout = layout
    }
}

/// Detects whether a Decodable record uses the default `init(row:)`, so that a
/// hand-written `init(row:)` is never bypassed by the Decodable fast path.
///
/// The default `init(row:)` calls `markUsed()`, which records the call in a
/// thread-local flag only while `probe` runs. The answer is cached per type.
enum DefaultRowInitializerProbe {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    private static let answers = Mutex<[ObjectIdentifier: Bool]>([:])
    private static var used: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 1) }

    static func usesDefault(_ type: Any.Type) -> Bool? {
        answers.withLock { $0[ObjectIdentifier(type)] }
    }

    static func record(_ type: Any.Type, usesDefault: Bool) {
        answers.withLock { $0[ObjectIdentifier(type)] = usesDefault }
    }

    /// The flag's value while `type` is probed: its metadata pointer.
    private static func marker(_ type: Any.Type) -> UnsafeMutableRawPointer {
        unsafeBitCast(type, to: UnsafeMutableRawPointer.self)
    }

    /// Runs `body` and tells whether it ran the default `init(row:)` of `type`
    /// itself (not of another record type that a hand-written `init(row:)` uses).
    static func probe<T>(_ type: Any.Type, _ body: () -> T) -> (T, usedDefault: Bool) {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, marker(type))
        let result = body()
        let usedDefault = pthread_getspecific(key) == used
        pthread_setspecific(key, previous)
        return (result, usedDefault)
    }

    @inline(__always)
    static func markUsed(_ type: Any.Type) {
        if let current = pthread_getspecific(key), current == marker(type) { pthread_setspecific(key, used) }
    }
}

extension Row: FetchableRecord {
    /// The row itself.
    public init(row: Row) { self = row }
}
