#include <stdio.h>
#include "example_plugin.h"

int example_threshold(pc_image *image, const double *params, pc_image *out,
                      pc_is_cancelled_fn is_cancelled, void *cancel_context,
                      char *error, size_t error_size) {
    (void)out;
    // The host checked both against the schema: level is a whole number in 0...255.
    unsigned level = (unsigned)params[0];
    if (params[1] != 0) {
        snprintf(error, error_size, "asked to fail");
        return PC_ERROR;
    }
    size_t row_bytes = (size_t)image->width * 4;
    for (int32_t y = 0; y < image->height; y++) {
        if (is_cancelled(cancel_context)) return PC_CANCELLED;
        uint8_t *p = image->pixels + (size_t)y * row_bytes;
        for (size_t x = 0; x < row_bytes; x += 4) {
            unsigned luma = (299u * p[x] + 587u * p[x + 1] + 114u * p[x + 2] + 500u) / 1000u;
            uint8_t v = luma >= level ? 255 : 0;
            p[x] = v;
            p[x + 1] = v;
            p[x + 2] = v;
        }
    }
    return PC_OK;
}
