// RecordColumns+JSONPath: key paths into a nested struct that a record stores
// as JSON — `\Customer.address.city` names the `city` member of the JSON in
// the `address` column, read with `"address" ->> '$.city'`
// (<https://www.sqlite.org/json1.html#jptr>).
//
// Such a key path names no column, so the probe cannot resolve it. Its offset
// says where the value lives: inside the stored property that contains that
// offset (found with `storedFields(of:)`, RecordColumns+Layout.swift), then
// inside that property's struct, and so on down to a property of the key
// path's type at exactly that offset. Each property on the way is mapped to
// its coding key by the probe of its type, so that renamed keys (`case city = "town"`) give the JSON member's name.
//
// Only structs stored inline and JSON written with the default keys qualify;
// anything else (a class, an optional on the way, an array element, a custom
// key strategy) is not resolved, and the key path keeps its error.

import Foundation

extension RecordColumns {
    /// The column and JSON path of a key path into a nested struct stored as
    /// JSON, or nil when `keyPath` is no such path.
    static func jsonPath<Root: Decodable, Value>(for keyPath: KeyPath<Root, Value>) -> (column: String, path: String)? {
        guard !(Root.self is AnyClass), let offset = MemoryLayout<Root>.offset(of: keyPath),
            let probe = try? probe(Root.self),
            let field = storedField(of: Root.self, containing: offset), field.type != Value.self,
            let key = codingKey(of: field.name, in: probe),
            let keyIndex = probe.keys.firstIndex(of: key), probe.types[keyIndex] == field.type
        else { return nil }
        // The JSON must use the members' coding keys.
        guard case .useDefaultKeys = RecordValueFormat.of(Root.self).jsonEncoder(probe.columns[keyIndex]).keyEncodingStrategy else {
            return nil
        }
        guard let members = memberPath(in: field.type, offset: offset - field.offset, leaf: Value.self) else { return nil }
        return (probe.columns[keyIndex], "$" + members.map(jsonPathComponent).joined())
    }

    /// The coding keys of the properties from `type` down to the property of
    /// type `leaf` at `offset`.
    private static func memberPath(in type: Any.Type, offset: Int, leaf: Any.Type) -> [String]? {
        guard let decodable = type as? any Decodable.Type, let field = storedField(of: type, containing: offset) else {
            return nil
        }
        guard let key = memberKey(of: field.name, in: decodable) else { return nil }
        if field.offset == offset && field.type == leaf { return [key] }
        guard let rest = memberPath(in: field.type, offset: offset - field.offset, leaf: leaf) else { return nil }
        return [key] + rest
    }

    /// The coding key of the stored property `name` of a nested type.
    private static func memberKey<T: Decodable>(of name: String, in type: T.Type) -> String? {
        guard !(T.self is AnyClass), let probe = try? probe(T.self) else { return nil }
        return codingKey(of: name, in: probe)
    }

    /// The coding key that fills the stored property `name`.
    private static func codingKey<T>(of name: String, in probe: Probe<T>) -> String? {
        if let key = probe.caseNames.first(where: { $0.value == name })?.key { return key }
        return probe.caseNames.isEmpty && probe.keys.contains(name) ? name : nil
    }

    /// The stored property of a struct whose storage holds `offset`.
    private static func storedField(of type: Any.Type, containing offset: Int) -> (name: String, offset: Int, type: Any.Type)? {
        storedFields(of: type)?.first { field in
            field.offset <= offset && offset < field.offset + max(byteSize(of: field.type), 1)
        }
    }

    /// The size of a value of `type`, in bytes.
    private static func byteSize(of type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return _openExistential(type, do: size)
    }

    /// `.city`, or `."a.b"` for a key that is not a plain identifier.
    private static func jsonPathComponent(_ key: String) -> String {
        let plain = key.first.map { $0.isLetter || $0 == "_" } == true
            && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        if plain { return "." + key }
        return ".\"" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
