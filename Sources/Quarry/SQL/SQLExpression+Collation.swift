// SQLExpression+Collation: a collation applied to a condition, pushed down to
// the values the condition compares.
//
// `("name" = ?) COLLATE "NOCASE"` would collate the 0/1 result of the
// comparison, and the comparison itself would stay case-sensitive. SQLite
// uses the collation of the left operand of a comparison, IN or BETWEEN
// (<https://www.sqlite.org/datatype3.html#collation>), so the collation goes
// there: `"name" COLLATE "NOCASE" = ?`. A condition it cannot reach that way
// (LIKE, GLOB, a function call, raw SQL) is refused with an error rather than
// ignored.

extension SQLExpression {
    /// The condition with `collation` applied to every comparison it makes.
    ///
    /// A chain of one operator (`a AND b AND c …`, built by a loop) is walked
    /// without recursion, so that a long chain does not recurse once per
    /// condition.
    func collatingComparisons(_ collation: String) -> SQLExpression {
        switch node {
        case .infix(let op, _, _) where op == "AND" || op == "OR":
            let collated = chainOperands(op).map { $0.collatingComparisons(collation) }
            return collated.dropFirst().reduce(collated[0]) { SQLExpression(.infix(op, $0, $1)) }
        case .prefix(let op, let x) where op == "NOT ":
            return SQLExpression(.prefix(op, x.collatingComparisons(collation)))
        case .infix(let op, let x, let y) where Self.comparisonOperators.contains(op):
            guard let collated = x.collated(collation) else { return refusal(collation, "a comparison of a function's result") }
            return SQLExpression(.infix(op, collated, y))
        case .inList(let x, let list, let negated):
            guard let collated = x.collated(collation) else { return refusal(collation, "IN on a function's result") }
            return SQLExpression(.inList(collated, list, negated: negated))
        case .inSubquery(let x, let query, let negated):
            guard let collated = x.collated(collation) else { return refusal(collation, "IN on a function's result") }
            return SQLExpression(.inSubquery(collated, query, negated: negated))
        case .between(let x, let low, let high, let negated):
            guard let collated = x.collated(collation) else { return refusal(collation, "BETWEEN on a function's result") }
            return SQLExpression(.between(collated, low, high, negated: negated))
        case .postfix:
            // IS NULL and IS NOT NULL: no collation is involved.
            return self
        case .invalid:
            return self
        case .match(let op, _, _, _, _):
            return refusal(collation, "\(op) (LIKE and GLOB ignore collations)")
        default:
            return refusal(collation, "this condition")
        }
    }

    private static let comparisonOperators: Set<String> = ["=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"]

    /// The operand with the collation, or nil when it is a function call:
    /// the text methods (hasPrefix, contains…) compare the integer results of
    /// instr() or bytes, which a collation would not change.
    private func collated(_ collation: String) -> SQLExpression? {
        switch node {
        case .function, .countAll: return nil
        case .collate(let x, _): return SQLExpression(.collate(x, collation))
        default: return SQLExpression(.collate(self, collation))
        }
    }

    private func refusal(_ collation: String, _ what: String) -> SQLExpression {
        SQLExpression(.invalid(DatabaseError.misuse(
            "collating(\(collation)) on a condition applies to the compared value of =, <>, <, <=, >, >=, IN and BETWEEN "
                + "(and to conditions joined with AND, OR, NOT); it cannot apply to \(what): collate the column instead, "
                + "as in `$0.name.collating(.nocase) == \"arthur\"`")))
    }
}

// MARK: - Text matching under a collation

extension SQLExpression {
    /// What `hasPrefix`, `hasSuffix` and `contains` look for.
    enum TextMatch {
        case prefix, suffix, substring
    }

    /// `hasPrefix`, `hasSuffix` or `contains` on a collated text
    /// (`$0.name.collating(.nocase).hasPrefix("a")`). GLOB, LIKE and instr(),
    /// which the methods use otherwise, ignore collations, so the collation
    /// compares the text's first or last characters with the pattern instead
    /// (the pattern is bound twice):
    ///
    /// - prefix: `substr(x, 1, length(CAST(? AS TEXT))) COLLATE c = ?`
    /// - suffix: `substr(x, length(x) - length(CAST(? AS TEXT)) + 1) COLLATE c = ?`
    ///   (a start before the text reads it whole, on SQLite and PostgreSQL)
    /// - substring, NOCASE only: `instr(lower(x), lower(CAST(? AS TEXT))) > 0`
    ///
    /// A NUL character in the pattern, which SQLite's `length` stops at, and
    /// a substring under another collation than NOCASE are refused with an
    /// error rather than matched the wrong way.
    static func collatedTextMatch(_ match: TextMatch, _ text: SQLExpression, _ collation: String, _ pattern: String) -> SQLExpression {
        guard !pattern.utf8.contains(0) else {
            return SQLExpression(.invalid(DatabaseError.misuse(
                "a text match under collating(\(collation)) cannot contain a NUL character: SQLite counts characters up to it")))
        }
        let patternText = SQLExpression(.function("CAST", [SQLExpression(.postfix(.value(.text(pattern)), "AS TEXT"))], distinct: false))
        let patternLength = SQLExpression(.function("length", [patternText], distinct: false))
        switch match {
        case .prefix:
            let head = SQLExpression(.function("substr", [text, .value(.integer(1)), patternLength], distinct: false))
            return SQLExpression(.infix("=", SQLExpression(.collate(head, collation)), .value(.text(pattern))))
        case .suffix:
            let textLength = SQLExpression(.function("length", [text], distinct: false))
            let start = SQLExpression(.infix("+", SQLExpression(.infix("-", textLength, patternLength)), .value(.integer(1))))
            let tail = SQLExpression(.function("substr", [text, start], distinct: false))
            return SQLExpression(.infix("=", SQLExpression(.collate(tail, collation)), .value(.text(pattern))))
        case .substring:
            guard collation.uppercased() == "NOCASE" else {
                return SQLExpression(.invalid(DatabaseError.misuse(
                    "contains(_:) under collating(\(collation)): SQL cannot search text with a collation "
                        + "(instr, LIKE and GLOB ignore collations); only NOCASE is supported, as lower() on both sides")))
            }
            let position = SQLExpression(.function(
                "instr",
                [SQLExpression(.function("lower", [text], distinct: false)), SQLExpression(.function("lower", [patternText], distinct: false))],
                distinct: false))
            return SQLExpression(.infix(">", position, .value(.integer(0))))
        }
    }
}
