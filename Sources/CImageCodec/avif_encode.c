#include "codec_util.h"

#include <libheif/heif.h>
#include <stdlib.h>
#include <string.h>

/*
 * AVIF through libheif's AV1 encoder (aom): RGB, or RGBA when any pixel is not opaque,
 * YCbCr 4:2:0 by BT.601 at full range, signalled in an nclx box beside any ICC profile so
 * every decoder reads the matrix. EXIF and XMP become metadata items of the image.
 */

typedef struct {
    uint8_t *bytes;
    size_t size, capacity;
    int failed;
} output_buffer;

static struct heif_error write_output(struct heif_context *ctx, const void *data, size_t size, void *user_data) {
    (void)ctx;
    output_buffer *output = user_data;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    if (output->size + size > output->capacity) {
        size_t capacity = output->capacity * 2 > output->size + size ? output->capacity * 2 : output->size + size;
        uint8_t *grown = realloc(output->bytes, capacity);
        if (grown == NULL) {
            output->failed = 1;
            return (struct heif_error){heif_error_Memory_allocation_error, heif_suberror_Unspecified, "no memory for the output"};
        }
        output->bytes = grown;
        output->capacity = capacity;
    }
    memcpy(output->bytes + output->size, data, size);
    output->size += size;
    return ok;
}

static int any_transparent(const uint8_t *rgba, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (rgba[i * 4 + 3] != 255) return 1;
    return 0;
}

/* Copies the pixels into libheif's plane a band at a time through the hooks; 0 when told to stop. */
static int fill_plane(uint8_t *plane, int stride, const uint8_t *rgba, uint32_t width, uint32_t height, int alpha,
                      const ic_encode_hooks *hooks, uint8_t *band) {
    size_t row_bytes = (size_t)width * 4;
    for (uint32_t first = 0; first < height; first += IC_BAND_ROWS) {
        uint32_t count = height - first < IC_BAND_ROWS ? height - first : IC_BAND_ROWS;
        const uint8_t *rows = rgba + (size_t)first * row_bytes;
        if (hooks != NULL && hooks->band != NULL && hooks->band(hooks->context, rows, band, count, width) != 0) return 0;
        if (band != NULL) rows = band;
        for (uint32_t y = 0; y < count; y++) {
            const uint8_t *source = rows + (size_t)y * row_bytes;
            uint8_t *target = plane + (size_t)(first + y) * (size_t)stride;
            if (alpha) {
                memcpy(target, source, row_bytes);
            } else {
                for (uint32_t x = 0; x < width; x++) memcpy(target + x * 3, source + x * 4, 3);
            }
        }
    }
    return 1;
}

ic_status ic_encode_avif(const uint8_t *rgba, uint32_t width, uint32_t height,
                         const ic_encode_options *options, int speed, const ic_encode_hooks *hooks,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    *out = NULL;
    *out_size = 0;
    ic_set_message(message, message_size, "%s", "");
    /* AV1's limit is 65536 a side; libheif refuses more than 32768 when it reads one back. */
    if (rgba == NULL || width == 0 || height == 0 || width > 32768 || height > 32768) {
        ic_set_message(message, message_size, "AVIF sides are 1 to 32768 pixels, image is %ux%u", width, height);
        return IC_ENCODE_FAILED;
    }
    int quality = options->quality < 1 ? 1 : options->quality > 100 ? 100 : options->quality;
    speed = speed < 0 ? 0 : speed > 9 ? 9 : speed;
    int alpha = any_transparent(rgba, (size_t)width * height);
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL;
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    struct heif_encoding_options *encoding = heif_encoding_options_alloc();
    uint8_t *band = NULL;
    output_buffer output = {NULL, 0, 0, 0};
    ic_status status = IC_OK;
    struct heif_error error = {heif_error_Ok, heif_suberror_Unspecified, ""};
    const char *step = "setting up";
    if (ctx == NULL || nclx == NULL || encoding == NULL) {
        ic_set_message(message, message_size, "AVIF encoding failed: no memory for an encoder");
        status = IC_ENCODE_FAILED;
        goto done;
    }
    step = "finding the AV1 encoder";
    error = heif_context_get_encoder_for_format(ctx, heif_compression_AV1, &encoder);
    if (error.code != heif_error_Ok) goto failed;
    step = "setting the quality";
    error = heif_encoder_set_lossy_quality(encoder, quality);
    if (error.code != heif_error_Ok) goto failed;
    step = "setting the speed";
    error = heif_encoder_set_parameter_integer(encoder, "speed", speed);
    if (error.code != heif_error_Ok) goto failed;
    /* One thread: the worker encodes several photos side by side. */
    (void)heif_encoder_set_parameter_integer(encoder, "threads", 1);
    step = "making the picture";
    error = heif_image_create((int)width, (int)height, heif_colorspace_RGB, alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image);
    if (error.code != heif_error_Ok) goto failed;
    error = heif_image_add_plane(image, heif_channel_interleaved, (int)width, (int)height, 8);
    if (error.code != heif_error_Ok) goto failed;
    if (hooks != NULL && hooks->band != NULL && hooks->transforms && (band = malloc((size_t)width * 4 * IC_BAND_ROWS)) == NULL) {
        ic_set_message(message, message_size, "AVIF encoding failed: no memory for a band");
        status = IC_ENCODE_FAILED;
        goto done;
    }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    if (!fill_plane(plane, stride, rgba, width, height, alpha, hooks, band)) {
        ic_set_message(message, message_size, "AVIF encoding stopped");
        status = IC_STOPPED;
        goto done;
    }
    if (options->icc.size > 0) {
        step = "attaching the ICC profile";
        error = heif_image_set_raw_color_profile(image, "prof", options->icc.bytes, options->icc.size);
        if (error.code != heif_error_Ok) goto failed;
    }
    nclx->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
    nclx->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
    nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
    nclx->full_range_flag = 1;
    encoding->output_nclx_profile = nclx;
    encoding->save_two_colr_boxes_when_ICC_and_nclx_available = 1;
    encoding->save_alpha_channel = (uint8_t)alpha;
    step = "compressing";
    error = heif_context_encode_image(ctx, image, encoder, encoding, &handle);
    if (error.code != heif_error_Ok) goto failed;
    if (options->exif.size > 0) {
        step = "adding EXIF";
        error = heif_context_add_exif_metadata(ctx, handle, options->exif.bytes, (int)options->exif.size);
        if (error.code != heif_error_Ok) goto failed;
    }
    if (options->xmp.size > 0) {
        step = "adding XMP";
        error = heif_context_add_XMP_metadata(ctx, handle, options->xmp.bytes, (int)options->xmp.size);
        if (error.code != heif_error_Ok) goto failed;
    }
    step = "writing the file";
    struct heif_writer writer = {1, write_output};
    error = heif_context_write(ctx, &writer, &output);
    if (error.code != heif_error_Ok || output.failed) goto failed;
    *out = output.bytes;
    *out_size = output.size;
    output.bytes = NULL;
    goto done;
failed:
    ic_set_message(message, message_size, "AVIF encoding failed while %s: %s", step, error.message);
    status = IC_ENCODE_FAILED;
done:
    free(output.bytes);
    free(band);
    if (handle != NULL) heif_image_handle_release(handle);
    if (image != NULL) heif_image_release(image);
    if (encoder != NULL) heif_encoder_release(encoder);
    heif_encoding_options_free(encoding);
    heif_nclx_color_profile_free(nclx);
    if (ctx != NULL) heif_context_free(ctx);
    return status;
}
