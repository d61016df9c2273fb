// GeneratedSQL: SQL text and the values of its placeholders, as an `SQL`
// literal or a request generates them (`sql(_:)`).

/// SQL text and the values of its placeholders, as a request generates them.
public struct GeneratedSQL: Sendable, Equatable, CustomStringConvertible {
    /// The SQL text, with `?` placeholders.
    public let sql: String
    /// The values bound to the placeholders, in order.
    public let arguments: StatementArguments

    /// The SQL, followed by the arguments when there are any.
    public var description: String {
        arguments.isEmpty ? sql : "\(sql) \(arguments)"
    }
}
