#ifndef IMAGE_CODEC_JXL_UTIL_H
#define IMAGE_CODEC_JXL_UTIL_H

/* What the JPEG XL header reader and decoder share (jxl_reader.c). */

#include "codec_util.h"

#include <jxl/decode.h>

/* A single-threaded decoder fed the file in chunks, so a decode can be asked to stop between them. */
typedef struct {
    JxlDecoder *decoder;
    const uint8_t *data;
    size_t size, fed; /* bytes handed to libjxl so far */
} ic_jxl_reader;

/* Creates the decoder for these events, pixels turned upright by libjxl (orientation applied once, here). */
ic_status ic_jxl_open(ic_jxl_reader *reader, const uint8_t *data, size_t size, int events,
                      char *message, size_t message_size);

/*
 * The next event. JXL_DEC_NEED_MORE_INPUT: libjxl took what it could of the file so far and the
 * next chunk is now fed (a point to stop at); when the whole file was fed already, a truncated
 * file is JXL_DEC_ERROR instead. On JXL_DEC_ERROR `message` says what failed; `part` names what
 * was being read ("header", "image data").
 */
JxlDecoderStatus ic_jxl_next(ic_jxl_reader *reader, const char *part, char *message, size_t message_size);

/* The size as decoded (orientation applied): a side-turning orientation (5 to 8) swaps the sides. */
void ic_jxl_upright_size(const JxlBasicInfo *info, uint32_t *width, uint32_t *height);

void ic_jxl_close(ic_jxl_reader *reader);

#endif
