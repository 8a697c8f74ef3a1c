#include "codec_util.h"
#include "png_text_filter.h"
#include "reduce.h"

#include <png.h>
#include <stdio.h>
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

/* The whole image through libpng's simplified API (every colour type and depth to RGBA8), from `source`. */
static ic_status decode_whole_from(FILE *source, uint64_t max_pixels, ic_image *out, char *message, size_t message_size) {
    ic_status status;

    /* The simplified API does its own setjmp/longjmp internally and reports through `message`. */
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_stdio(&image, source)) {
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

/* The whole image, read without its text chunks, which the simplified API would inflate one by one. */
static ic_status decode_whole(const uint8_t *data, size_t size, uint64_t max_pixels,
                              ic_image *out, char *message, size_t message_size) {
    FILE *source = ic_png_without_text(data, size);
    if (source == NULL) {
        ic_set_message(message, message_size, "no memory for libpng");
        return IC_TOO_LARGE;
    }
    ic_status status = decode_whole_from(source, max_pixels, out, message, message_size);
    fclose(source);
    return status;
}

/* libpng's errors longjmp back here; its warnings are dropped. */
typedef struct {
    char message[IC_MESSAGE_SIZE];
} png_errors;

static void on_png_error(png_structp png, png_const_charp text) {
    png_errors *errors = png_get_error_ptr(png);
    snprintf(errors->message, sizeof errors->message, "%s", text);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

typedef struct {
    const uint8_t *data;
    size_t size, offset;
} png_source;

static void read_source(png_structp png, png_bytep target, size_t length) {
    png_source *source = png_get_io_ptr(png);
    if (length > source->size - source->offset) png_error(png, "PNG data is truncated");
    memcpy(target, source->data + source->offset, length);
    source->offset += length;
}

/*
 * Row by row into the reduction: libpng expands every colour type and depth to 8-bit RGBA one
 * row at a time (16-bit samples scaled with rounding, as the simplified API does for sRGB).
 * Returns 1 when done, 0 on a libpng error (its message in `errors`).
 */
static int read_rows_reduced(png_structp png, png_infop info, png_source *source, ic_reducer *reducer,
                             uint8_t **row, const ic_decode_options *options) {
    if (setjmp(png_jmpbuf(png))) return 0;
    png_set_read_fn(png, source, read_source);
    /* Only the pixels are read here (the metadata is read apart, within its own budget): text and
     * other ancillary chunks are skipped without being inflated (tRNS is still read), and no
     * chunk may make libpng allocate past the decoder's limit. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_chunk_cache_max(png, 1000);
    if (options->decoder_memory_limit > 0 && options->decoder_memory_limit < 8000000) /* libpng's default cap */
        png_set_chunk_malloc_max(png, (png_alloc_size_t)options->decoder_memory_limit);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_read_update_info(png, info);
    uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "unexpected row layout");
    if (ic_reducer_init(reducer, width, height, options->reduce_width, options->reduce_height) != IC_OK ||
        (*row = malloc((size_t)width * 4)) == NULL)
        png_error(png, "no memory for the reduction");
    for (uint32_t y = 0; y < height; y++) {
        png_read_row(png, *row, NULL);
        ic_reducer_push(reducer, *row);
    }
    return 1;
}

static ic_status decode_reduced(const uint8_t *data, size_t size, const ic_decode_options *options,
                                ic_image *out, char *message, size_t message_size) {
    png_errors errors;
    memset(&errors, 0, sizeof errors);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &errors, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        ic_set_message(message, message_size, "no memory for libpng");
        return IC_TOO_LARGE;
    }
    png_source source = {data, size, 0};
    ic_reducer reducer;
    memset(&reducer, 0, sizeof reducer);
    uint8_t *row = NULL;
    int ok = read_rows_reduced(png, info, &source, &reducer, &row, options);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    uint8_t *pixels = ok ? ic_reducer_take(&reducer) : NULL;
    ic_reducer_free(&reducer);
    if (pixels == NULL) {
        ic_set_message(message, message_size, "PNG data is corrupt: %s", errors.message[0] ? errors.message : "rows are missing");
        return IC_CORRUPT;
    }
    out->pixels = pixels;
    out->width = options->reduce_width;
    out->height = options->reduce_height;
    out->reduced = 1;
    return IC_OK;
}

