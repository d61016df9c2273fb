// Reading the record of a row's scope (Core/RowAdapter.swift):
// `let team: Team = try row["team"]`. Here, in Records, since it decodes a
// FetchableRecord.

extension Row {
    /// The record of the scope `scope` (see ``RowAdapter``): `let team: Team = try row["team"]`.
    ///
    /// Throws if the row has no such scope.
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record {
        get throws {
            guard let scoped = scopes[scope] else {
                throw RowDecodingError(
                    reason: .other("the row has no scope \(scope.debugDescription); its scopes are \(scopes.keys.sorted())"),
                    column: scope, expectedType: "\(Record.self)")
            }
            return try Record(row: scoped)
        }
    }

    /// The record of the scope `scope`, or nil when the row has no such
    /// scope or all its columns are `NULL` (the missing side of a left join).
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record? {
        get throws {
            guard let scoped = scopes[scope], !scoped.databaseValues.allSatisfy(\.isNull) else { return nil }
            return try Record(row: scoped)
        }
    }
}
