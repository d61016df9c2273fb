// QueryExpression: an SQL expression typed by the record it applies to (Root)
// and the Swift type it evaluates to (Value).
//
// Key paths become expressions through the record's coding keys
// (RecordColumns), so `\Player.teamID` names the column its CodingKeys give
// it. The types let the compiler refuse `\.score == "ten"` or a filter on a
// key path of another record.

/// An SQL expression on the table of `Root` whose value is a `Value`.
///
/// The query interface makes them from key paths and values:
///
/// ```swift
/// \Player.score > 10                  // "score" > ?
/// \Player.teamID == nil               // "team_id" IS NULL
/// lower(\Player.name) == "arthur"     // lower("name") = ?
/// ```
///
/// For what key paths cannot name, use ``Column`` (a column by name),
/// ``init(_:)-(String)`` (a typed column by name) or ``init(sql:arguments:)``
/// (raw SQL).
public struct QueryExpression<Root, Value>: Sendable {
    /// The untyped expression.
    public let sqlExpression: SQLExpression

    /// Wraps an untyped expression.
    public init(_ sqlExpression: SQLExpression) {
        self.sqlExpression = sqlExpression
    }

    /// The column named `name`: the escape hatch for columns that no key path
    /// names (`Column("rowid")`, a column the record does not decode).
    ///
    /// ```swift
    /// Player.filter(Column("rowid") > 10)
    /// ```
    public init(_ name: String) {
        self.sqlExpression = .column(name)
    }

    /// Raw SQL, with `?` placeholders bound to `arguments`.
    ///
    /// ```swift
    /// Player.filter(QueryExpression(sql: "score % ? = 0", arguments: [2]))
    /// ```
    public init(sql: String, arguments: [(any DatabaseValueConvertible)?] = []) {
        self.sqlExpression = SQLExpression(sql: sql, arguments: arguments)
    }

    /// The column of a key path.
    public init(_ keyPath: KeyPath<Root, Value>) where Root: Decodable {
        self.sqlExpression = .column(keyPath)
    }
}

extension QueryExpression {
    /// The expression under a column name, for ``QueryRequest/select(named:)``.
    public func forKey(_ name: String) -> NamedExpression<Root> {
        NamedExpression(name: name, expression: sqlExpression)
    }
}

/// An expression selected under a column name: `sum(\Player.score).forKey("total")`.
public struct NamedExpression<Root>: Sendable {
    /// The column name in the result.
    public let name: String
    let expression: SQLExpression
}

extension QueryExpression {
    /// The expression of an untyped ``Column``, for the methods and functions
    /// that `Column` lacks:
    ///
    /// ```swift
    /// Player.select(max(QueryExpression<Player, Int>(Column("score"))))
    /// ```
    public init(_ column: Column) {
        self.sqlExpression = .column(column.name)
    }
}

extension SQLExpression {
    /// The column that `keyPath` names, or an invalid expression that explains
    /// why the key path names no column.
    ///
    /// A key path into a nested struct stored as JSON (`\.address.city`)
    /// reads its member: `"address" ->> '$.city'`, the path bound as an argument.
    static func column<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>) -> SQLExpression {
        do {
            return .column(try RecordColumns.columnName(for: keyPath))
        } catch {
            if let (column, path) = RecordColumns.jsonPath(for: keyPath) {
                let member = SQLExpression(.infix("->>", .column(column), .value(.text(path))))
                // SQLite's ->> returns JSON numbers and booleans as SQL numbers;
                // PostgreSQL's returns text: the member's Swift type says which
                // cast makes comparisons and ordering the same there (see
                // SQLDialect.functionCallSQL).
                switch Value.self {
                case is any JSONBooleanMember.Type: return SQLExpression(.function(SQLExpression.jsonBooleanFunction, [member], distinct: false))
                case is any JSONNumberMember.Type: return SQLExpression(.function(SQLExpression.jsonNumberFunction, [member], distinct: false))
                default: return member
                }
            }
            return SQLExpression(.invalid(error))
        }
    }
}

/// Swift types stored in JSON as numbers.
protocol JSONNumberMember {}
extension Int: JSONNumberMember {}
extension Int8: JSONNumberMember {}
extension Int16: JSONNumberMember {}
extension Int32: JSONNumberMember {}
extension Int64: JSONNumberMember {}
extension UInt: JSONNumberMember {}
extension UInt8: JSONNumberMember {}
extension UInt16: JSONNumberMember {}
extension UInt32: JSONNumberMember {}
extension UInt64: JSONNumberMember {}
extension Double: JSONNumberMember {}
extension Float: JSONNumberMember {}
extension Optional: JSONNumberMember where Wrapped: JSONNumberMember {}

/// Swift types stored in JSON as booleans.
protocol JSONBooleanMember {}
extension Bool: JSONBooleanMember {}
extension Optional: JSONBooleanMember where Wrapped: JSONBooleanMember {}

/// The columns of a record, by key path, for building expressions in closures:
///
/// ```swift
/// Player.filter { $0.name.hasPrefix("A") && $0.score > 10 }
/// Player.order { [$0.score.desc, $0.name] }
/// ```
@dynamicMemberLookup
public struct TableColumns<Root: Decodable>: Sendable {
    /// Creates the column set of `Root`.
    public init() {}

    /// The column of a key path.
    public subscript<Value>(dynamicMember keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
        QueryExpression(keyPath)
    }

    /// A column by name.
    public subscript<Value>(_ name: String, as type: Value.Type = DatabaseValue.self) -> QueryExpression<Root, Value> {
        QueryExpression(name)
    }
}

extension TableAlias {
    /// The column of `keyPath` in this occurrence of its table, usable in any
    /// request (`Root` is inferred from the request):
    ///
    /// ```swift
    /// let manager = TableAlias(name: "manager")
    /// Employee.joining(required: Employee.manager.aliased(manager))
    ///     .filter(manager[\Employee.lastName] == "Adams")
    /// ```
    public subscript<Table: Decodable, Root, Value>(_ keyPath: KeyPath<Table, Value>) -> QueryExpression<Root, Value> {
        QueryExpression(SQLExpression.column(keyPath).qualified(by: .alias(self)))
    }
}
