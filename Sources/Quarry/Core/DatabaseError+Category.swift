// DatabaseError.Category: what an error means, whatever backend reported it.
// Each backend classifies its own errors when it makes them: SQLite's from
// their result code (below), PostgreSQL's from their SQLSTATE (in
// QuarryPostgres). Shared code asks the category, never the code.

extension DatabaseError {
    /// What a ``DatabaseError`` means, whatever the backend that reported it
    /// (``DatabaseError/categories``).
    ///
    /// ```swift
    /// catch let error as DatabaseError where error.categories.contains(.uniqueConstraintViolation) {
    ///     // The email is taken, on SQLite and on PostgreSQL.
    /// }
    /// ```
    ///
    /// An open set: a backend may add categories of its own. The helpers of
    /// ``DatabaseError`` (``DatabaseError/isUniqueConstraintViolation``,
    /// ``DatabaseError/isBusy``…) each read one.
    public struct Category: Hashable, Sendable, CustomStringConvertible {
        /// The category's name, such as `"unique constraint violation"`.
        public let name: String

        /// A category named `name`.
        public init(_ name: String) { self.name = name }

        /// The category's name.
        public var description: String { name }

        /// Any constraint violation (``DatabaseError/isConstraintViolation``).
        public static let constraintViolation = Category("constraint violation")
        /// A `UNIQUE` or primary key violation (``DatabaseError/isUniqueConstraintViolation``).
        public static let uniqueConstraintViolation = Category("unique constraint violation")
        /// A foreign key violation (``DatabaseError/isForeignKeyViolation``).
        public static let foreignKeyViolation = Category("foreign key violation")
        /// A `NOT NULL` violation (``DatabaseError/isNotNullConstraintViolation``).
        public static let notNullConstraintViolation = Category("not null constraint violation")
        /// A `CHECK` violation (``DatabaseError/isCheckConstraintViolation``).
        public static let checkConstraintViolation = Category("check constraint violation")
        /// A lock held too long, a deadlock or a serialization failure
        /// (``DatabaseError/isBusy``): retrying later may succeed.
        public static let busy = Category("busy")
        /// A write refused by a read-only connection, file or transaction
        /// (``DatabaseError/isReadOnly``).
        public static let readOnly = Category("read-only")
        /// The database could not grow (``DatabaseError/isDiskFull``).
        public static let diskFull = Category("disk full")
        /// A damaged database file (``DatabaseError/isCorrupt``).
        public static let corrupt = Category("corrupt")
        /// The operating system failed to read or write the database's
        /// files (``DatabaseError/isIOError``).
        public static let ioError = Category("I/O error")
        /// A misuse of the API (``DatabaseError/isMisuse``).
        public static let misuse = Category("misuse")
        /// A statement stopped by an interruption, a cancellation or a
        /// statement timeout.
        public static let interrupted = Category("interrupted")
        /// The connection to a database server failed or was lost
        /// (``DatabaseError/isConnectionError``).
        public static let connectionLost = Category("connection lost")
        /// A statement refused before it was sent, because its connection was
        /// already known closed: it did not run.
        public static let notSent = Category("not sent")
        /// Nobody can tell whether a commit happened
        /// (``DatabaseError/isCommitOutcomeUnknown``).
        public static let commitOutcomeUnknown = Category("commit outcome unknown")
        /// A `COMMIT` that the server answered by rolling the transaction
        /// back, because a statement failed in it.
        public static let commitAnsweredWithRollback = Category("commit answered with rollback")
        /// A value of the wrong type for its column or parameter.
        public static let typeMismatch = Category("type mismatch")
        /// The database could not be opened or connected to.
        public static let cannotOpen = Category("cannot open")
    }

    /// SQLite's classification of its extended result codes, then of their
    /// primary code.
    private static let sqliteExtendedCategories: [ResultCode: Category] = [
        .SQLITE_CONSTRAINT_UNIQUE: .uniqueConstraintViolation, .SQLITE_CONSTRAINT_PRIMARYKEY: .uniqueConstraintViolation,
        .SQLITE_CONSTRAINT_FOREIGNKEY: .foreignKeyViolation, .SQLITE_CONSTRAINT_NOTNULL: .notNullConstraintViolation,
        .SQLITE_CONSTRAINT_CHECK: .checkConstraintViolation,
    ]
    private static let sqlitePrimaryCategories: [ResultCode: Category] = [
        .SQLITE_CONSTRAINT: .constraintViolation, .SQLITE_BUSY: .busy, .SQLITE_READONLY: .readOnly,
        .SQLITE_FULL: .diskFull, .SQLITE_CORRUPT: .corrupt, .SQLITE_NOTADB: .corrupt, .SQLITE_IOERR: .ioError,
        .SQLITE_MISUSE: .misuse, .SQLITE_INTERRUPT: .interrupted, .SQLITE_MISMATCH: .typeMismatch,
        .SQLITE_CANTOPEN: .cannotOpen,
    ]

    /// SQLite's classification of its result codes.
    static func categories(forResultCode code: ResultCode) -> Set<Category> {
        Set([sqliteExtendedCategories[code], sqlitePrimaryCategories[code.primaryResultCode]].compactMap { $0 })
    }
}
