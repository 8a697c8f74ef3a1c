/*
 * The PhotoCluster filter plugin ABI, version 1.
 *
 * A plugin is a shared library (*.so) in the worker's plugin directory that exports one symbol,
 * `photocluster_plugin_entry`. The worker dlopen()s it once (RTLD_NOW | RTLD_LOCAL), never
 * unloads it, calls the entry once and reads the table it returns. Everything the table points
 * to (strings, schemas, filter definitions) must stay valid and unchanged for as long as the
 * library is loaded: static data is the usual choice.
 *
 * The worker checks the table before using it and refuses the whole plugin when
 * `abi_version` differs from its own or the table is malformed; it refuses a single filter
 * whose definition is malformed or whose name is already taken (a built-in or another
 * plugin's filter), and keeps the plugin's other filters.
 *
 * Rules a table must follow:
 *   - names (filter names and parameter keys): 1-64 characters of [a-z0-9_-];
 *   - strings are NUL-terminated UTF-8; summaries may be NULL;
 *   - 1-256 filters per plugin, 0-64 parameters per filter;
 *   - parameter ranges are finite with min <= default <= max; PC_PARAM_INT bounds and default
 *     are whole numbers; PC_PARAM_BOOL is min 0, max 1, default 0 or 1.
 *
 * Filters run on many threads at once, one image per call: `apply` must be reentrant and must
 * not keep pointers it was given after it returns.
 */
#ifndef PHOTOCLUSTER_PLUGIN_H
#define PHOTOCLUSTER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised only for changes a version-1 host could not read safely. */
#define PC_PLUGIN_ABI_VERSION 1

/* Status codes returned by pc_filter_fn. */
#define PC_OK 0
#define PC_ERROR 1
#define PC_CANCELLED 2

/* Parameter kinds. Every value reaches the filter as a double; INT values are whole numbers,
 * BOOL values are 0 or 1. */
#define PC_PARAM_DOUBLE 0
#define PC_PARAM_INT 1
#define PC_PARAM_BOOL 2

/* Marks the entry point as exported even when a plugin builds with -fvisibility=hidden. */
#define PC_PLUGIN_EXPORT __attribute__((visibility("default")))

/* One parameter of a filter, as users write it (`--filter name:key=value`) and as
 * `cluster plugins` lists it. The host refuses a value outside [min, max] before any work starts,
 * naming the range, and passes default_value when the user gives none. */
typedef struct {
    const char *key;      /* the parameter's name: 1-64 characters of [a-z0-9_-] */
    int32_t kind;         /* PC_PARAM_DOUBLE, PC_PARAM_INT or PC_PARAM_BOOL */
    double min, max, default_value;  /* finite, min <= default_value <= max */
    const char *summary;  /* one line for `cluster plugins`; may be NULL */
} pc_param_schema;

/* RGBA8, rows packed: width * 4 bytes per row, width * height * 4 bytes in all. Compute
 * offsets in size_t: the product can exceed INT32_MAX. */
typedef struct {
    uint8_t *pixels;        /* r, g, b, a, r, g, b, a, ... row after row, top row first */
    int32_t width, height;  /* in pixels, both at least 1 for an image the host passes */
} pc_image;

/* Returns nonzero when the photo has been cancelled (its viewport moved on, its job was
 * cancelled, the worker is shutting down); the filter should then stop and return PC_CANCELLED.
 * Cheap enough to call between rows; `context` is the cancel_context the filter was given. */
typedef int (*pc_is_cancelled_fn)(void *context);

/*
 * Parameters:
 *   image           the photo, RGBA8; the filter may change its pixels in place.
 *   params          the parameter values, one per schema entry (see below).
 *   out             where a filter that makes a new image (a resize, a crop) puts it.
 *   is_cancelled    asks whether the photo was cancelled; call it between rows.
 *   cancel_context  the argument to pass to is_cancelled.
 *   error           a buffer of error_size bytes for the reason of a PC_ERROR.
 *
 * Filters `image`, either in place (leave `out` untouched: out->pixels stays NULL) or into a
 * new image: set out->pixels to a malloc()ed buffer of out->width * out->height * 4 bytes and
 * set its size. Whatever buffer is in out->pixels when the function returns belongs to the
 * host, which free()s it, whatever the status; never point it at image->pixels.
 *
 * `params` holds one value per schema entry, in schema order, already checked against the
 * schema's ranges (NULL when the filter has no parameters).
 *
 * Returns PC_OK; PC_CANCELLED after `is_cancelled(cancel_context)` returned nonzero; or
 * PC_ERROR with a NUL-terminated message of at most `error_size` bytes (including the NUL)
 * written to `error`. An error fails this one photo, not the worker.
 */
typedef int (*pc_filter_fn)(pc_image *image, const double *params, pc_image *out,
                            pc_is_cancelled_fn is_cancelled, void *cancel_context,
                            char *error, size_t error_size);

/* One filter a plugin offers. */
typedef struct {
    const char *name;     /* what users write: `--filter name:key=value`; 1-64 of [a-z0-9_-] */
    const char *version;  /* non-empty, e.g. "1"; part of cache keys, so bump it when output changes */
    const char *summary;  /* may be NULL */
    const pc_param_schema *params;  /* param_count schemas, in the order `params` reaches apply */
    int32_t param_count;            /* 0-64; params may be NULL when it is 0 */
    pc_filter_fn apply;             /* the filter itself; reentrant */
} pc_filter_def;

/* What photocluster_plugin_entry returns: the plugin's name and its filters. */
typedef struct {
    uint32_t abi_version; /* PC_PLUGIN_ABI_VERSION; stays the first field in every version */
    const char *plugin_name;       /* for the worker's log and `cluster plugins` */
    const pc_filter_def *filters;  /* filter_count definitions, 1-256 */
    int32_t filter_count;
} pc_plugin;

/* The one symbol every plugin exports. Called once per load; returns a table that lives as
 * long as the library. */
PC_PLUGIN_EXPORT const pc_plugin *photocluster_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif
