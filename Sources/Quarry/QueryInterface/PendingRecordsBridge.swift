// TEMPORARY: stand-ins for the records layer and the key-path resolver until
// they are merged. Deleted at merge.

enum RecordColumns {
    static func columnName<Root, Value>(for keyPath: KeyPath<Root, Value>) throws -> String {
        let text = "\(keyPath)"
        guard let dot = text.firstIndex(of: ".") else { throw DatabaseError.misuse("no column for \(text)") }
        return String(text[text.index(after: dot)...])
    }
}

enum DatabaseValueEncoding {
    static func databaseValue(of value: any Encodable) throws -> DatabaseValue {
        throw DatabaseError.misuse("not yet")
    }
}

enum DatabaseValueDecoding {
    static func decode(_ type: any Decodable.Type, from value: DatabaseValue, column: String) throws -> Any {
        throw DatabaseError.misuse("not yet")
    }
}

public protocol TableRecord {
    static var databaseTableName: String { get }
}

public protocol FetchableRecord {
    init(row: Row) throws
}

extension FetchableRecord {
    static func reader(for statement: Statement, columnCount: Int? = nil) -> (Statement) throws -> Self {
        let count = min(columnCount ?? statement.columnCount, statement.columnCount)
        let rowLayout = RowLayout(columnNames: Array(statement.columnNames.prefix(count)))
        return { statement in try Self(row: Row(statement: statement, layout: rowLayout)) }
    }
}
