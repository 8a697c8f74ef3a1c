#include "codec_util.h"
#include "jpeg_error.h"

#include <string.h>
#include <webp/decode.h>

/*
 * libjpeg's own reading of the header, up to the first scan: it decodes in one pass, row by row,
 * only when the first scan carries every component and the file is not progressive; otherwise
 * (a progressive file, or a baseline one that sends its components in scans of their own) it
 * keeps every DCT coefficient of the frame until the last scan: a block of 64 two-byte
 * coefficients per 8x8 block of each component, padded to whole MCUs as jdcoefct.c allocates.
 */
static uint64_t jpeg_decoder_bytes(const uint8_t *data, size_t size) {
    /* volatile: read after a longjmp. */
    volatile uint64_t bytes = 0;
    struct jpeg_decompress_struct cinfo;
    ic_jpeg_error err;
    cinfo.err = ic_jpeg_error_init(&err);
    jpeg_create_decompress(&cinfo);
    if (setjmp(err.jump) == 0) {
        jpeg_mem_src(&cinfo, data, (unsigned long)size);
        if (jpeg_read_header(&cinfo, TRUE) == JPEG_HEADER_OK && jpeg_has_multiple_scans(&cinfo)) {
            uint64_t total = 0;
            for (int i = 0; i < cinfo.num_components; i++) {
                const jpeg_component_info *c = &cinfo.comp_info[i];
                uint64_t h = c->h_samp_factor > 0 ? (uint64_t)c->h_samp_factor : 1;
                uint64_t v = c->v_samp_factor > 0 ? (uint64_t)c->v_samp_factor : 1;
                uint64_t wide = ((uint64_t)c->width_in_blocks + h - 1) / h * h;
                uint64_t high = ((uint64_t)c->height_in_blocks + v - 1) / v * v;
                total += wide * high * sizeof(JBLOCK);
            }
            bytes = total;
        }
    }
    jpeg_destroy_decompress(&cinfo);
    return bytes;
}

/*
 * libwebp's own feature probe, which finds the image chunk wherever it lies: a lossless image
 * is decoded whole into 32-bit ARGB before it is RGBA; a lossy one decodes row by row, except its
 * alpha plane (one byte a pixel), which is decoded whole.
 */
static uint64_t webp_decoder_bytes(const uint8_t *data, size_t size) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK || features.width <= 0 || features.height <= 0) return 0;
    uint64_t pixels = (uint64_t)features.width * (uint64_t)features.height;
    if (features.format == 2) return pixels * 4;
    return features.has_alpha ? pixels : 0;
}

uint64_t ic_decoder_bytes(const uint8_t *data, size_t size, ic_format format) {
    if (data == NULL || size == 0) return 0;
    switch (format) {
    case IC_FORMAT_JPEG: return jpeg_decoder_bytes(data, size);
    case IC_FORMAT_WEBP: return webp_decoder_bytes(data, size);
    default: return 0; /* PNG decodes row by row (an interlaced one into the output itself) */
    }
}
