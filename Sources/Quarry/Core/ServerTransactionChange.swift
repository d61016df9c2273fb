// ServerTransactionChange: how a statement sent to a database server changes
// the transaction state of its session, read from the statement's leading
// keywords.
//
// PostgresNIO keeps the server's own transaction status (the `ReadyForQuery`
// message) to itself, so ServerConnection follows the state from the
// statements it sends. The keywords are read the way the server reads them:
// white space and comments (`-- …` to the end of the line, `/* … */`, nested)
// may stand before and between them, so `/* note */ BEGIN` begins a
// transaction as surely as `BEGIN` does. What the keywords cannot tell (a
// procedure that commits, say) is covered by ServerConnection's rollback on
// release after raw SQL ran outside Quarry's own transactions.

/// How a statement changes the transaction state of a server connection
/// (<https://www.postgresql.org/docs/15/sql-commands.html>: `BEGIN`,
/// `START TRANSACTION`, `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`, `COMMIT`,
/// `END`, `ROLLBACK`, `ABORT`, their `AND CHAIN` forms, `PREPARE TRANSACTION`).
enum ServerTransactionChange: Equatable {
    /// `BEGIN`, `START TRANSACTION`: a transaction opens.
    case begin
    /// `SAVEPOINT name`.
    case savepoint
    /// `RELEASE [SAVEPOINT] name`.
    case release
    /// `ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name`: the transaction
    /// stays open, and works again if it failed after the savepoint.
    case rollbackToSavepoint
    /// `COMMIT`, `END`: the transaction ends, committed, or rolled back when
    /// a statement of it failed (the server then answers `ROLLBACK`).
    case commit
    /// `ROLLBACK`, `ABORT`: the transaction ends, rolled back.
    case rollback
    /// `COMMIT AND CHAIN`, `END AND CHAIN`: commits (or rolls back, as
    /// `COMMIT` does) and opens a new transaction at once.
    case commitAndChain
    /// `ROLLBACK AND CHAIN`, `ABORT AND CHAIN`: rolls back and opens a new
    /// transaction at once.
    case rollbackAndChain
    /// `PREPARE TRANSACTION 'id'`: the session leaves the transaction, which
    /// lives on on the server, prepared for a two-phase commit.
    case prepareTransaction
    /// Anything else, `COMMIT PREPARED` and `ROLLBACK PREPARED` included
    /// (they end a prepared transaction, not the session's).
    case none

    init(_ sql: String) {
        let words = SQLScanner.leadingKeywords(sql, count: 5)
        guard let first = words.first else {
            self = .none
            return
        }
        let rest = words.dropFirst()
        // `AND CHAIN`, not `AND NO CHAIN`: `COMMIT [WORK | TRANSACTION] AND CHAIN`.
        let chains = zip(words, words.dropFirst()).contains { $0 == "AND" && $1 == "CHAIN" }
        switch first {
        case "BEGIN": self = .begin
        case "START": self = rest.first == "TRANSACTION" ? .begin : .none
        case "SAVEPOINT": self = .savepoint
        case "RELEASE": self = .release
        case "PREPARE": self = rest.first == "TRANSACTION" ? .prepareTransaction : .none
        case "COMMIT", "END":
            if rest.first == "PREPARED" { self = .none } else { self = chains ? .commitAndChain : .commit }
        case "ROLLBACK", "ABORT":
            if rest.first == "PREPARED" {
                self = .none
            } else if rest.contains("TO") {
                self = .rollbackToSavepoint
            } else {
                self = chains ? .rollbackAndChain : .rollback
            }
        default: self = .none
        }
    }

    /// Whether the session's transaction ends (a chained one opens again).
    var endsTransaction: Bool {
        switch self {
        case .commit, .rollback, .commitAndChain, .rollbackAndChain, .prepareTransaction: return true
        case .begin, .savepoint, .release, .rollbackToSavepoint, .none: return false
        }
    }

    /// Whether the statement asks the server to commit (it may roll back instead).
    var commits: Bool { self == .commit || self == .commitAndChain }
}
