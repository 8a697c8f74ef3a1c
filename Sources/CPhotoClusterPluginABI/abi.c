// The ABI is the header alone; SwiftPM needs one source file to build a C target.
#include "photocluster_plugin.h"
