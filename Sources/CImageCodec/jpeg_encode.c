#include "codec_util.h"
#include "jpeg_error.h"

#include <jerror.h>

#include <stdlib.h>
#include <string.h>

/*
 * A growing malloc'd output. libjpeg's own memory destination (jpeg_mem_dest) frees its buffer
 * when it grows it but tells the caller the new address only when compression finishes, so
 * after an abort or an error part way the caller holds a pointer that was already freed; this
 * one always knows its current buffer.
 */
typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *data;
    size_t capacity;
} growing_output;

static void output_init(j_compress_ptr cinfo) {
    growing_output *out = (growing_output *)cinfo->dest;
    out->capacity = 64 * 1024;
    out->data = malloc(out->capacity);
    if (out->data == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    out->pub.next_output_byte = out->data;
    out->pub.free_in_buffer = out->capacity;
}

static boolean output_grow(j_compress_ptr cinfo) {
    growing_output *out = (growing_output *)cinfo->dest;
    size_t used = out->capacity;
    uint8_t *grown = used <= SIZE_MAX / 2 ? realloc(out->data, used * 2) : NULL;
    if (grown == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1); /* out->data stays valid */
    out->data = grown;
    out->capacity = used * 2;
    out->pub.next_output_byte = grown + used;
    out->pub.free_in_buffer = out->capacity - used;
    return TRUE;
}

static void output_term(j_compress_ptr cinfo) { (void)cinfo; }

typedef struct {
    struct jpeg_compress_struct cinfo;
    ic_jpeg_error err;
    growing_output output;
    uint8_t *band; /* IC_BAND_ROWS transformed rows, when the hooks transform */
    uint8_t *gray; /* IC_BAND_ROWS rows of one byte per pixel, for a grayscale output */
} encode_job;

/* The most an APP segment carries after its 2-byte length. */
#define SEGMENT_PAYLOAD_MAX 65533

/* An APP1 segment of `prefix` (with its NUL) followed by `blob`, when it fits in one segment. */
static void write_app1(j_compress_ptr cinfo, const char *prefix, size_t prefix_size, ic_blob blob) {
    if (blob.size == 0 || blob.bytes == NULL || blob.size > SEGMENT_PAYLOAD_MAX - prefix_size) return;
    jpeg_write_m_header(cinfo, JPEG_APP0 + 1, (unsigned)(prefix_size + blob.size));
    for (size_t i = 0; i < prefix_size; i++) jpeg_write_m_byte(cinfo, (unsigned char)prefix[i]);
    for (size_t i = 0; i < blob.size; i++) jpeg_write_m_byte(cinfo, blob.bytes[i]);
}

static void write_metadata(j_compress_ptr cinfo, const ic_encode_options *options) {
    static const char exif_prefix[] = "Exif\0"; /* with the string's NUL: Exif\0\0 */
    static const char xmp_prefix[] = "http://ns.adobe.com/xap/1.0/";
    write_app1(cinfo, exif_prefix, sizeof exif_prefix, options->exif);
    write_app1(cinfo, xmp_prefix, sizeof xmp_prefix, options->xmp);
    /* libjpeg-turbo splits a profile over as many APP2 segments as it needs. */
    if (options->icc.size > 0 && options->icc.bytes != NULL && options->icc.size <= UINT32_MAX)
        jpeg_write_icc_profile(cinfo, options->icc.bytes, (unsigned)options->icc.size);
}

static ic_status encode(encode_job *job, const uint8_t *rgba, uint32_t width, uint32_t height,
                        const ic_encode_options *options, const ic_encode_hooks *hooks, char *message,
                        size_t message_size) {
    int quality = options->quality < 1 ? 1 : options->quality > 100 ? 100 : options->quality;
    j_compress_ptr cinfo = &job->cinfo;
    if (setjmp(job->err.jump)) {
        ic_set_message(message, message_size, "JPEG encoding failed: %s", job->err.message);
        return IC_ENCODE_FAILED;
    }
    jpeg_create_compress(cinfo);
    job->output.pub.init_destination = output_init;
    job->output.pub.empty_output_buffer = output_grow;
    job->output.pub.term_destination = output_term;
    cinfo->dest = &job->output.pub;

    cinfo->image_width = width;
    cinfo->image_height = height;
    int gray = options->gray;
    cinfo->input_components = gray ? 1 : 4;
    cinfo->in_color_space = gray ? JCS_GRAYSCALE : JCS_EXT_RGBA; /* alpha is ignored */
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    /* The fast DCT's rounding shows above quality 90 (libjpeg's own advice). */
    if (options->fast_dct && quality <= 90) cinfo->dct_method = JDCT_IFAST;
    if (!gray) {
        /*
         * 4:2:0 (full-resolution luma, chroma halved both ways) suits photos; 4:4:4 keeps the
         * colour of edges in graphics and text, and is what high qualities ask for; 4:2:2 halves
         * chroma across only. Automatic: 4:4:4 above quality 90 (libvips switches at 90 itself;
         * here the default quality 90 keeps the smaller, faster 4:2:0). The luma component's
         * factors say it: chroma is sampled once per luma block of h × v.
         */
        int full = options->chroma == IC_CHROMA_444 || (options->chroma == IC_CHROMA_AUTO && quality > 90);
        cinfo->comp_info[0].h_samp_factor = full ? 1 : 2;
        cinfo->comp_info[0].v_samp_factor = full || options->chroma == IC_CHROMA_422 ? 1 : 2;
        cinfo->comp_info[1].h_samp_factor = cinfo->comp_info[1].v_samp_factor = 1;
        cinfo->comp_info[2].h_samp_factor = cinfo->comp_info[2].v_samp_factor = 1;
    }

    size_t stride = (size_t)width * 4;
    int transforms = hooks != NULL && hooks->band != NULL && hooks->transforms;
    if ((transforms && (job->band = malloc(stride * IC_BAND_ROWS)) == NULL) ||
        (gray && (job->gray = malloc((size_t)width * IC_BAND_ROWS)) == NULL)) {
        ic_set_message(message, message_size, "JPEG encoding failed: no memory for a band of rows");
        return IC_ENCODE_FAILED;
    }

    jpeg_start_compress(cinfo, TRUE);
    write_metadata(cinfo, options);
    while (cinfo->next_scanline < cinfo->image_height) {
        JDIMENSION first = cinfo->next_scanline;
        JDIMENSION count = cinfo->image_height - first < IC_BAND_ROWS ? cinfo->image_height - first : IC_BAND_ROWS;
        const uint8_t *source = rgba + (size_t)first * stride;
        if (hooks != NULL && hooks->band != NULL &&
            hooks->band(hooks->context, source, transforms ? job->band : NULL, count, width) != 0) {
            jpeg_abort_compress(cinfo);
            ic_set_message(message, message_size, "JPEG encoding stopped");
            return IC_STOPPED;
        }
        /* libjpeg only reads input rows; its row type just is not const. */
        const uint8_t *band = transforms ? job->band : source;
        JSAMPROW rows[IC_BAND_ROWS];
        if (gray) {
            for (JDIMENSION i = 0; i < count; i++) {
                const uint8_t *pixel = band + (size_t)i * stride;
                uint8_t *target = job->gray + (size_t)i * width;
                for (uint32_t x = 0; x < width; x++) target[x] = pixel[(size_t)x * 4];
                rows[i] = target;
            }
        } else {
            for (JDIMENSION i = 0; i < count; i++) rows[i] = (JSAMPROW)(band + (size_t)i * stride);
        }
        jpeg_write_scanlines(cinfo, rows, count);
    }
    jpeg_finish_compress(cinfo);
    return IC_OK;
}

ic_status ic_encode_jpeg(const uint8_t *rgba, uint32_t width, uint32_t height,
                         const ic_encode_options *options, const ic_encode_hooks *hooks,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    *out = NULL;
    *out_size = 0;
    ic_set_message(message, message_size, "%s", "");
    if (rgba == NULL || width == 0 || height == 0) {
        ic_set_message(message, message_size, "cannot encode a %ux%u image", width, height);
        return IC_ENCODE_FAILED;
    }
    if (width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        ic_set_message(message, message_size, "JPEG sides are limited to %ld pixels, image is %ux%u",
                       (long)JPEG_MAX_DIMENSION, width, height);
        return IC_ENCODE_FAILED;
    }
    encode_job job;
    memset(&job, 0, sizeof job);
    job.cinfo.err = ic_jpeg_error_init(&job.err);

    ic_status status = encode(&job, rgba, width, height, options, hooks, message, message_size);

    jpeg_destroy_compress(&job.cinfo);
    free(job.band);
    free(job.gray);
    if (status == IC_OK) {
        *out = job.output.data;
        *out_size = job.output.capacity - job.output.pub.free_in_buffer;
    } else {
        free(job.output.data);
    }
    return status;
}
