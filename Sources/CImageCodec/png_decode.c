#include "codec_util.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

/* libpng's default per-side limit (PNG_USER_WIDTH_MAX / PNG_USER_HEIGHT_MAX). */
#define PNG_SIDE_LIMIT 1000000u

static uint32_t read_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Checks the IHDR size before libpng sees the file, so huge declared sizes are
 * reported as too large (libpng itself would reject some as corrupt).
 */
static ic_status precheck_header(const uint8_t *data, size_t size, uint64_t max_pixels,
                                 char *message, size_t message_size) {
    /* signature (8), chunk length (4), "IHDR" (4), width (4), height (4) */
    if (size < 24 || memcmp(data + 12, "IHDR", 4) != 0) {
        ic_set_message(message, message_size, "PNG data is corrupt: no IHDR header");
        return IC_CORRUPT;
    }
    uint32_t width = read_be32(data + 16), height = read_be32(data + 20);
    size_t byte_count = 0;
    ic_status status = ic_check_size(width, height, max_pixels, &byte_count, message, message_size);
    if (status != IC_OK) return status;
    /* libpng's simplified reader addresses the buffer with 32-bit sizes. */
    if (width > PNG_SIDE_LIMIT || height > PNG_SIDE_LIMIT || byte_count > UINT32_MAX) {
        ic_set_message(message, message_size, "PNG is %ux%u pixels, larger than libpng accepts",
                       width, height);
        return IC_TOO_LARGE;
    }
    return IC_OK;
}

ic_status ic_decode_png(const uint8_t *data, size_t size, const ic_decode_options *options,
                        ic_image *out, char *message, size_t message_size) {
    uint64_t max_pixels = options->max_pixels;
    memset(out, 0, sizeof *out);
    ic_set_message(message, message_size, "%s", "");
    if (data == NULL || size == 0) {
        ic_set_message(message, message_size, "image data is empty");
        return IC_EMPTY;
    }
    ic_status status = precheck_header(data, size, max_pixels, message, message_size);
    if (status != IC_OK) return status;

    /* The simplified API does its own setjmp/longjmp internally and reports through `message`. */
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        ic_set_message(message, message_size, "PNG data is corrupt: %s", image.message);
        png_image_free(&image);
        return IC_CORRUPT;
    }
    size_t byte_count = 0;
    status = ic_check_size(image.width, image.height, max_pixels, &byte_count, message, message_size);
    if (status != IC_OK) {
        png_image_free(&image);
        return status;
    }
    /* After begin_read, `format` describes the file; palettes count as colour. */
    int gray = (image.format & PNG_FORMAT_FLAG_COLOR) == 0;
    image.format = PNG_FORMAT_RGBA;
    /* Without gAMA/sRGB, 16-bit samples would be taken as linear light and brightened. */
    image.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;

    uint8_t *pixels = ic_alloc_pixels(byte_count);
    if (pixels == NULL) {
        ic_set_message(message, message_size, "no memory for %zu bytes of pixels", byte_count);
        png_image_free(&image);
        return IC_TOO_LARGE;
    }
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        ic_set_message(message, message_size, "PNG data is corrupt: %s", image.message);
        png_image_free(&image);
        free(pixels);
        return IC_CORRUPT;
    }
    png_image_free(&image); /* finish_read already freed it; harmless */
    out->pixels = pixels;
    out->width = image.width;
    out->height = image.height;
    out->gray = gray;
    return IC_OK;
}
