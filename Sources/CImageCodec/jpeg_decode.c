#include "codec_util.h"
#include "colour.h"
#include "jpeg_error.h"
#include "reduce.h"

#include <jerror.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Everything the decode touches lives here, so nothing is an indeterminate local after longjmp. */
typedef struct {
    struct jpeg_decompress_struct cinfo;
    ic_jpeg_error err;
    struct jpeg_progress_mgr progress;
    const ic_decode_options *options;
    uint8_t *pixels;
    ic_reducer reducer; /* when shrinking while decoding */
    uint8_t *band;      /* rows decoded before they go into the reducer */
    ic_colour *colour;  /* a CMYK photo's profile, converting it to sRGB */
    char *message;
    size_t message_size;
    int reading_rows; /* inside the jpeg_read_scanlines loop of a single-scan file */
    int rows_done;    /* every row is decoded */
    int eof_at_end;   /* data ran out while the last rows were being decoded */
    int truncated;    /* failed because data ran out */
    int stopped;      /* options->should_stop said so */
} decode_job;

/*
 * The scans from the first one's data to the end of the image (FF D9; what a camera appends after
 * it, such as a second picture, is not this image's): every FF DA there starts one, since
 * entropy-coded data escapes FF (FF 00) and has no other markers than restarts. A pass of memchr,
 * so a file of thousands of scans is refused before the first is decoded.
 */
static unsigned count_scans(const uint8_t *from, const uint8_t *end) {
    unsigned scans = 1;
    while (from < end && (from = memchr(from, 0xFF, (size_t)(end - from))) != NULL && from + 1 < end) {
        if (from[1] == 0xD9) break;
        if (from[1] == 0xDA) scans++;
        from += 1;
    }
    return scans;
}

static void fail_truncated(decode_job *job) {
    job->truncated = 1;
    longjmp(job->err.jump, 1);
}

/*
 * On running out of data libjpeg only warns, then pads with grey. That is a
 * failure, except when the file merely lacks its EOI marker: the Huffman
 * decoder reads ahead and meets the end of data while decoding the last rows,
 * which is harmless unless it then needs bits that are not there (HIT_MARKER).
 * (Arithmetic-coded files give no HIT_MARKER, so a cut inside their last
 * rows slips through; they are rare.)
 */
static void on_message(j_common_ptr common, int level) {
    if (level >= 0) return; /* trace output */
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    decode_job *job = cinfo->client_data;
    common->err->num_warnings++;
    switch (common->err->msg_code) {
    case JWRN_JPEG_EOF: {
        if (job->rows_done) return;
        /* Decoding runs up to an iMCU row or so ahead of output; allow a little slack. */
        JDIMENSION last_rows = 3 * (JDIMENSION)cinfo->max_v_samp_factor * DCTSIZE;
        if (job->reading_rows && cinfo->output_scanline + last_rows >= cinfo->output_height) {
            job->eof_at_end = 1;
            return;
        }
        fail_truncated(job);
        break;
    }
    case JWRN_HIT_MARKER:
        if (job->eof_at_end) fail_truncated(job);
        break;
    default: /* other corruption warnings are tolerated */
        break;
    }
}

/* libjpeg's progress monitor: called between scans and for each band of rows read. */
static void limit_scans(j_common_ptr cinfo) {
    if (((j_decompress_ptr)cinfo)->input_scan_number > IC_MAX_JPEG_SCANS)
        longjmp(((ic_jpeg_error *)cinfo->err)->jump, 1);
    decode_job *job = cinfo->client_data;
    if (job->options->should_stop != NULL && job->options->should_stop(job->options->stop_context)) {
        job->stopped = 1;
        longjmp(((ic_jpeg_error *)cinfo->err)->jump, 1);
    }
}

/* 8-bit a * b / 255, rounded. */
static inline uint8_t mul255(unsigned a, unsigned b) {
    unsigned v = a * b + 128;
    return (uint8_t)((v + (v >> 8)) >> 8);
}

