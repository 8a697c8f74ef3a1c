#include "codec_util.h"
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

/*
 * TIFF through libtiff's RGBA interface: strips or tiles, contiguous or planar, 1 to 16 bits,
 * gray, palette, RGB, YCbCr, CMYK (by formula) and the JPEG, LZW, Deflate and PackBits
 * compressions libtiff carries. Only the first page (directory) is read. Rows are fetched in
 * bands aligned to the strips or tiles, so each is decoded once, and the stop check runs
 * between bands. Float samples and the rarer photometrics are refused with libtiff's reason.
 */

/* The file in memory, read through libtiff's client procedures. */
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
    char *message; /* libtiff's first error, for the reason */
    size_t message_size;
    int failed;
} tiff_source;

static tmsize_t source_read(thandle_t handle, void *buffer, tmsize_t count) {
    tiff_source *source = handle;
    if (count < 0 || source->offset >= source->size) return 0;
    size_t n = source->size - source->offset < (size_t)count ? source->size - source->offset : (size_t)count;
    memcpy(buffer, source->data + source->offset, n);
    source->offset += n;
    return (tmsize_t)n;
}

static tmsize_t source_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle, (void)buffer, (void)count;
    return -1;
}

static toff_t source_seek(thandle_t handle, toff_t offset, int whence) {
    tiff_source *source = handle;
    uint64_t base = whence == SEEK_CUR ? source->offset : whence == SEEK_END ? source->size : 0;
    source->offset = (size_t)(base + offset);
    return source->offset;
}

static int source_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t source_size(thandle_t handle) { return ((tiff_source *)handle)->size; }

/* The bytes are already in memory: libtiff reads strips in place instead of copying them. */
static int source_map(thandle_t handle, void **base, toff_t *size) {
    tiff_source *source = handle;
    *base = (void *)source->data;
    *size = source->size;
    return 1;
}

static void source_unmap(thandle_t handle, void *base, toff_t size) { (void)handle, (void)base, (void)size; }

static int on_error(TIFF *tiff, void *user_data, const char *module, const char *format, va_list args) {
    (void)tiff;
    tiff_source *source = user_data;
    if (!source->failed && source->message != NULL && source->message_size > 0) {
        char text[IC_MESSAGE_SIZE];
        vsnprintf(text, sizeof text, format, args);
        ic_set_message(source->message, source->message_size, "TIFF %s: %s", module != NULL ? module : "file", text);
    }
    source->failed = 1;
    return 1;
}

static int on_warning(TIFF *tiff, void *user_data, const char *module, const char *format, va_list args) {
    (void)tiff, (void)user_data, (void)module, (void)format, (void)args;
    return 1; /* unknown tags and the like: not the photo's fault */
}

/* The largest single allocation libtiff may make (a strip or tile buffer, a tag array). */
#define TIFF_MAX_SINGLE_ALLOC ((tmsize_t)1 << 30)

static TIFF *open_tiff(tiff_source *source) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, TIFF_MAX_SINGLE_ALLOC);
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, source);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, source);
    /* "r": read, with the bytes "mapped" (source_map), so strips are read where they lie. */
    TIFF *tiff = TIFFClientOpenExt("photo", "r", source, source_read, source_write, source_seek, source_close, source_size,
                                   source_map, source_unmap, options);
    TIFFOpenOptionsFree(options);
    /* libtiff's own error, when it gave one, is already the message. */
    if (tiff == NULL && !source->failed) ic_set_message(source->message, source->message_size, "TIFF header is unreadable");
    return tiff;
}

/* Rows per band: whole strips or rows of tiles, at least 64 rows. */
static uint32_t band_rows(TIFF *tiff, uint32_t height) {
    uint32_t unit = 0;
    if (TIFFIsTiled(tiff)) TIFFGetField(tiff, TIFFTAG_TILELENGTH, &unit);
    else TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &unit);
    if (unit == 0 || unit > height) unit = height;
    uint32_t rows = unit;
    while (rows < 64 && rows < height) rows += unit;
    return rows > height ? height : rows;
}

static uint64_t band_scratch_bytes(TIFF *tiff, uint32_t height) {
    /* One strip or tile buffer of raw samples at a time, and our band of RGBA words. */
    uint64_t raw = TIFFIsTiled(tiff) ? (uint64_t)TIFFTileSize64(tiff) : (uint64_t)TIFFStripSize64(tiff);
    uint32_t width = 0;
    TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width);
    return raw + (uint64_t)width * band_rows(tiff, height) * 4;
}

