// RecordColumns+Layout: key paths resolved from a record's stored properties,
// for the records that refuse every probe value.
//
// The probe (KeyPathProbeDecoder) decodes the record from made-up values and
// reads them back through the key path: it sees exactly what `init(from:)`
// does, so it is the first choice. A record can refuse every candidate value
// (a validated type whose rule the candidates miss, an invariant checked in
// `init(from:)`). Then the mapping comes from what the type declares:
//
// - the stored properties, with their names, offsets and types, from the
//   standard library's field walker (`_forEachField`, SPI);
// - the cases of its CodingKeys enum (seen when the probe asked for the keyed
//   container), with their names and `stringValue`s (EnumMetadata).
//
// A property whose name is a CodingKeys case is filled by that key: this is
// what synthesized Codable does, and what a hand-written CodingKeys enum
// declares. A key path resolves when its offset and type are those of one
// such property; other key paths (properties outside CodingKeys, paths into
// nested values) are refused with the reason, and the probe's failure.
// Classes are not resolved this way (a key path of a class has no offset):
// their probe failure is reported as it is.

@_spi(Reflection) import Swift

extension RecordColumns {
    /// The probe of a record that refused every probe value, built from its
    /// stored properties and CodingKeys; throws when there is neither.
    static func layoutProbe<Root: Decodable>(_ type: Root.Type, _ failure: ProbeFailure) throws -> Probe<Root> {
        func unresolvable(_ why: String) -> KeyPathColumnError {
            KeyPathColumnError(
                recordType: "\(Root.self)", keyPath: "\\\(Root.self)",
                reason: "\(failure.description); \(why). Give its properties types that accept some value "
                    + "(Quarry tries 0, 1, 2, -1, 100, \"a\", \"a@example.com\", \"https://example.com/a\"…), "
                    + "or name columns with Column(\"name\")")
        }
        guard !(Root.self is AnyClass) else {
            throw unresolvable("key paths of a class cannot be resolved from its stored properties")
        }
        guard let codingKeyType = failure.codingKeyType, let codingKeys = codingKeyCases(codingKeyType) else {
            throw unresolvable("its coding keys are not the cases of an enum")
        }
        guard let fields = storedFields(of: Root.self) else { throw unresolvable("its stored properties cannot be listed") }
        let naming = (Root.self as? any FetchableRecord.Type)?.databaseColumnDecodingStrategy ?? .useCodingKeys
        var keys: [String] = []
        var types: [Any.Type] = []
        var offsets: [Int] = []
        for field in fields {
            guard let key = codingKeys.first(where: { $0.caseName == field.name })?.stringValue else { continue }
            keys.append(key)
            types.append(unwrappedType(field.type))
            offsets.append(field.offset)
        }
        return Probe(
            keys: keys, columns: keys.map { naming.columnName(for: $0) }, types: types, rounds: [],
            offsets: offsets, probeFailure: failure.description)
    }

    /// The stored properties of a struct, with their names, offsets and
    /// types, from the standard library's field walker; nil when it cannot
    /// list them.
    static func storedFields(of type: Any.Type) -> [(name: String, offset: Int, type: Any.Type)]? {
        var fields: [(name: String, offset: Int, type: Any.Type)] = []
        let walked = _forEachField(of: type, options: []) { name, offset, fieldType, _ in
            fields.append((String(cString: name), offset, fieldType))
            return true
        }
        return walked ? fields : nil
    }

    /// The name and `stringValue` of every case of a CodingKeys enum.
    static func codingKeyCases(_ type: any CodingKey.Type) -> [(caseName: String, stringValue: String)]? {
        func cases<Key: CodingKey>(_ type: Key.Type) -> [(caseName: String, stringValue: String)]? {
            guard let info = EnumMetadata.info(of: Key.self), let values = EnumMetadata.allCases(Key.self) else { return nil }
            return zip(info.caseNames, values).map { ($0, $1.stringValue) }
        }
        return cases(type)
    }

    /// The column of a key path, from the stored properties (see the top of this file).
    static func resolveFromLayout<Root, Value>(
        _ keyPath: KeyPath<Root, Value>, _ probe: Probe<Root>, offsets: [Int], refuse: (String) -> KeyPathColumnError
    ) throws -> String {
        let valueType = unwrappedType(Value.self)
        guard let offset = MemoryLayout<Root>.offset(of: keyPath) else { throw refuse("it is a computed property") }
        let candidates = probe.keys.indices.filter { offsets[$0] == offset && probe.types[$0] == valueType }
        guard candidates.count == 1 else {
            throw refuse(
                "no coding key fills it (a property outside CodingKeys, or a path into a nested value stored as JSON); "
                    + "key paths of this type were resolved from its stored properties because "
                    + (probe.probeFailure ?? "the probe failed") + "; use Column(\"name\") for a column by name")
        }
        return probe.columns[candidates[0]]
    }
}
