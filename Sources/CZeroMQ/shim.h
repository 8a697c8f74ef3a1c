#ifndef PHOTOCLUSTER_CZEROMQ_SHIM_H
#define PHOTOCLUSTER_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
