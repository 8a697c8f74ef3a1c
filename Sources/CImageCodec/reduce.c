#include "reduce.h"

#include <stdlib.h>
#include <string.h>

ic_status ic_reducer_init(ic_reducer *r, uint32_t in_width, uint32_t in_height,
                          uint32_t out_width, uint32_t out_height) {
    memset(r, 0, sizeof *r);
    if (out_width == 0 || out_height == 0 || out_width > in_width || out_height > in_height) return IC_CORRUPT;
    r->in_width = in_width;
    r->in_height = in_height;
    r->out_width = out_width;
    r->out_height = out_height;
    r->taps = (in_width + out_width - 1) / out_width + 1;
    /* Zero-weight taps may reach past the last column: the sums are padded for them. */
    size_t sum_count = ((size_t)in_width + r->taps) * 4;
    r->first = malloc(sizeof *r->first * out_width);
    r->weights = calloc((size_t)out_width * r->taps, sizeof *r->weights);
    r->sums[0] = calloc(sum_count, sizeof(float));
    r->sums[1] = calloc(sum_count, sizeof(float));
    r->pixels = ic_alloc_pixels((size_t)out_width * out_height * 4);
    if (!r->first || !r->weights || !r->sums[0] || !r->sums[1] || !r->pixels) {
        ic_reducer_free(r);
        return IC_TOO_LARGE;
    }
    /* Positions in units of 1/out of an input pixel, so the weights are exact fractions. */
    uint64_t in = in_width, out = out_width;
    for (uint32_t o = 0; o < out_width; o++) {
        uint64_t lo = o * in, hi = (o + 1) * in;
        r->first[o] = (uint32_t)(lo / out);
        for (uint32_t k = 0; k < r->taps; k++) {
            uint64_t i = r->first[o] + k;
            uint64_t start = lo > i * out ? lo : i * out, end = hi < (i + 1) * out ? hi : (i + 1) * out;
            if (end > start) r->weights[(size_t)o * r->taps + k] = (float)((double)(end - start) / (double)in);
        }
    }
    return IC_OK;
}

/* sum += weight · row, over every channel. */
static void add_row(float *restrict sum, const uint8_t *restrict row, size_t count, float weight) {
    for (size_t i = 0; i < count; i++) sum[i] += weight * (float)row[i];
}

/* Output row `y` from its finished sum, resampled across; the sum is cleared for reuse. */
static void emit_row(ic_reducer *r, uint32_t y, float *sum) {
    uint8_t *target = r->pixels + (size_t)y * r->out_width * 4;
    for (uint32_t x = 0; x < r->out_width; x++) {
        const float *w = r->weights + (size_t)x * r->taps;
        const float *p = sum + (size_t)r->first[x] * 4;
        float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
        for (uint32_t k = 0; k < r->taps; k++, p += 4) {
            c0 += w[k] * p[0];
            c1 += w[k] * p[1];
            c2 += w[k] * p[2];
            c3 += w[k] * p[3];
        }
        uint8_t *q = target + (size_t)x * 4;
        q[0] = (uint8_t)(c0 + 0.5f < 255.f ? c0 + 0.5f : 255.f);
        q[1] = (uint8_t)(c1 + 0.5f < 255.f ? c1 + 0.5f : 255.f);
        q[2] = (uint8_t)(c2 + 0.5f < 255.f ? c2 + 0.5f : 255.f);
        q[3] = (uint8_t)(c3 + 0.5f < 255.f ? c3 + 0.5f : 255.f);
    }
    memset(sum, 0, (size_t)r->in_width * 4 * sizeof(float));
}

void ic_reducer_push(ic_reducer *r, const uint8_t *row) {
    if (r->rows_in >= r->in_height) return;
    uint64_t in = r->in_height, out = r->out_height, i = r->rows_in;
    size_t count = (size_t)r->in_width * 4;
    /* Input row i covers [i·out, (i + 1)·out); output row o covers [o·in, (o + 1)·in). */
    uint64_t first = i * out / in, last = ((i + 1) * out - 1) / in;
    for (uint64_t o = first; o <= last && o < out; o++) {
        uint64_t lo = o * in, hi = (o + 1) * in;
        uint64_t start = lo > i * out ? lo : i * out, end = hi < (i + 1) * out ? hi : (i + 1) * out;
        if (end > start) add_row(r->sums[o & 1], row, count, (float)((double)(end - start) / (double)in));
    }
    r->rows_in++;
    /* Output row `first` has had all its input once this row reaches its end. */
    if ((i + 1) * out >= (first + 1) * in) emit_row(r, (uint32_t)first, r->sums[first & 1]);
}

uint8_t *ic_reducer_take(ic_reducer *r) {
    if (r->rows_in < r->in_height) return NULL;
    uint8_t *pixels = r->pixels;
    r->pixels = NULL;
    return pixels;
}

void ic_reducer_free(ic_reducer *r) {
    free(r->first);
    free(r->weights);
    free(r->sums[0]);
    free(r->sums[1]);
    free(r->pixels);
    memset(r, 0, sizeof *r);
}

ic_status ic_finish_whole_image(ic_status status, uint8_t *pixels, uint32_t width, uint32_t height,
                                const ic_decode_options *options, const char *format, ic_image *out,
                                char *message, size_t message_size) {
    if (status == IC_OK && ic_wants_reduction(options, width, height)) {
        ic_reducer reducer;
        if (ic_reducer_init(&reducer, width, height, options->reduce_width, options->reduce_height) != IC_OK) {
            ic_set_message(message, message_size, "no memory to reduce a %ux%u %s", width, height, format);
            status = IC_TOO_LARGE;
        } else {
            for (uint32_t y = 0; y < height; y++) ic_reducer_push(&reducer, pixels + (size_t)y * width * 4);
            free(pixels);
            pixels = ic_reducer_take(&reducer);
            ic_reducer_free(&reducer);
            width = options->reduce_width;
            height = options->reduce_height;
            out->reduced = 1;
        }
    }
    if (status != IC_OK) {
        free(pixels);
        memset(out, 0, sizeof *out);
        return status;
    }
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    return IC_OK;
}
