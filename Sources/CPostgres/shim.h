#ifndef PHOTOCLUSTER_CPOSTGRES_SHIM_H
#define PHOTOCLUSTER_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
