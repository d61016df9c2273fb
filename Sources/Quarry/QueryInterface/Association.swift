// Association: a link from the records of one table to the records of
// another — belongsTo, hasOne, hasMany, hasMany(through:) — declared once on
// the record type and used to join, filter and eager-load.

/// A link from `Origin` records to `Destination` records.
///
/// Declare associations as static properties of the record type:
///
/// ```swift
/// extension Player {
///     static let team = belongsTo(Team.self, using: \.teamID)   // player.team_id → team.id
/// }
/// extension Team {
///     static let players = hasMany(Player.self, using: \.teamID)
/// }
/// ```
///
/// Then join or eager-load them in requests:
///
/// ```swift
/// Player.joining(required: Player.team.filter(\.name == "Reds"))
/// // SELECT "player".* FROM "player" JOIN "team" ON "team"."id" = "player"."team_id" AND ("team"."name" = ?)
/// Team.including(all: Team.players).asRequest(of: TeamWithPlayers.self)   // one extra query, not one per team
/// ```
///
/// Without `using:`, the foreign key declared in the schema links the two
/// tables; naming the column is needed when the schema declares none, or
/// several.
public struct Association<Origin, Destination>: Sendable {
    /// Whether the association leads to one record or to many.
    enum Cardinality: Sendable {
        case toOne
        case toMany
    }

    let cardinality: Cardinality

    /// The key of the association: the default table alias in SQL, and the
    /// coding key its records are decoded under.
    public private(set) var key: String

    /// The steps from the origin table to the destination table: one for a
    /// direct association, more for `hasMany(through:)`. The last step is the
    /// destination.
    var steps: [AssociationStep]

    init(cardinality: Cardinality, key: String, steps: [AssociationStep]) {
        self.cardinality = cardinality
        self.key = key
        self.steps = steps
    }

    private func modifyingDestination(_ change: (inout AssociationStep) -> Void) -> Association {
        var association = self
        if !association.steps.isEmpty { change(&association.steps[association.steps.count - 1]) }
        return association
    }

    /// Keeps the destination records that match `predicate`.
    public func filter(_ predicate: QueryExpression<Destination, Bool>) -> Association {
        modifyingDestination { step in
            step.filter = step.filter.map { SQLExpression(.infix("AND", $0, predicate.sqlExpression)) } ?? predicate.sqlExpression
        }
    }

    /// Keeps the destination records that match the predicate built from
    /// their columns, given as a trailing closure
    /// (`Author.books.filter { $0.year > 2000 }`): see ``QueryRequest/filter(where:)``.
    public func filter(where predicate: (TableColumns<Destination>) -> QueryExpression<Destination, Bool>) -> Association
    where Destination: Decodable {
        filter(predicate(TableColumns()))
    }

    /// Keeps the destination records that match the predicate built from
    /// their columns, for a closure written in parentheses: see ``filter(where:)``.
    @_disfavoredOverload
    public func filter(_ predicate: (TableColumns<Destination>) -> QueryExpression<Destination, Bool>) -> Association
    where Destination: Decodable {
        filter(where: predicate)
    }

    /// Orders the destination records (appended to the request's ordering,
    /// and used for `including(all:)`).
    public func order(_ orderings: QueryOrdering<Destination>...) -> Association {
        modifyingDestination { $0.ordering = orderings.map(\.ordering) }
    }

    /// Orders the destination records by a column, ascending.
    public func order<Value>(_ keyPath: KeyPath<Destination, Value>) -> Association where Destination: Decodable {
        modifyingDestination { $0.ordering = [QueryOrdering<Destination>.asc(keyPath).ordering] }
    }

    /// The same association under another key (for two associations to the
    /// same table, or to match a property name).
    public func forKey(_ key: String) -> Association {
        var association = self
        association.key = key
        return association
    }

    /// Names this occurrence of the destination table, so that expressions
    /// elsewhere in the request can refer to its columns (`alias[\Team.name]`).
    public func aliased(_ alias: TableAlias) -> Association {
        modifyingDestination { $0.alias = alias }
    }

