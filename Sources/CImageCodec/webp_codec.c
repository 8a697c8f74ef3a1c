#include "codec_util.h"

#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>

ic_status ic_decode_webp(const uint8_t *data, size_t size, const ic_decode_options *options,
                         ic_image *out, char *message, size_t message_size) {
    ic_status started = ic_start_decode(data, size, out, message, message_size);
    if (started != IC_OK) return started;
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        ic_set_message(message, message_size, "libwebp is not the version PhotoCluster was built with");
        return IC_UNSUPPORTED;
    }
    if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) {
        ic_set_message(message, message_size, "WebP data is corrupt: no valid header");
        return IC_CORRUPT;
    }
    if (config.input.has_animation) {
        ic_set_message(message, message_size, "animated WebP is not supported (convert its first frame to a still first)");
        return IC_UNSUPPORTED;
    }
    uint32_t width = (uint32_t)config.input.width, height = (uint32_t)config.input.height;
    size_t byte_count = 0;
    ic_status status = ic_check_size(width, height, options->max_pixels, &byte_count, message, message_size);
    if (status != IC_OK) return status;
    /* Shrinking on load is libwebp's own: its scaler averages the area as rows are decoded. */
    int reducing = ic_wants_reduction(options, width, height);
    if (reducing) {
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)options->reduce_width;
        config.options.scaled_height = (int)options->reduce_height;
        width = options->reduce_width;
        height = options->reduce_height;
        byte_count = (size_t)width * height * 4;
    }
    uint8_t *pixels = ic_alloc_pixels(byte_count);
    if (pixels == NULL) {
        ic_set_message(message, message_size, "no memory for %zu bytes of pixels", byte_count);
        return IC_TOO_LARGE;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)width * 4;
    config.output.u.RGBA.size = byte_count;
    VP8StatusCode result = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output); /* external memory: frees nothing of ours */
    if (result != VP8_STATUS_OK) {
        free(pixels);
        ic_set_message(message, message_size, "WebP data is %s (libwebp status %d)",
                       result == VP8_STATUS_NOT_ENOUGH_DATA ? "truncated" : "corrupt", (int)result);
        return result == VP8_STATUS_OUT_OF_MEMORY ? IC_TOO_LARGE : IC_CORRUPT;
    }
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    out->reduced = reducing;
    return IC_OK;
}

/* What libwebp's progress hook reaches: the caller's hooks, asked whether to stop. */
typedef struct {
    const ic_encode_hooks *hooks;
    uint32_t width;
    int stopped;
} encode_progress;

static int on_progress(int percent, const WebPPicture *picture) {
    (void)percent;
    encode_progress *progress = picture->user_data;
    const ic_encode_hooks *hooks = progress->hooks;
    if (hooks != NULL && hooks->band != NULL && hooks->band(hooks->context, NULL, NULL, 0, progress->width) != 0) {
        progress->stopped = 1;
        return 0; /* abort */
    }
    return 1;
}

