// The system SQLite C API, for the raw contender.
#include <sqlite3.h>