/* Interlaced files: decoded whole, then reduced row by row. */
static ic_status reduce_whole(ic_image *image, const ic_decode_options *options, char *message, size_t message_size) {
    ic_reducer reducer;
    if (ic_reducer_init(&reducer, image->width, image->height, options->reduce_width, options->reduce_height) != IC_OK) {
        ic_set_message(message, message_size, "no memory to reduce a %ux%u PNG", image->width, image->height);
        free(image->pixels);
        memset(image, 0, sizeof *image);
        return IC_TOO_LARGE;
    }
    for (uint32_t y = 0; y < image->height; y++) ic_reducer_push(&reducer, image->pixels + (size_t)y * image->width * 4);
    free(image->pixels);
    image->pixels = ic_reducer_take(&reducer);
    image->width = options->reduce_width;
    image->height = options->reduce_height;
    image->reduced = 1;
    ic_reducer_free(&reducer);
    return IC_OK;
}

/*
 * Refuses a chunk that claims more bytes than the file has left, before libpng sees it. libpng
 * allocates and zeroes a text, eXIf or sPLT chunk's whole declared length before it reads the
 * body (Debian's 1.6.39 does not hold these to its 8 MB chunk limit), so a 133-byte file whose
 * iTXt chunk claims 1.7 GB made a worker fault in 1.7 GB of zeros. A complete chunk is bounded
 * by the download; only a truncated one could claim more. Chunks after IEND are not read.
 */
static ic_status check_chunk_lengths(const uint8_t *data, size_t size, char *message, size_t message_size) {
    size_t at = 8;
    while (at + 8 <= size) {
        uint64_t length = read_be32(data + at);
        const uint8_t *type = data + at + 4;
        if (length + 12 > size - at) {
            int named = 1;
            for (int i = 0; i < 4; i++) named &= (type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z');
            ic_set_message(message, message_size, "PNG data is truncated: %s%.*s chunk at byte %zu claims %llu bytes, %zu are left",
                           named ? "its " : "a", named ? 4 : 0, (const char *)type, at, (unsigned long long)length,
                           size - at - 8);
            return IC_CORRUPT;
        }
        if (memcmp(type, "IEND", 4) == 0) break;
        at += (size_t)length + 12;
    }
    return IC_OK;
}

ic_status ic_decode_png(const uint8_t *data, size_t size, const ic_decode_options *options,
                        ic_image *out, char *message, size_t message_size) {
    ic_status started = ic_start_decode(data, size, out, message, message_size);
    if (started != IC_OK) return started;
    ic_status status = precheck_header(data, size, options->max_pixels, message, message_size);
    if (status != IC_OK) return status;
    status = check_chunk_lengths(data, size, message, message_size);
    if (status != IC_OK) return status;
    /* IHDR: width, height, bit depth, colour type (byte 25), ..., interlace method (byte 28). */
    uint32_t width = read_be32(data + 16), height = read_be32(data + 20);
    if (!ic_wants_reduction(options, width, height)) return decode_whole(data, size, options->max_pixels, out, message, message_size);
    int interlaced = size > 28 && data[28] != 0;
    int gray = size > 25 && (data[25] & 2) == 0; /* no colour bit: gray or gray + alpha */
    if (interlaced) {
        status = decode_whole(data, size, options->max_pixels, out, message, message_size);
        return status == IC_OK ? reduce_whole(out, options, message, message_size) : status;
    }
    status = decode_reduced(data, size, options, out, message, message_size);
    if (status == IC_OK) out->gray = gray;
    return status;
}
