// Exposes the system SQLite C API to Swift.
#include <sqlite3.h>
