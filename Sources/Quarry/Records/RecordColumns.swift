// RecordColumns: maps a key path of a Decodable record to the column its
// coding key names — with no macro and no list of columns written by hand.
//
// The mapping is learned once per record type with KeyPathProbeDecoder, then
// cached (thread-safe). A key path that does not name exactly one column — a
// computed property, a path into a nested JSON value, a property no coding key
// fills — is refused with an error that says why.

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
        /// Resolved key paths. Guarded by `RecordColumns.lock`.
        var resolved: [AnyKeyPath: String] = [:]

        init(
            keys: [String], columns: [String], types: [Any.Type], rounds: [(record: Root, fingerprints: [String: String])],
            wrappedType: Any.Type? = nil
        ) {
            self.keys = keys
            self.columns = columns
            self.types = types
            self.rounds = rounds
            self.wrappedType = wrappedType
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var probes: [ObjectIdentifier: Any] = [:]

    /// The column that `keyPath` names.
    static func columnName<Root: Decodable, Value>(for keyPath: KeyPath<Root, Value>) throws -> String {
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
        var rounds: [(record: Root, fingerprints: [String: String])] = []
        var wrappedType: Any.Type?
        var roundCount = 1
        var round = 0
        while round < roundCount {
            let probeRound = ProbeRound(round: round, keys: keys, types: types)
            let record: Root
            do {
                record = try Root(from: KeyPathProbeDecoder(round: probeRound))
            } catch {
                let key = probeRound.keys.last.map { " (at the coding key \"\($0)\")" } ?? ""
                throw KeyPathColumnError(
                    recordType: "\(Root.self)", keyPath: "\\\(Root.self)",
                    reason: "Quarry could not decode the record from probe values\(key): \(error). "
                        + "Make enumerations used as properties CaseIterable, or name columns with Column(\"name\")")
            }
            keys = probeRound.keys
            types = probeRound.types
            wrappedType = wrappedType ?? probeRound.wrappedType
            rounds.append((record, probeRound.fingerprints))
            if round == 0 {
                // Enough rounds for every key index + 1 to have a distinct bit pattern.
                roundCount = max(1, (keys.count + 1).bitWidth - (keys.count + 1).leadingZeroBitCount)
            }
            round += 1
        }
        let naming = (wrappedType as? any FetchableRecord.Type)?.databaseColumnDecodingStrategy
            ?? (Root.self as? any FetchableRecord.Type)?.databaseColumnDecodingStrategy ?? .useCodingKeys
        return Probe(
            keys: keys, columns: keys.map { naming.columnName(for: $0) }, types: types, rounds: rounds, wrappedType: wrappedType)
    }

    private static func resolve<Root, Value>(_ keyPath: KeyPath<Root, Value>, _ probe: Probe<Root>) throws -> String {
        func refuse(_ reason: String) -> KeyPathColumnError {
            KeyPathColumnError(recordType: "\(Root.self)", keyPath: describe(keyPath), reason: reason)
        }
        // A key path into a struct that has no offset is a computed property.
        if !(Root.self is AnyClass), MemoryLayout<Root>.offset(of: keyPath) == nil {
            throw refuse("it is a computed property")
        }
        let valueType = unwrappedType(Value.self)
        let observed = probe.rounds.map { ProbeValues.fingerprint($0.record[keyPath: keyPath]) }
        let candidates = probe.keys.indices.filter { index in
            probe.types[index] == valueType
                && probe.rounds.indices.allSatisfy { probe.rounds[$0].fingerprints[probe.keys[index]] == observed[$0] }
        }
        switch candidates.count {
        case 1:
            return probe.columns[candidates[0]]
        case 0:
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
private func describe(_ keyPath: AnyKeyPath) -> String {
    var text = "\(keyPath)"
    while let start = text.range(of: "<computed 0x"), let typeStart = text[start.upperBound...].firstIndex(of: "("),
        let end = text[typeStart...].firstIndex(of: ">")
    {
        let type = text[text.index(after: typeStart)..<end].dropLast()
        text.replaceSubrange(start.lowerBound...end, with: "<computed property of type \(type)>")
    }
    return text
}

/// The wrapped type of an optional type, or the type itself.
private func unwrappedType(_ type: Any.Type) -> Any.Type {
    (type as? any OptionalTypeMarker.Type)?.wrappedType ?? type
}

private protocol OptionalTypeMarker {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalTypeMarker {
    fileprivate static var wrappedType: Any.Type { unwrappedType(Wrapped.self) }
}
