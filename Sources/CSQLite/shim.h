// Exposes the system SQLite C API to Swift.
#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: this wrapper sets
// the two double-quoted string literal options
// (https://www.sqlite.org/quirks.html#dblquote) for one connection.
static inline int quarry_set_double_quoted_string_literals(sqlite3 *db, int enabled) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, enabled, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, enabled, (int *)0);
}

// Turns SQLITE_DBCONFIG_RESET_DATABASE on or off for one connection: while it
// is on, a VACUUM empties the database (https://www.sqlite.org/c3ref/c_dbconfig_defensive.html).
static inline int quarry_set_reset_database(sqlite3 *db, int enabled) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_RESET_DATABASE, enabled, (int *)0);
}

// Hardens one connection against a database file it did not write
// (https://www.sqlite.org/security.html): defensive mode forbids what can
// corrupt a file from SQL (writable_schema, journal_mode=OFF and others), and
// an untrusted schema may not call functions that are not marked innocuous,
// or virtual tables, from views and triggers.
static inline int quarry_set_untrusted_file_defenses(sqlite3 *db, int enabled) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, enabled, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, enabled ? 0 : 1, (int *)0);
}