/* The picture's ARGB words from RGBA rows, a band at a time through the hooks. Returns 0 to stop. */
static int fill_picture(WebPPicture *picture, const uint8_t *rgba, const ic_encode_hooks *hooks, uint8_t *band) {
    uint32_t width = (uint32_t)picture->width, height = (uint32_t)picture->height;
    size_t stride = (size_t)width * 4;
    for (uint32_t first = 0; first < height; first += IC_BAND_ROWS) {
        uint32_t count = height - first < IC_BAND_ROWS ? height - first : IC_BAND_ROWS;
        const uint8_t *rows = rgba + (size_t)first * stride;
        if (hooks != NULL && hooks->band != NULL && hooks->band(hooks->context, rows, band, count, width) != 0) return 0;
        if (band != NULL) rows = band;
        for (uint32_t y = 0; y < count; y++) {
            const uint8_t *p = rows + (size_t)y * stride;
            uint32_t *argb = picture->argb + (size_t)(first + y) * picture->argb_stride;
            for (uint32_t x = 0; x < width; x++, p += 4)
                argb[x] = (uint32_t)p[3] << 24 | (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
        }
    }
    return 1;
}

/* The encoded image with ICCP, EXIF and XMP chunks added (an extended VP8X file), when any is given. */
static ic_status add_metadata(WebPMemoryWriter *writer, const ic_encode_options *options, char *message, size_t message_size) {
    if (options->icc.size == 0 && options->exif.size == 0 && options->xmp.size == 0) return IC_OK;
    WebPMux *mux = WebPMuxNew();
    WebPData image = {writer->mem, writer->size}, assembled = {NULL, 0};
    int ok = mux != NULL && WebPMuxSetImage(mux, &image, 0) == WEBP_MUX_OK;
    const struct { const char *fourcc; ic_blob blob; } chunks[] = {{"ICCP", options->icc}, {"EXIF", options->exif}, {"XMP ", options->xmp}};
    for (int i = 0; ok && i < 3; i++) {
        if (chunks[i].blob.size == 0) continue;
        WebPData chunk = {chunks[i].blob.bytes, chunks[i].blob.size};
        ok = WebPMuxSetChunk(mux, chunks[i].fourcc, &chunk, 0) == WEBP_MUX_OK;
    }
    ok = ok && WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
    WebPMuxDelete(mux);
    if (!ok) {
        WebPDataClear(&assembled);
        ic_set_message(message, message_size, "WebP encoding failed: could not add the metadata chunks");
        return IC_ENCODE_FAILED;
    }
    WebPMemoryWriterClear(writer);
    writer->mem = (uint8_t *)assembled.bytes;
    writer->size = writer->max_size = assembled.size;
    return IC_OK;
}

ic_status ic_encode_webp(const uint8_t *rgba, uint32_t width, uint32_t height,
                         const ic_encode_options *options, const ic_encode_hooks *hooks,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    *out = NULL;
    *out_size = 0;
    ic_set_message(message, message_size, "%s", "");
    if (rgba == NULL || width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        ic_set_message(message, message_size, "WebP sides are 1 to %d pixels, image is %ux%u", WEBP_MAX_DIMENSION, width, height);
        return IC_ENCODE_FAILED;
    }
    int quality = options->quality < 1 ? 1 : options->quality > 100 ? 100 : options->quality;
    WebPConfig config;
    WebPPicture picture;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    if (!WebPConfigPreset(&config, WEBP_PRESET_PHOTO, (float)quality) || !WebPPictureInit(&picture)) {
        ic_set_message(message, message_size, "libwebp is not the version PhotoCluster was built with");
        return IC_ENCODE_FAILED;
    }
    if (options->lossless) WebPConfigLosslessPreset(&config, 6 * quality / 100);
    config.exact = 1; /* colour under transparent pixels kept, as PNG keeps it */
    picture.use_argb = 1;
    picture.width = (int)width;
    picture.height = (int)height;
    uint8_t *band = NULL;
    if (!WebPPictureAlloc(&picture) ||
        (hooks != NULL && hooks->band != NULL && hooks->transforms && (band = malloc((size_t)width * 4 * IC_BAND_ROWS)) == NULL)) {
        WebPPictureFree(&picture);
        ic_set_message(message, message_size, "WebP encoding failed: no memory for a %ux%u picture", width, height);
        return IC_ENCODE_FAILED;
    }
    encode_progress progress = {hooks, width, 0};
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    picture.progress_hook = on_progress;
    picture.user_data = &progress;
    int filled = fill_picture(&picture, rgba, hooks, band);
    free(band);
    int encoded = filled && WebPEncode(&config, &picture);
    WebPEncodingError error = picture.error_code;
    WebPPictureFree(&picture);
    ic_status status = IC_OK;
    if (!filled || progress.stopped) {
        ic_set_message(message, message_size, "WebP encoding stopped");
        status = IC_STOPPED;
    } else if (!encoded) {
        ic_set_message(message, message_size, "WebP encoding failed (libwebp error %d)", (int)error);
        status = IC_ENCODE_FAILED;
    } else {
        status = add_metadata(&writer, options, message, message_size);
    }
    if (status != IC_OK) {
        WebPMemoryWriterClear(&writer);
        return status;
    }
    *out = writer.mem; /* malloc'd by libwebp: free() releases it (WebPFree is free) */
    *out_size = writer.size;
    return IC_OK;
}