    /// Joins another association from the destination, without selecting its columns.
    public func joining<Other>(required association: Association<Destination, Other>) -> Association {
        nesting(association, kind: .inner, selected: false)
    }

    /// Left-joins another association from the destination, without selecting its columns.
    public func joining<Other>(optional association: Association<Destination, Other>) -> Association {
        nesting(association, kind: .left, selected: false)
    }

    /// Joins another association from the destination and selects its columns.
    public func including<Other>(required association: Association<Destination, Other>) -> Association {
        nesting(association, kind: .inner, selected: true)
    }

    /// Left-joins another association from the destination and selects its columns.
    public func including<Other>(optional association: Association<Destination, Other>) -> Association {
        nesting(association, kind: .left, selected: true)
    }

    private func nesting<Other>(_ association: Association<Destination, Other>, kind: SQLJoin.Kind, selected: Bool) -> Association {
        modifyingDestination { $0.nested.append(association.makeJoin(kind: kind, selected: selected)) }
    }

    /// The join that brings the destination into a request.
    func makeJoin(kind: SQLJoin.Kind, selected: Bool) -> SQLJoin {
        var join: SQLJoin?
        for (index, step) in steps.enumerated().reversed() {
            let isDestination = index == steps.count - 1
            var current = SQLJoin(
                kind: kind, tableName: step.tableName, key: isDestination ? key : step.key,
                alias: step.alias ?? TableAlias(), condition: step.condition, filter: step.filter,
                ordering: step.ordering, isSelected: isDestination && selected, joins: step.nested)
            if let inner = join { current.joins.append(inner) }
            join = current
        }
        return join ?? SQLJoin(
            kind: kind, tableName: "", key: key, alias: TableAlias(),
            condition: .columns([]), filter: SQLExpression(.invalid(DatabaseError.misuse("an association has no table"))), isSelected: false)
    }
}

/// One table along an association's path.
struct AssociationStep: Sendable {
    var tableName: String
    var key: String
    /// How this table's rows match the previous table's (the origin for the first step).
    var condition: SQLJoinCondition
    var filter: SQLExpression?
    var ordering: [SQLOrdering] = []
    var alias: TableAlias?
    var nested: [SQLJoin] = []
}

// MARK: - Declaring associations

