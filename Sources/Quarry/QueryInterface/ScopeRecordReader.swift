// ScopeRecordReader: reads the record of one scope through the records fast
// path (FetchableRecord readers), at the scope's columns.

import CSQLite
import Foundation

/// Reads the record of a scope, row after row: through the statement's
/// record reader, or from a copied row; a value type shared by many rows (a
/// belongs-to destination) decodes once per identity.
final class ScopeRecordReader<Record: FetchableRecord> {
    private var statementReader: ((Statement) throws -> Record)?
    private var rowReader: ((Row) throws -> Record)?
    /// Records already decoded, and their index by identity value. Class
    /// instances are never shared between rows. (A dictionary of `Record`
    /// values would look up its generic type's metadata on each access; these
    /// two containers do not.)
    private var identified: [Record] = []
    private var identifiedIndexes: [DatabaseValue: Int] = [:]
    private let sharesValues = !(Record.self is AnyClass)

    func read(_ scope: ScopedRow) throws -> Record {
        guard sharesValues, let identity = scope.identity() else { return try readUnidentified(scope) }
        if let index = identifiedIndexes[identity] { return identified[index] }
        let record = try readUnidentified(scope)
        identifiedIndexes[identity] = identified.count
        identified.append(record)
        return record
    }

    private func readUnidentified(_ scope: ScopedRow) throws -> Record {
        switch scope.source {
        case .statement(let statement):
            if let statementReader { return try statementReader(statement) }
            let reader = scope.cache.statementReader(Record.self, statement, scope.range)
            statementReader = reader
            return try reader(statement)
        case .row:
            if let rowReader { return try rowReader(scope.slice) }
            let reader = scope.cache.rowReader(Record.self, scope.range, scope.layout)
            rowReader = reader
            return try reader(scope.slice)
        }
    }
}
