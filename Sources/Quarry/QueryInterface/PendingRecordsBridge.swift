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
