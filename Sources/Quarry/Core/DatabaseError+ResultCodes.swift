// DatabaseError+ResultCodes: pattern matching of errors by result code, in
// `catch` clauses, as GRDB spells it:
//
//     do { try player.insert(db) }
//     catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE { … }   // that extended code
//     catch ResultCode.SQLITE_BUSY { … }                   // a primary code: any of its extended codes
//
// The `isUniqueConstraintViolation`-style properties of DatabaseError stay
// the readable alternative.

extension ResultCode {
    /// Matches a ``DatabaseError`` whose extended result code is `pattern`,
    /// or, when `pattern` is a primary code, one of its extended codes. Other
    /// errors never match.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return pattern ~= error.extendedResultCode
    }
}

/// The result codes, under `DatabaseError` too, for `catch` clauses:
/// `catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE`.
extension DatabaseError {
    /// ``ResultCode/SQLITE_OK``, for `catch DatabaseError.SQLITE_OK`.
    public static let SQLITE_OK = ResultCode.SQLITE_OK
    /// ``ResultCode/SQLITE_ERROR``, for `catch DatabaseError.SQLITE_ERROR`.
    public static let SQLITE_ERROR = ResultCode.SQLITE_ERROR
    /// ``ResultCode/SQLITE_INTERNAL``, for `catch DatabaseError.SQLITE_INTERNAL`.
    public static let SQLITE_INTERNAL = ResultCode.SQLITE_INTERNAL
    /// ``ResultCode/SQLITE_PERM``, for `catch DatabaseError.SQLITE_PERM`.
    public static let SQLITE_PERM = ResultCode.SQLITE_PERM
    /// ``ResultCode/SQLITE_ABORT``, for `catch DatabaseError.SQLITE_ABORT`.
    public static let SQLITE_ABORT = ResultCode.SQLITE_ABORT
    /// ``ResultCode/SQLITE_BUSY``, for `catch DatabaseError.SQLITE_BUSY`.
    public static let SQLITE_BUSY = ResultCode.SQLITE_BUSY
    /// ``ResultCode/SQLITE_LOCKED``, for `catch DatabaseError.SQLITE_LOCKED`.
    public static let SQLITE_LOCKED = ResultCode.SQLITE_LOCKED
    /// ``ResultCode/SQLITE_NOMEM``, for `catch DatabaseError.SQLITE_NOMEM`.
    public static let SQLITE_NOMEM = ResultCode.SQLITE_NOMEM
    /// ``ResultCode/SQLITE_READONLY``, for `catch DatabaseError.SQLITE_READONLY`.
    public static let SQLITE_READONLY = ResultCode.SQLITE_READONLY
    /// ``ResultCode/SQLITE_INTERRUPT``, for `catch DatabaseError.SQLITE_INTERRUPT`.
    public static let SQLITE_INTERRUPT = ResultCode.SQLITE_INTERRUPT
    /// ``ResultCode/SQLITE_IOERR``, for `catch DatabaseError.SQLITE_IOERR`.
    public static let SQLITE_IOERR = ResultCode.SQLITE_IOERR
    /// ``ResultCode/SQLITE_CORRUPT``, for `catch DatabaseError.SQLITE_CORRUPT`.
    public static let SQLITE_CORRUPT = ResultCode.SQLITE_CORRUPT
    /// ``ResultCode/SQLITE_NOTFOUND``, for `catch DatabaseError.SQLITE_NOTFOUND`.
    public static let SQLITE_NOTFOUND = ResultCode.SQLITE_NOTFOUND
    /// ``ResultCode/SQLITE_FULL``, for `catch DatabaseError.SQLITE_FULL`.
    public static let SQLITE_FULL = ResultCode.SQLITE_FULL
    /// ``ResultCode/SQLITE_CANTOPEN``, for `catch DatabaseError.SQLITE_CANTOPEN`.
    public static let SQLITE_CANTOPEN = ResultCode.SQLITE_CANTOPEN
    /// ``ResultCode/SQLITE_PROTOCOL``, for `catch DatabaseError.SQLITE_PROTOCOL`.
    public static let SQLITE_PROTOCOL = ResultCode.SQLITE_PROTOCOL
    /// ``ResultCode/SQLITE_EMPTY``, for `catch DatabaseError.SQLITE_EMPTY`.
    public static let SQLITE_EMPTY = ResultCode.SQLITE_EMPTY
    /// ``ResultCode/SQLITE_SCHEMA``, for `catch DatabaseError.SQLITE_SCHEMA`.
    public static let SQLITE_SCHEMA = ResultCode.SQLITE_SCHEMA
    /// ``ResultCode/SQLITE_TOOBIG``, for `catch DatabaseError.SQLITE_TOOBIG`.
    public static let SQLITE_TOOBIG = ResultCode.SQLITE_TOOBIG
    /// ``ResultCode/SQLITE_CONSTRAINT``, for `catch DatabaseError.SQLITE_CONSTRAINT`.
    public static let SQLITE_CONSTRAINT = ResultCode.SQLITE_CONSTRAINT
    /// ``ResultCode/SQLITE_MISMATCH``, for `catch DatabaseError.SQLITE_MISMATCH`.
    public static let SQLITE_MISMATCH = ResultCode.SQLITE_MISMATCH
    /// ``ResultCode/SQLITE_MISUSE``, for `catch DatabaseError.SQLITE_MISUSE`.
    public static let SQLITE_MISUSE = ResultCode.SQLITE_MISUSE
    /// ``ResultCode/SQLITE_NOLFS``, for `catch DatabaseError.SQLITE_NOLFS`.
    public static let SQLITE_NOLFS = ResultCode.SQLITE_NOLFS
    /// ``ResultCode/SQLITE_AUTH``, for `catch DatabaseError.SQLITE_AUTH`.
    public static let SQLITE_AUTH = ResultCode.SQLITE_AUTH
    /// ``ResultCode/SQLITE_FORMAT``, for `catch DatabaseError.SQLITE_FORMAT`.
    public static let SQLITE_FORMAT = ResultCode.SQLITE_FORMAT
    /// ``ResultCode/SQLITE_RANGE``, for `catch DatabaseError.SQLITE_RANGE`.
    public static let SQLITE_RANGE = ResultCode.SQLITE_RANGE
    /// ``ResultCode/SQLITE_NOTADB``, for `catch DatabaseError.SQLITE_NOTADB`.
    public static let SQLITE_NOTADB = ResultCode.SQLITE_NOTADB
    /// ``ResultCode/SQLITE_NOTICE``, for `catch DatabaseError.SQLITE_NOTICE`.
    public static let SQLITE_NOTICE = ResultCode.SQLITE_NOTICE
    /// ``ResultCode/SQLITE_WARNING``, for `catch DatabaseError.SQLITE_WARNING`.
    public static let SQLITE_WARNING = ResultCode.SQLITE_WARNING
    /// ``ResultCode/SQLITE_ROW``, for `catch DatabaseError.SQLITE_ROW`.
    public static let SQLITE_ROW = ResultCode.SQLITE_ROW
    /// ``ResultCode/SQLITE_DONE``, for `catch DatabaseError.SQLITE_DONE`.
    public static let SQLITE_DONE = ResultCode.SQLITE_DONE
    /// ``ResultCode/SQLITE_BUSY_SNAPSHOT``, for `catch DatabaseError.SQLITE_BUSY_SNAPSHOT`.
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode.SQLITE_BUSY_SNAPSHOT
    /// ``ResultCode/SQLITE_BUSY_TIMEOUT``, for `catch DatabaseError.SQLITE_BUSY_TIMEOUT`.
    public static let SQLITE_BUSY_TIMEOUT = ResultCode.SQLITE_BUSY_TIMEOUT
    /// ``ResultCode/SQLITE_READONLY_DBMOVED``, for `catch DatabaseError.SQLITE_READONLY_DBMOVED`.
    public static let SQLITE_READONLY_DBMOVED = ResultCode.SQLITE_READONLY_DBMOVED
    /// ``ResultCode/SQLITE_CONSTRAINT_CHECK``, for `catch DatabaseError.SQLITE_CONSTRAINT_CHECK`.
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode.SQLITE_CONSTRAINT_CHECK
    /// ``ResultCode/SQLITE_CONSTRAINT_FOREIGNKEY``, for `catch DatabaseError.SQLITE_CONSTRAINT_FOREIGNKEY`.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode.SQLITE_CONSTRAINT_FOREIGNKEY
    /// ``ResultCode/SQLITE_CONSTRAINT_NOTNULL``, for `catch DatabaseError.SQLITE_CONSTRAINT_NOTNULL`.
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode.SQLITE_CONSTRAINT_NOTNULL
    /// ``ResultCode/SQLITE_CONSTRAINT_PRIMARYKEY``, for `catch DatabaseError.SQLITE_CONSTRAINT_PRIMARYKEY`.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode.SQLITE_CONSTRAINT_PRIMARYKEY
    /// ``ResultCode/SQLITE_CONSTRAINT_TRIGGER``, for `catch DatabaseError.SQLITE_CONSTRAINT_TRIGGER`.
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode.SQLITE_CONSTRAINT_TRIGGER
    /// ``ResultCode/SQLITE_CONSTRAINT_UNIQUE``, for `catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE`.
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode.SQLITE_CONSTRAINT_UNIQUE
    /// ``ResultCode/SQLITE_CONSTRAINT_ROWID``, for `catch DatabaseError.SQLITE_CONSTRAINT_ROWID`.
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode.SQLITE_CONSTRAINT_ROWID
    /// ``ResultCode/SQLITE_CONSTRAINT_DATATYPE``, for `catch DatabaseError.SQLITE_CONSTRAINT_DATATYPE`.
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode.SQLITE_CONSTRAINT_DATATYPE
}
