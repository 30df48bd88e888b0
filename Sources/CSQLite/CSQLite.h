// SQLite 3 for the score store (Debian libsqlite3-dev).
#ifndef CSQLITE_H
#define CSQLITE_H

#include <sqlite3.h>

#endif
