#ifndef PHOTOCLUSTER_CSQLITE_SHIM_H
#define PHOTOCLUSTER_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
