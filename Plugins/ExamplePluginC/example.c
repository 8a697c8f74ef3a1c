// The plugin's table: two filters that work in place.
#include "example_plugin.h"

static const pc_param_schema threshold_params[] = {
    {"level", PC_PARAM_INT, 0, 255, 128, "pixels at least this bright become white, the rest black"},
    {"fail", PC_PARAM_BOOL, 0, 1, 0, "1 makes the filter fail, to test error handling"},
};

static const pc_filter_def filters[] = {
    {"invert", "1", "photographic negative", NULL, 0, example_invert},
    {"threshold", "1", "black and white by brightness", threshold_params, 2, example_threshold},
};

static const pc_plugin plugin = {PC_PLUGIN_ABI_VERSION, "example-c", filters, 2};

PC_PLUGIN_EXPORT const pc_plugin *photocluster_plugin_entry(void) {
    return &plugin;
}