extension TableRecord {
    /// An association to the record this one refers to with a foreign key
    /// column: `player.team_id → team.id`.
    ///
    /// - parameters:
    ///   - destination: the referenced record type.
    ///   - key: the association key; default: the destination table name,
    ///     first letter lowercased (`Team` → `team`).
    ///   - foreignKey: the foreign key column of `Self`. Default: the foreign
    ///     key declared in the schema from `Self`'s table to the destination's.
    public static func belongsTo<Destination: TableRecord, Value>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: KeyPath<Self, Value>
    ) -> Association<Self, Destination> where Self: Decodable {
        let table = Destination.databaseTableName
        let defaultKey = associationKey(table)
        return Association(cardinality: .toOne, key: key ?? defaultKey, steps: [AssociationStep(
            tableName: table, key: key ?? defaultKey, condition: foreignKeyCondition(foreignKey, childHoldsForeignKey: false))])
    }

    /// An association to the record this one refers to, through the foreign
    /// key the schema declares.
    public static func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil
    ) -> Association<Self, Destination> {
        belongsTo(destination, key: key, foreignKeyColumns: nil)
    }

    /// An association to the record this one refers to, by foreign key column names.
    public static func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, foreignKeyColumns: [String]?
    ) -> Association<Self, Destination> {
        let table = Destination.databaseTableName
        let defaultKey = associationKey(table)
        return Association(cardinality: .toOne, key: key ?? defaultKey, steps: [AssociationStep(
            tableName: table, key: key ?? defaultKey,
            condition: .foreignKey(childHoldsForeignKey: false, foreignKeyColumns: foreignKeyColumns))])
    }

    /// An association to the records that refer to this one with a foreign
    /// key column: `team.id ← player.team_id`.
    ///
    /// - parameters:
    ///   - destination: the record type of the rows that refer to this one.
    ///   - key: the association key; default: the destination table name in
    ///     the plural, first letter lowercased (`player` → `players`,
    ///     `Category` → `categories`).
    ///   - foreignKey: the foreign key column of the destination. Default:
    ///     the foreign key declared in the schema.
    public static func hasMany<Destination: TableRecord & Decodable, Value>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: KeyPath<Destination, Value>
    ) -> Association<Self, Destination> {
        referring(destination, cardinality: .toMany, key: key, condition: foreignKeyCondition(foreignKey, childHoldsForeignKey: true))
    }

    /// An association to the records that refer to this one through the
    /// foreign key the schema declares.
    public static func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil
    ) -> Association<Self, Destination> {
        referring(destination, cardinality: .toMany, key: key, condition: .foreignKey(childHoldsForeignKey: true, foreignKeyColumns: nil))
    }

    /// An association to the one record that refers to this one with a
    /// foreign key column (a one-to-one link).
    public static func hasOne<Destination: TableRecord & Decodable, Value>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: KeyPath<Destination, Value>
    ) -> Association<Self, Destination> {
        referring(destination, cardinality: .toOne, key: key, condition: foreignKeyCondition(foreignKey, childHoldsForeignKey: true))
    }

    /// An association to the one record that refers to this one through the
    /// foreign key the schema declares.
    public static func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil
    ) -> Association<Self, Destination> {
        referring(destination, cardinality: .toOne, key: key, condition: .foreignKey(childHoldsForeignKey: true, foreignKeyColumns: nil))
    }

    /// An association that goes through another association:
    ///
    /// ```swift
    /// extension Playlist {
    ///     static let playlistTracks = hasMany(PlaylistTrack.self, using: \.playlistID)
    ///     static let tracks = hasMany(Track.self, through: playlistTracks, using: PlaylistTrack.track)
    /// }
    /// ```
    public static func hasMany<Pivot, Destination: TableRecord>(
        _ destination: Destination.Type, through pivot: Association<Self, Pivot>,
        using target: Association<Pivot, Destination>, key: String? = nil
    ) -> Association<Self, Destination> {
        let table = Destination.databaseTableName
        return Association(
            cardinality: .toMany, key: key ?? pluralized(associationKey(table)), steps: pivot.steps + target.steps)
    }

    private static func referring<Destination: TableRecord>(
        _ destination: Destination.Type, cardinality: Association<Self, Destination>.Cardinality,
        key: String?, condition: SQLJoinCondition
    ) -> Association<Self, Destination> {
        let table = Destination.databaseTableName
        let defaultKey = cardinality == .toMany ? pluralized(associationKey(table)) : associationKey(table)
        return Association(cardinality: cardinality, key: key ?? defaultKey, steps: [AssociationStep(
            tableName: table, key: key ?? defaultKey, condition: condition)])
    }
}

/// The join condition of a foreign key named by a key path, or an invalid
/// condition that makes SQL generation throw the resolution error.
func foreignKeyCondition<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>, childHoldsForeignKey: Bool) -> SQLJoinCondition {
    do {
        return .foreignKey(childHoldsForeignKey: childHoldsForeignKey, foreignKeyColumns: [try RecordColumns.columnName(for: keyPath)])
    } catch {
        return .invalid(error)
    }
}

/// The default key of an association to `table`: the table name with its
/// first letter lowercased, as Swift property names are (`Album` → `album`,
/// `InvoiceLine` → `invoiceLine`; `player` stays `player`).
func associationKey(_ table: String) -> String {
    guard let first = table.first else { return table }
    return first.lowercased() + table.dropFirst()
}

/// A simple English plural for default association keys: `player` →
/// `players`, `category` → `categories`, `box` → `boxes`.
func pluralized(_ name: String) -> String {
    let lower = name.lowercased()
    if lower.hasSuffix("y"), let beforeY = lower.dropLast().last, !"aeiou".contains(beforeY) {
        return String(name.dropLast()) + "ies"
    }
    if ["s", "x", "z", "ch", "sh"].contains(where: lower.hasSuffix) {
        return name + "es"
    }
    return name + "s"
}
