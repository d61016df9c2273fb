// ScopeRecordReader: reads the record of one scope through the records fast
// path (FetchableRecord readers), at the scope's columns.

import Foundation

/// Reads the record of a scope, row after row, through the record reader of
/// its columns; a value type shared by many rows (a belongs-to destination)
/// decodes once per identity.
final class ScopeRecordReader<Record: FetchableRecord> {
    private var reader: ((any RowSource) throws -> Record)?
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
        if let reader { return try reader(scope.source) }
        let reader = scope.cache.reader(Record.self, scope.source, scope.range)
        self.reader = reader
        return try reader(scope.source)
    }
}