ic_status ic_read_tiff_header(const uint8_t *data, size_t size, ic_header *out, char *message, size_t message_size) {
    tiff_source source = {data, size, 0, message, message_size, 0};
    TIFF *tiff = open_tiff(&source);
    if (tiff == NULL) return IC_CORRUPT;
    uint32_t width = 0, height = 0;
    uint16_t bits = 8, orientation = 0, extra = 0, *extra_types = NULL;
    TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &bits);
    if (TIFFGetField(tiff, TIFFTAG_ORIENTATION, &orientation) != 1 || orientation > 8) orientation = 0;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, &extra, &extra_types);
    out->width = width;
    out->height = height;
    out->bit_depth = bits;
    out->orientation = orientation;
    out->has_alpha = extra > 0;
    out->scratch_bytes = band_scratch_bytes(tiff, height);
    uint32_t count = 0;
    void *bytes = NULL;
    if (TIFFGetField(tiff, TIFFTAG_ICCPROFILE, &count, &bytes) == 1 && count > 0 && count <= (4u << 20) && (out->icc = malloc(count)) != NULL) {
        memcpy(out->icc, bytes, count);
        out->icc_size = count;
    }
    if (TIFFGetField(tiff, TIFFTAG_XMLPACKET, &count, &bytes) == 1 && count > 0 && count <= (1u << 20) && (out->xmp = malloc(count)) != NULL) {
        memcpy(out->xmp, bytes, count);
        out->xmp_size = count;
    }
    TIFFClose(tiff);
    return IC_OK;
}

/* libtiff's RGBA interface premultiplies unassociated alpha; the codec's RGBA is straight. */
static void unpremultiply(uint8_t *pixels, size_t count) {
    for (size_t i = 0; i < count; i++, pixels += 4) {
        unsigned a = pixels[3];
        if (a == 255 || a == 0) continue;
        for (int c = 0; c < 3; c++) {
            unsigned v = (pixels[c] * 255u + a / 2) / a;
            pixels[c] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

ic_status ic_decode_tiff(const uint8_t *data, size_t size, const ic_decode_options *options,
                         ic_image *out, char *message, size_t message_size) {
    ic_status status = ic_start_decode(data, size, out, message, message_size);
    if (status != IC_OK) return status;
    tiff_source source = {data, size, 0, message, message_size, 0};
    TIFF *tiff = open_tiff(&source);
    if (tiff == NULL) return IC_CORRUPT;
    uint32_t width = 0, height = 0;
    TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height);
    size_t byte_count = 0;
    status = ic_check_size(width, height, options->max_pixels, &byte_count, message, message_size);
    if (status != IC_OK) {
        ic_prefix_message(message, message_size, "TIFF", "header");
        TIFFClose(tiff);
        return status;
    }
    char reason[1024] = "";
    TIFFRGBAImage rgba;
    if (!TIFFRGBAImageOK(tiff, reason) || !TIFFRGBAImageBegin(&rgba, tiff, 0, reason)) {
        ic_set_message(message, message_size, "TIFF variant is not supported: %s", reason);
        TIFFClose(tiff);
        return IC_UNSUPPORTED;
    }
    /* Rows as stored: the Orientation tag is applied by the worker, as EXIF's is for JPEG. */
    rgba.req_orientation = rgba.orientation;
    int reducing = ic_wants_reduction(options, width, height);
    uint32_t rows = band_rows(tiff, height);
    ic_reducer reducer;
    memset(&reducer, 0, sizeof reducer);
    uint8_t *pixels = NULL, *band = NULL;
    if (reducing) {
        if (ic_reducer_init(&reducer, width, height, options->reduce_width, options->reduce_height) != IC_OK ||
            (band = malloc((size_t)width * rows * 4)) == NULL) {
            ic_set_message(message, message_size, "no memory to reduce a %ux%u TIFF", width, height);
            status = IC_TOO_LARGE;
        }
    } else if ((pixels = ic_alloc_pixels(byte_count)) == NULL) {
        ic_set_message(message, message_size, "no memory for %zu bytes of pixels", byte_count);
        status = IC_TOO_LARGE;
    }
    for (uint32_t first = 0; status == IC_OK && first < height; first += rows) {
        if (options->should_stop != NULL && options->should_stop(options->stop_context)) {
            ic_set_message(message, message_size, "TIFF decoding stopped");
            status = IC_STOPPED;
            break;
        }
        uint32_t count = height - first < rows ? height - first : rows;
        uint8_t *target = reducing ? band : pixels + (size_t)first * width * 4;
        rgba.row_offset = (int)first;
        rgba.col_offset = 0;
        /* Packed as A<<24|B<<16|G<<8|R words: R, G, B, A bytes on a little-endian machine. */
        if (!TIFFRGBAImageGet(&rgba, (uint32_t *)target, width, count) || source.failed) {
            if (!source.failed) ic_set_message(message, message_size, "TIFF rows %u to %u are unreadable", first, first + count - 1);
            status = IC_CORRUPT;
            break;
        }
        if (rgba.alpha == EXTRASAMPLE_UNASSALPHA) unpremultiply(target, (size_t)width * count);
        if (reducing)
            for (uint32_t y = 0; y < count; y++) ic_reducer_push(&reducer, band + (size_t)y * width * 4);
    }
    int gray = rgba.photometric == PHOTOMETRIC_MINISBLACK || rgba.photometric == PHOTOMETRIC_MINISWHITE;
    TIFFRGBAImageEnd(&rgba);
    TIFFClose(tiff);
    free(band);
    if (status == IC_OK && reducing) {
        pixels = ic_reducer_take(&reducer);
        width = options->reduce_width;
        height = options->reduce_height;
    }
    ic_reducer_free(&reducer);
    if (status != IC_OK) {
        free(pixels);
        return status;
    }
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    out->gray = gray;
    out->reduced = reducing;
    return IC_OK;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tiff_decode.c takes libtiff's RGBA words for R, G, B, A bytes: little-endian only"
#endif
