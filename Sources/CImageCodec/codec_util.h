#ifndef IMAGE_CODEC_UTIL_H
#define IMAGE_CODEC_UTIL_H

/* Helpers shared by the codec files; not part of the public header. */

#include "image_codec.h"

/* printf into the caller's message buffer; tolerates a NULL or empty buffer. */
void ic_set_message(char *message, size_t message_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Validates decoded dimensions before allocation: zero sides are corrupt,
 * more than `max_pixels` pixels or a byte count overflowing size_t is too large.
 * On IC_OK stores width * height * 4 in `*byte_count`.
 */
ic_status ic_check_size(uint64_t width, uint64_t height, uint64_t max_pixels,
                        size_t *byte_count, char *message, size_t message_size);

#endif
