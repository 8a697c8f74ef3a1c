// The example C plugin's filters; the entry table in example.c refers to them. Hidden so the
// library exports nothing but photocluster_plugin_entry.
#ifndef EXAMPLE_PLUGIN_H
#define EXAMPLE_PLUGIN_H

#include "photocluster_plugin.h"

#define EXAMPLE_HIDDEN __attribute__((visibility("hidden")))

// invert: r, g, b become 255 - value, in place; alpha is kept. No parameters.
EXAMPLE_HIDDEN int example_invert(pc_image *image, const double *params, pc_image *out,
                                  pc_is_cancelled_fn is_cancelled, void *cancel_context,
                                  char *error, size_t error_size);

// threshold: params { level, fail }. Luma (299 r + 587 g + 114 b + 500) / 1000 >= level makes
// r, g, b 255, else 0, in place; alpha is kept. fail = 1 returns PC_ERROR "asked to fail".
EXAMPLE_HIDDEN int example_threshold(pc_image *image, const double *params, pc_image *out,
                                     pc_is_cancelled_fn is_cancelled, void *cancel_context,
                                     char *error, size_t error_size);

#endif
