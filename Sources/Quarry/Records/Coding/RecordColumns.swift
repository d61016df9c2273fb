// RecordColumns: maps a key path of a Decodable record to the column its
// coding key names — with no macro and no list of columns written by hand.
//
// The mapping is learned once per record type, then cached (thread-safe):
//
// 1. The probe (KeyPathProbeDecoder) decodes the record from made-up values,
//    a few rounds, each key getting one of two values chosen by one bit of
//    its index; reading a key path on the decoded records shows the bit
//    pattern of the one key that fills it. Valid values come from the type:
//    numbers, strings, dates…; enum cases made from the enum's metadata
//    (EnumMetadata: no CaseIterable needed, associated values included);
//    nested structs, arrays and dictionaries built leaf by leaf.
// 2. A record that refuses a value (a validated type, a check in
//    `init(from:)`) is decoded again with the next pair of candidate values
//    for the key it refused, then for every key ("a@example.com",
//    "https://example.com/a", 1, 2, -1, 100…; see ProbeValues).
// 3. A record that refuses every candidate is resolved from its stored
//    properties and its CodingKeys enum instead (RecordColumns+Layout.swift).
//
// A key path that does not name exactly one column — a computed property, a
// path into a nested JSON value, a property no coding key fills — is refused
// with an error that says why; other key paths of the type still resolve.
//
// Cost, once per type: 9 to 12 ms for a record of 30 properties in a debug
// build on 2 cores (RecordShapeTests.probeCostOfAThirtyPropertyRecord prints
// it); then a locked dictionary lookup per key path.

import Foundation

/// The error thrown when a key path does not name a column.
public struct KeyPathColumnError: Error, CustomStringConvertible, Sendable {
    /// The record type.
    public let recordType: String
    /// The key path, as Swift prints it (`\Player.fullName`).
    public let keyPath: String
    /// Why the key path names no column.
    public let reason: String

    /// `\Player.fullName does not name a column of Player: it is a computed property`.
    public var description: String {
        "\(keyPath) does not name a column of \(recordType): \(reason)"
    }
}

enum RecordColumns {
    /// What the probe learned about one record type.
    final class Probe<Root>: @unchecked Sendable {
        /// The coding keys, in the order the record decodes them.
        let keys: [String]
        /// The column of each key (the record's column naming strategy applied).
        let columns: [String]
        /// The type decoded at each key, optionals unwrapped.
        let types: [Any.Type]
        /// For each round, the record decoded from probe values, and the
        /// fingerprint of the value handed out for each key.
        let rounds: [(record: Root, fingerprints: [String: String])]
        /// The record a wrapper decodes from its single-value container:
        /// its columns, and the formats its values are stored in.
        let wrappedType: Any.Type?
        /// When the record could not be decoded from probe values (`rounds`
        /// is then empty): the offset of the stored property of each key,
        /// and why decoding failed (see RecordColumns+Layout.swift).
        let offsets: [Int]?
        let probeFailure: String?
        /// The CodingKeys case name of each key, when the keys are the cases
        /// of an enum (`teamID` for the key "team_id").
        let caseNames: [String: String]
        /// The keys of optional values (their columns may hold NULL).
        let optionalKeys: Set<String>
        /// Resolved key paths. Guarded by `RecordColumns.lock`.
        var resolved: [AnyKeyPath: String] = [:]

