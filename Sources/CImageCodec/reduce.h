#ifndef IMAGE_CODEC_REDUCE_H
#define IMAGE_CODEC_REDUCE_H

/*
 * Shrinks an image by exact area averaging as its rows arrive, so a decoder can hand rows over
 * one by one and no full-size image is ever made. The weights are those of the worker's
 * `resize` filter (ResampleAxis): output pixel o covers input [o·in/out, (o + 1)·in/out) and each
 * input pixel weighs the share of that interval it covers. Each input row is added into the
 * (at most two) output rows it overlaps; an output row is resampled across and written once its
 * last input row has arrived.
 */

#include "codec_util.h"

typedef struct {
    uint32_t in_width, in_height, out_width, out_height;
    uint32_t taps;     /* input columns per output column */
    uint32_t *first;   /* per output column: its first input column */
    float *weights;    /* per output column: `taps` weights */
    float *sums[2];    /* input-width rows being summed, for output rows of each parity */
    uint32_t rows_in;  /* input rows added so far */
    uint8_t *pixels;   /* the output, out_width × out_height RGBA */
} ic_reducer;

/* Sets up a reduction (out <= in on both axes); IC_TOO_LARGE when memory runs out. */
ic_status ic_reducer_init(ic_reducer *reducer, uint32_t in_width, uint32_t in_height,
                          uint32_t out_width, uint32_t out_height);

/* Adds the next input row (in_width RGBA pixels). Rows past the last are ignored. */
void ic_reducer_push(ic_reducer *reducer, const uint8_t *row);

/* Hands the output over (the caller frees it) once every row was pushed; NULL before that. */
uint8_t *ic_reducer_take(ic_reducer *reducer);

/* Frees what the reducer holds (the output too, unless taken). */
void ic_reducer_free(ic_reducer *reducer);

/*
 * The end of a decoder that made the whole image first: hands `pixels` (width × height RGBA,
 * owned by the caller until now) to `out`, reduced first where the options ask. Takes `status`
 * so far; on anything but IC_OK frees the pixels, clears `out` and returns the failure
 * (`format` names the image in the reason when memory runs out).
 */
ic_status ic_finish_whole_image(ic_status status, uint8_t *pixels, uint32_t width, uint32_t height,
                                const ic_decode_options *options, const char *format, ic_image *out,
                                char *message, size_t message_size);

#endif