/* In place: CMYK (4 bytes per pixel) to RGBA. Adobe files store the inks inverted. */
static void cmyk_to_rgba(uint8_t *p, size_t pixel_count, int adobe_inverted) {
    for (size_t i = 0; i < pixel_count; i++, p += 4) {
        unsigned c = p[0], m = p[1], y = p[2], k = p[3];
        if (!adobe_inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        p[0] = mul255(c, k);
        p[1] = mul255(m, k);
        p[2] = mul255(y, k);
        p[3] = 255;
    }
}

/* CMYK to sRGB: by the photo's profile when it has a CMYK one, else by formula. */
static void cmyk_to_srgb(decode_job *job, uint8_t *pixels, size_t pixel_count) {
    if (job->colour != NULL) ic_colour_apply(job->colour, pixels, pixel_count);
    else cmyk_to_rgba(pixels, pixel_count, job->cinfo.saw_Adobe_marker);
}

static ic_status failure_status(decode_job *job) {
    struct jpeg_error_mgr *pub = &job->err.pub;
    if (job->stopped) {
        ic_set_message(job->message, job->message_size, "JPEG decode stopped");
        return IC_STOPPED;
    }
    if (job->truncated) {
        ic_set_message(job->message, job->message_size, "JPEG data is truncated");
        return IC_CORRUPT;
    }
    if (job->cinfo.input_scan_number > IC_MAX_JPEG_SCANS) {
        ic_set_message(job->message, job->message_size, "JPEG has more than %d scans", IC_MAX_JPEG_SCANS);
        return IC_CORRUPT;
    }
    long limit = job->cinfo.mem != NULL ? job->cinfo.mem->max_memory_to_use : 0;
    if (limit > 0 && (pub->msg_code == JERR_NO_BACKING_STORE || pub->msg_code == JERR_OUT_OF_MEMORY)) {
        ic_set_message(job->message, job->message_size, "JPEG decoder needs more than the %ld MiB of memory it was granted",
                       limit >> 20);
        return IC_TOO_LARGE;
    }
    if (pub->msg_code == JERR_IMAGE_TOO_BIG || pub->msg_code == JERR_OUT_OF_MEMORY) {
        ic_set_message(job->message, job->message_size, "JPEG is too large: %s", job->err.message);
        return IC_TOO_LARGE;
    }
    ic_set_message(job->message, job->message_size, "JPEG data is corrupt: %s", job->err.message);
    return IC_CORRUPT;
}

/*
 * The largest DCT scaling (1/2, 1/4 or 1/8) that still leaves at least the target on both sides:
 * decoding at 1/8 skips most of the IDCT and colour work. The caller's target already leaves the
 * resampling kernel its margin (at least 1.9x after a DCT scale, which also hides the blocks'
 * edges; see the worker's ReductionPlan.loadTarget), so the scale needs none of its own.
 */
static void choose_scale(j_decompress_ptr cinfo, uint32_t target_width, uint32_t target_height) {
    unsigned denominator = 1;
    for (unsigned d = 8; d >= 2; d /= 2) {
        uint64_t w = (cinfo->image_width + d - 1) / d, h = (cinfo->image_height + d - 1) / d;
        if (w >= (uint64_t)target_width && h >= (uint64_t)target_height) {
            denominator = d;
            break;
        }
    }
    cinfo->scale_num = 1;
    cinfo->scale_denom = denominator;
}

/* Decodes the (scaled) rows a band at a time into the area reduction. */
static ic_status read_reduced(decode_job *job, const ic_decode_options *options, int cmyk, ic_image *out) {
    j_decompress_ptr cinfo = &job->cinfo;
    ic_status status = ic_reducer_init(&job->reducer, cinfo->output_width, cinfo->output_height,
                                       options->reduce_width, options->reduce_height);
    size_t stride = (size_t)cinfo->output_width * 4;
    if (status == IC_OK && (job->band = malloc(stride * 16)) == NULL) status = IC_TOO_LARGE;
    if (status != IC_OK) {
        ic_set_message(job->message, job->message_size, "no memory to reduce a %ux%u JPEG",
                       cinfo->output_width, cinfo->output_height);
        return status;
    }
    job->reading_rows = !jpeg_has_multiple_scans(cinfo);
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[16];
        for (int i = 0; i < 16; i++) rows[i] = job->band + (size_t)i * stride;
        JDIMENSION left = cinfo->output_height - cinfo->output_scanline;
        JDIMENSION count = jpeg_read_scanlines(cinfo, rows, left < 16 ? left : 16);
        if (count == 0) {
            ic_set_message(job->message, job->message_size, "JPEG decoder stopped early");
            return IC_CORRUPT;
        }
        if (cmyk) cmyk_to_srgb(job, job->band, (size_t)count * cinfo->output_width);
        for (JDIMENSION i = 0; i < count; i++) ic_reducer_push(&job->reducer, rows[i]);
    }
    job->rows_done = 1;
    jpeg_finish_decompress(cinfo);
    out->pixels = ic_reducer_take(&job->reducer);
    out->width = options->reduce_width;
    out->height = options->reduce_height;
    out->reduced = 1;
    return IC_OK;
}