        init(
            keys: [String], columns: [String], types: [Any.Type], rounds: [(record: Root, fingerprints: [String: String])],
            wrappedType: Any.Type? = nil, offsets: [Int]? = nil, probeFailure: String? = nil,
            caseNames: [String: String] = [:], optionalKeys: Set<String> = []
        ) {
            self.caseNames = caseNames
            self.optionalKeys = optionalKeys
            self.keys = keys
            self.columns = columns
            self.types = types
            self.rounds = rounds
            self.wrappedType = wrappedType
            self.offsets = offsets
            self.probeFailure = probeFailure
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var probes: [ObjectIdentifier: Any] = [:]

    /// The column that `keyPath` names.
    static func columnName<Root: Decodable, Value>(for keyPath: KeyPath<Root, Value>) throws -> String {
        if EnumRecordColumns.isEnumRecord(Root.self) {
            throw KeyPathColumnError(
                recordType: "\(Root.self)", keyPath: describeKeyPath(keyPath),
                reason: "\(Root.self) is an enum record, whose properties are all computed; "
                    + "filter by case with filter(case:), and on the case's columns with filter(case:_:)")
        }
        let probe = try self.probe(Root.self)
        if let column = lock.withLock({ probe.resolved[keyPath] }) { return column }
        let column = try resolve(keyPath, probe)
        lock.withLock { probe.resolved[keyPath] = column }
        return column
    }

    /// The type whose value formats apply to the columns of `type`: the
    /// record a wrapper decodes from its single-value container, or `type`
    /// itself. Learned once per type (failures included, so that a type the
    /// probe cannot decode is not probed again at each query).
    static func formatType(of type: Any.Type) -> Any.Type {
        let id = ObjectIdentifier(type)
        if let known = lock.withLock({ formatTypes[id] }) { return known }
        var result = type
        if let decodable = type as? any Decodable.Type, let wrapped = wrappedType(decodable) {
            result = formatType(of: wrapped)
        }
        lock.withLock { formatTypes[id] = result }
        return result
    }

    nonisolated(unsafe) private static var formatTypes: [ObjectIdentifier: Any.Type] = [:]

    private static func wrappedType<Root: Decodable>(_ type: Root.Type) -> Any.Type? {
        (try? probe(Root.self))?.wrappedType
    }

    /// The columns of `Root`, in the order its coding keys decode.
    static func columnNames<Root: Decodable>(of type: Root.Type) throws -> [String] {
        try probe(Root.self).columns
    }

    static func probe<Root: Decodable>(_ type: Root.Type) throws -> Probe<Root> {
        let id = ObjectIdentifier(Root.self)
        if let probe = lock.withLock({ probes[id] }) as? Probe<Root> { return probe }
        let probe = try makeProbe(Root.self)
        lock.withLock { probes[id] = probe }
        return probe
    }

    private static func makeProbe<Root: Decodable>(_ type: Root.Type) throws -> Probe<Root> {
        var keys: [String] = []
        var types: [Any.Type] = []
        var choices: [String: Int] = [:]
        var rounds: [(record: Root, fingerprints: [String: String])] = []
        var wrappedType: Any.Type?
        var codingKeyType: (any CodingKey.Type)?
        var optionalKeys: Set<String> = []
        var roundCount = 1
        var round = 0
        while round < roundCount {
            let decoded = decodeRound(Root.self, round, keys: &keys, types: &types, choices: &choices)
            guard case .success(let (record, probeRound)) = decoded else {
                guard case .failure(let failure) = decoded else { break }
                // Every candidate was refused: resolve from the stored properties.
                return try layoutProbe(Root.self, failure)
            }
            wrappedType = wrappedType ?? probeRound.wrappedType
            codingKeyType = codingKeyType ?? probeRound.codingKeyType
            optionalKeys.formUnion(probeRound.optionalKeys)
            rounds.append((record, probeRound.fingerprints))
            if round == 0 {
                // Enough rounds for every key index + 1 to have a distinct bit pattern.
                roundCount = max(1, (keys.count + 1).bitWidth - (keys.count + 1).leadingZeroBitCount)
            }
            round += 1
        }
        let naming = (wrappedType as? any FetchableRecord.Type)?.databaseColumnDecodingStrategy
            ?? (Root.self as? any FetchableRecord.Type)?.databaseColumnDecodingStrategy ?? .useCodingKeys
        var caseNames: [String: String] = [:]
        for key in codingKeyType.flatMap(codingKeyCases) ?? [] { caseNames[key.stringValue] = key.caseName }
        return Probe(
            keys: keys, columns: keys.map { naming.columnName(for: $0) }, types: types, rounds: rounds, wrappedType: wrappedType,
            caseNames: caseNames, optionalKeys: optionalKeys)
    }

    /// The column of a property-wrapped property (`@Trimmed var label`),
    /// whose key path is computed (it reads `_label.wrappedValue`): the key
    /// whose stored property is `_label` (the name synthesized Codable
    /// codes), when the wrapper's single stored value is the key path's
    /// value in every probe round.
    private static func wrappedPropertyColumn<Root, Value>(_ keyPath: KeyPath<Root, Value>, _ probe: Probe<Root>) -> String? {
        guard !probe.rounds.isEmpty else { return nil }
        let observed = probe.rounds.map { ProbeValues.fingerprint($0.record[keyPath: keyPath]) }
        let storedNames = probe.keys.map { "_" + (probe.caseNames[$0] ?? $0) }
        let candidates = probe.keys.indices.filter { index in
            probe.rounds.indices.allSatisfy { round in
                let record = Mirror(reflecting: probe.rounds[round].record)
                guard let wrapper = record.children.first(where: { $0.label == storedNames[index] })?.value else { return false }
                let stored = Mirror(reflecting: wrapper).children
                guard stored.count == 1, let inner = stored.first?.value else { return false }
                return ProbeValues.fingerprint(inner) == observed[round]
            }
        }
        return candidates.count == 1 ? probe.columns[candidates[0]] : nil
    }

    /// Why a record could not be decoded from probe values.
    struct ProbeFailure: Error {
        /// The coding key asked for last, the error, and the CodingKey type.
        let key: String?
        let error: any Error
        let codingKeyType: (any CodingKey.Type)?

        var description: String {
            "Quarry could not decode the record from probe values"
                + (key.map { " (at the coding key \"\($0)\")" } ?? "") + ": \(error)"
        }
    }

    /// Decodes the record of one round. When the record refuses a probe
    /// value (a validated type, a check in `init(from:)`), the key asked for
    /// last gets the next candidate pair, then every key moves to the next
    /// pair together (for checks made after all keys are decoded): at most
    /// `choiceCount`² attempts, cheap next to a query.
    private static func decodeRound<Root: Decodable>(
        _ type: Root.Type, _ round: Int, keys: inout [String], types: inout [Any.Type], choices: inout [String: Int]
    ) -> Result<(Root, ProbeRound), ProbeFailure> {
        var failure = ProbeFailure(key: nil, error: DatabaseError.misuse("no attempt"), codingKeyType: nil)
        for level in 0..<ProbeValues.choiceCount {
            var trial = choices
            for key in keys { trial[key] = max(trial[key] ?? 0, level) }
            while true {
                let probeRound = ProbeRound(round: round, keys: keys, types: types, choices: trial)
                do {
                    let record = try Root(from: KeyPathProbeDecoder(round: probeRound))
                    keys = probeRound.keys
                    types = probeRound.types
                    choices = trial
                    return .success((record, probeRound))
                } catch {
                    // The keys asked so far keep their order in the next attempt.
                    keys = probeRound.keys
                    types = probeRound.types
                    failure = ProbeFailure(
                        key: probeRound.keys.last, error: error, codingKeyType: probeRound.codingKeyType ?? failure.codingKeyType)
                    guard let key = probeRound.keys.last, (trial[key] ?? 0) + 1 < ProbeValues.choiceCount else { break }
                    trial[key] = (trial[key] ?? 0) + 1
                }
            }
        }
        return .failure(failure)
    }

    private static func resolve<Root, Value>(_ keyPath: KeyPath<Root, Value>, _ probe: Probe<Root>) throws -> String {
        func refuse(_ reason: String) -> KeyPathColumnError {
            KeyPathColumnError(recordType: "\(Root.self)", keyPath: describeKeyPath(keyPath), reason: reason)
        }
        // A key path into a struct that has no offset is a computed property,
        // or a property wrapper's wrapped value.
        // (Optional chaining through stored properties, `\.billing?.city`,
        // has no offset either, but prints no computed component: it is
        // resolved from the probe values like any stored property.)
        let description = describeKeyPath(keyPath)
        if !(Root.self is AnyClass), MemoryLayout<Root>.offset(of: keyPath) == nil,
            !description.contains("?.") || description.contains("<computed")
        {
            if let column = wrappedPropertyColumn(keyPath, probe) { return column }
            throw refuse("it is a computed property")
        }
        let valueType = unwrappedType(Value.self)
        if let offsets = probe.offsets {
            return try resolveFromLayout(keyPath, probe, offsets: offsets, refuse: refuse)
        }
        let observed = probe.rounds.map { ProbeValues.fingerprint($0.record[keyPath: keyPath]) }
        let candidates = probe.keys.indices.filter { index in
            probe.types[index] == valueType
                && probe.rounds.indices.allSatisfy { probe.rounds[$0].fingerprints[probe.keys[index]] == observed[$0] }
        }
        switch candidates.count {
        case 1:
            return probe.columns[candidates[0]]
        case 0:
            if valueType is any ColumnGroup.Type {
                throw refuse(
                    "it is a column group (\(valueType)), stored in one column per member; "
                        + "use a key path to one of its members, such as \(describeKeyPath(keyPath)).<member>")
            }
            throw refuse(
                "no coding key fills it (a property outside CodingKeys, a path into a nested value stored as JSON, "
                    + "or a value computed in init(from:)); use Column(\"name\") for a column by name")
        default:
            let names = candidates.map { "\"\(probe.columns[$0])\"" }.joined(separator: ", ")
            throw refuse("it matches several columns (\(names)): their values cannot be told apart")
        }
    }
}

/// The key path as Swift prints it, with the address of computed components
/// replaced by their type: `\Player.<computed property of type String>`.
func describeKeyPath(_ keyPath: AnyKeyPath) -> String {
    var text = "\(keyPath)"
    // The type may hold angle brackets itself (`Optional<String>`): it ends at ")>".
    while let start = text.range(of: "<computed 0x"), let typeStart = text[start.upperBound...].firstIndex(of: "("),
        let end = text[typeStart...].range(of: ")>")
    {
        let type = text[text.index(after: typeStart)..<end.lowerBound]
        text.replaceSubrange(start.lowerBound..<end.upperBound, with: "<computed property of type \(type)>")
    }
    return text
}

/// The wrapped type of an optional type, or the type itself.
func unwrappedType(_ type: Any.Type) -> Any.Type {
    (type as? any OptionalTypeMarker.Type)?.wrappedType ?? type
}

private protocol OptionalTypeMarker {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalTypeMarker {
    fileprivate static var wrappedType: Any.Type { unwrappedType(Wrapped.self) }
}
