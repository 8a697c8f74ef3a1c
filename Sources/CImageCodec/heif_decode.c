#include "codec_util.h"
#include "heif_util.h"
#include "reduce.h"

#include <libheif/heif.h>
#include <stdlib.h>
#include <string.h>

/*
 * HEIF (HEIC) and AVIF through libheif. libheif parses the container, decodes the primary item
 * (a grid's tiles put together whole) with libde265, aom or dav1d, applies its irot/imir/clap
 * transformations and converts YCbCr of any bit depth to 8-bit RGBA by the file's nclx matrix.
 * Thumbnails, depth maps and gain maps are other items: never read.
 */

static const char *heif_format_name(const uint8_t *data, size_t size) {
    return ic_sniff(data, size) == IC_FORMAT_AVIF ? "AVIF" : "HEIF";
}

/* The status for a libheif error: limits and allocation are too large, the rest corrupt or unsupported. */
static ic_status status_of(struct heif_error error) {
    if (error.code == heif_error_Memory_allocation_error || error.subcode == heif_suberror_Security_limit_exceeded)
        return IC_TOO_LARGE;
    if (error.code == heif_error_Unsupported_feature ||
        error.code == heif_error_Unsupported_filetype)
        return IC_UNSUPPORTED;
    return IC_CORRUPT;
}

ic_status ic_heif_open(const uint8_t *data, size_t size, struct heif_context **context,
                       struct heif_image_handle **handle, char *message, size_t message_size) {
    *context = NULL;
    *handle = NULL;
    const char *name = heif_format_name(data, size);
    ic_status references = ic_heif_check_references(data, size, name, message, message_size);
    if (references != IC_OK) return references;
    struct heif_context *ctx = heif_context_alloc();
    if (ctx == NULL) {
        ic_set_message(message, message_size, "%s: no memory for a decoder", name);
        return IC_TOO_LARGE;
    }
    /* Tiles decode on the calling thread: the worker runs photos side by side already. */
    heif_context_set_max_decoding_threads(ctx, 0);
    struct heif_error error = heif_context_read_from_memory_without_copy(ctx, data, size, NULL);
    if (error.code != heif_error_Ok) {
        ic_set_message(message, message_size, "%s container is unreadable: %s", name, error.message);
        heif_context_free(ctx);
        return status_of(error);
    }
    error = heif_context_get_primary_image_handle(ctx, handle);
    if (error.code != heif_error_Ok) {
        ic_set_message(message, message_size, "%s has no primary image: %s", name, error.message);
        heif_context_free(ctx);
        *handle = NULL;
        return status_of(error);
    }
    uint64_t pixels = (uint64_t)heif_image_handle_get_width(*handle) * (uint64_t)heif_image_handle_get_height(*handle);
    ic_status canvases = ic_heif_check_canvases(data, size, name, pixels, message, message_size);
    if (canvases != IC_OK) {
        heif_image_handle_release(*handle);
        heif_context_free(ctx);
        *handle = NULL;
        return canvases;
    }
    *context = ctx;
    return IC_OK;
}

ic_status ic_decode_heif(const uint8_t *data, size_t size, const ic_decode_options *options,
                         ic_image *out, char *message, size_t message_size) {
    ic_status status = ic_start_decode(data, size, out, message, message_size);
    if (status != IC_OK) return status;
    const char *name = heif_format_name(data, size);
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    status = ic_heif_open(data, size, &ctx, &handle, message, message_size);
    if (status != IC_OK) return status;
    uint32_t width = (uint32_t)heif_image_handle_get_width(handle), height = (uint32_t)heif_image_handle_get_height(handle);
    size_t byte_count = 0;
    /* The size after transformations; a grid's ispe is its whole size, so this bounds every tile put together. */
    status = ic_check_size(width, height, options->max_pixels, &byte_count, message, message_size);
    if (status != IC_OK) ic_prefix_message(message, message_size, name, "header");
    struct heif_image *image = NULL;
    if (status == IC_OK && options->should_stop != NULL && options->should_stop(options->stop_context)) status = IC_STOPPED;
    if (status == IC_OK) {
        struct heif_decoding_options *decoding = heif_decoding_options_alloc();
        decoding->convert_hdr_to_8bit = 1;
        struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, decoding);
        heif_decoding_options_free(decoding);
        if (error.code != heif_error_Ok) {
            ic_set_message(message, message_size, "%s image data is %s: %s", name,
                           error.code == heif_error_Decoder_plugin_error ? "corrupt or truncated" : "undecodable", error.message);
            status = status_of(error);
            image = NULL;
        }
    }
    if (status == IC_OK && options->should_stop != NULL && options->should_stop(options->stop_context)) status = IC_STOPPED;
    int stride = 0;
    const uint8_t *plane = image != NULL ? heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) : NULL;
    if (status == IC_OK && (plane == NULL || (uint32_t)heif_image_get_width(image, heif_channel_interleaved) != width ||
                            (uint32_t)heif_image_get_height(image, heif_channel_interleaved) != height)) {
        ic_set_message(message, message_size, "%s decoder returned no %ux%u RGBA image", name, width, height);
        status = IC_CORRUPT;
    }
    if (status == IC_OK) {
        if (ic_wants_reduction(options, width, height)) {
            ic_reducer reducer;
            if (ic_reducer_init(&reducer, width, height, options->reduce_width, options->reduce_height) != IC_OK) {
                ic_set_message(message, message_size, "no memory to reduce a %ux%u %s", width, height, name);
                status = IC_TOO_LARGE;
            } else {
                for (uint32_t y = 0; y < height; y++) ic_reducer_push(&reducer, plane + (size_t)y * (size_t)stride);
                out->pixels = ic_reducer_take(&reducer);
                ic_reducer_free(&reducer);
                out->width = options->reduce_width;
                out->height = options->reduce_height;
                out->reduced = 1;
            }
        } else {
            uint8_t *pixels = ic_alloc_pixels(byte_count);
            if (pixels == NULL) {
                ic_set_message(message, message_size, "no memory for %zu bytes of pixels", byte_count);
                status = IC_TOO_LARGE;
            } else {
                for (uint32_t y = 0; y < height; y++)
                    memcpy(pixels + (size_t)y * width * 4, plane + (size_t)y * (size_t)stride, (size_t)width * 4);
                out->pixels = pixels;
                out->width = width;
                out->height = height;
            }
        }
    }
    if (image != NULL) heif_image_release(image);
    heif_image_handle_release(handle);
    heif_context_free(ctx);
    if (status != IC_OK) {
        free(out->pixels);
        memset(out, 0, sizeof *out);
        if (status == IC_STOPPED) ic_set_message(message, message_size, "%s decoding stopped", name);
    }
    return status;
}