static ic_status decode(decode_job *job, const uint8_t *data, size_t size,
                        const ic_decode_options *options, ic_image *out) {
    j_decompress_ptr cinfo = &job->cinfo;
    if (setjmp(job->err.jump)) return failure_status(job);

    jpeg_create_decompress(cinfo);
    cinfo->client_data = job;
    job->err.pub.emit_message = on_message;
    job->progress.progress_monitor = limit_scans;
    cinfo->progress = &job->progress;
    /* A buffer larger than this fails the decode (libjpeg has no backing store to spill to). */
    if (options->decoder_memory_limit > 0)
        cinfo->mem->max_memory_to_use = options->decoder_memory_limit > (uint64_t)LONG_MAX ? LONG_MAX : (long)options->decoder_memory_limit;
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    jpeg_read_header(cinfo, TRUE);
    /*
     * After the header, the source stands at the first scan's data. Only a file decoded scan by
     * scan is counted: one whose first scan carries every component (baseline, not progressive)
     * is decoded from that scan alone, and libjpeg refuses a scan after it (JERR_EOI_EXPECTED).
     */
    unsigned scans = jpeg_has_multiple_scans(cinfo) ? count_scans(cinfo->src->next_input_byte, data + size) : 1;
    if (scans > IC_MAX_JPEG_SCANS) {
        ic_set_message(job->message, job->message_size, "JPEG has %u scans, more than the %d a photo may have",
                       scans, IC_MAX_JPEG_SCANS);
        return IC_CORRUPT;
    }

    size_t byte_count = 0;
    ic_status status = ic_check_size(cinfo->image_width, cinfo->image_height, options->max_pixels,
                                     &byte_count, job->message, job->message_size);
    if (status != IC_OK) return status;

    int cmyk = 0;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo->out_color_space = JCS_EXT_RGBA;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK; /* libjpeg turns YCCK into CMYK */
        cmyk = 1;
        out->cmyk = 1;
        job->colour = ic_colour_open(options->icc, cinfo->saw_Adobe_marker);
        if (job->colour != NULL && ic_colour_kind(job->colour) != IC_PROFILE_CMYK) {
            ic_colour_close(job->colour);
            job->colour = NULL;
        }
        break;
    default:
        ic_set_message(job->message, job->message_size,
                       "JPEG colour space %d with %d components is not supported",
                       (int)cinfo->jpeg_color_space, cinfo->num_components);
        return IC_UNSUPPORTED;
    }

    if (options->fast_dct) {
        cinfo->dct_method = JDCT_IFAST;
        cinfo->do_fancy_upsampling = FALSE; /* chroma by replication, not interpolation */
    }
    int reducing = ic_wants_reduction(options, cinfo->image_width, cinfo->image_height);
    if (reducing) choose_scale(cinfo, options->reduce_width, options->reduce_height);
    jpeg_calc_output_dimensions(cinfo);
    JDIMENSION expected_width = cinfo->output_width, expected_height = cinfo->output_height;
    jpeg_start_decompress(cinfo);
    if (cinfo->output_width != expected_width || cinfo->output_height != expected_height ||
        cinfo->output_components != 4 || (reducing && (cinfo->output_width < options->reduce_width ||
                                                       cinfo->output_height < options->reduce_height))) {
        ic_set_message(job->message, job->message_size, "JPEG decoder produced an unexpected layout");
        return IC_CORRUPT;
    }
    /* A DCT scale that makes the target exactly leaves nothing to average. */
    int exact = reducing && cinfo->output_width == options->reduce_width && cinfo->output_height == options->reduce_height;
    if (reducing && !exact) {
        status = read_reduced(job, options, cmyk, out);
        if (status != IC_OK) return status;
        out->gray = cinfo->jpeg_color_space == JCS_GRAYSCALE;
        return IC_OK;
    }
    byte_count = (size_t)cinfo->output_width * cinfo->output_height * 4; /* scaled when exact */
    job->pixels = ic_alloc_pixels(byte_count);
    if (job->pixels == NULL) {
        ic_set_message(job->message, job->message_size, "no memory for %zu bytes of pixels", byte_count);
        return IC_TOO_LARGE;
    }

    size_t stride = (size_t)cinfo->output_width * 4;
    /* Multi-scan files consumed all their input in jpeg_start_decompress. */
    job->reading_rows = !jpeg_has_multiple_scans(cinfo);
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[16];
        JDIMENSION count = 0;
        while (count < 16 && cinfo->output_scanline + count < cinfo->output_height) {
            rows[count] = job->pixels + (size_t)(cinfo->output_scanline + count) * stride;
            count++;
        }
        /* A memory source never suspends, so no progress means a broken stream. */
        if (jpeg_read_scanlines(cinfo, rows, count) == 0) {
            ic_set_message(job->message, job->message_size, "JPEG decoder stopped early");
            return IC_CORRUPT;
        }
    }
    job->rows_done = 1;
    jpeg_finish_decompress(cinfo);

    if (cmyk) cmyk_to_srgb(job, job->pixels, byte_count / 4);
    out->pixels = job->pixels;
    out->width = cinfo->output_width;
    out->height = cinfo->output_height;
    out->gray = cinfo->jpeg_color_space == JCS_GRAYSCALE;
    out->reduced = exact;
    job->pixels = NULL;
    return IC_OK;
}

ic_status ic_decode_jpeg(const uint8_t *data, size_t size, const ic_decode_options *options,
                         ic_image *out, char *message, size_t message_size) {
    ic_status started = ic_start_decode(data, size, out, message, message_size);
    if (started != IC_OK) return started;
    decode_job job;
    memset(&job, 0, sizeof job);
    job.message = message;
    job.message_size = message_size;
    job.options = options;
    job.cinfo.err = ic_jpeg_error_init(&job.err);

    ic_status status = decode(&job, data, size, options, out);

    jpeg_destroy_decompress(&job.cinfo);
    free(job.pixels); /* non-NULL only on failure */
    free(job.band);
    ic_reducer_free(&job.reducer);
    ic_colour_close(job.colour);
    if (status != IC_OK) memset(out, 0, sizeof *out);
    return status;
}
