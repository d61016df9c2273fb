// ViewOptions: the options of CREATE VIEW (https://www.sqlite.org/lang_createview.html).

/// Options of `Database.create(view:options:columns:as:)` and
/// `Database.create(view:options:columns:asLiteral:)`.
///
/// ```swift
/// try db.create(view: "topPlayer", options: [.ifNotExists, .temporary], as: Player.filter(\.score >= 100))
/// // CREATE TEMPORARY VIEW IF NOT EXISTS "topPlayer" AS SELECT * FROM "player" WHERE "score" >= 100
/// ```
public struct ViewOptions: OptionSet, Sendable {
    /// The bits of the options.
    public let rawValue: Int

    /// Options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: does nothing if a view of that name exists (its
    /// definition is not compared).
    public static let ifNotExists = ViewOptions(rawValue: 1 << 0)

    /// `TEMPORARY`: the view lives in the connection's temp schema and
    /// disappears when the connection closes.
    public static let temporary = ViewOptions(rawValue: 1 << 1)
}
