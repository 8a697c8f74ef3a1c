#include "example_plugin.h"

int example_invert(pc_image *image, const double *params, pc_image *out,
                   pc_is_cancelled_fn is_cancelled, void *cancel_context,
                   char *error, size_t error_size) {
    (void)params; (void)out; (void)error; (void)error_size;
    size_t row_bytes = (size_t)image->width * 4;
    for (int32_t y = 0; y < image->height; y++) {
        if (is_cancelled(cancel_context)) return PC_CANCELLED;
        uint8_t *p = image->pixels + (size_t)y * row_bytes;
        for (size_t x = 0; x < row_bytes; x += 4) {
            p[x] = 255 - p[x];
            p[x + 1] = 255 - p[x + 1];
            p[x + 2] = 255 - p[x + 2];
        }
    }
    return PC_OK;
}
