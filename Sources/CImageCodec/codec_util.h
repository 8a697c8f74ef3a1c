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

/*
 * malloc for a decoded image's pixels (freed with free). Large buffers are advised onto
 * transparent huge pages where the kernel offers them on request: a 12-megapixel image is
 * then faulted in as ~24 huge pages instead of ~12,000 small ones, which saves ~10% of a
 * JPEG decode + encode. Content is uninitialised, as with malloc.
 */
void *ic_alloc_pixels(size_t byte_count);

/*
 * What every decoder does first: clears `out` and the message, and refuses empty input
 * (IC_EMPTY, with its message). IC_OK when there are bytes to decode.
 */
ic_status ic_start_decode(const uint8_t *data, size_t size, ic_image *out, char *message, size_t message_size);

/* Puts "`format` `part`: " before the message already in the buffer (a reason from a shared helper). */
void ic_prefix_message(char *message, size_t message_size, const char *format, const char *part);

/*
 * An EXIF item or box (HEIF's `Exif` item, JPEG XL's `Exif` box) starts with the big-endian offset
 * of its TIFF header: moves the TIFF structure to the front of the malloc'd bytes, or frees them
 * and leaves NULL when there is none.
 */
void ic_exif_from_item(uint8_t **exif, size_t *size);

/* Metadata larger than this (an EXIF or XMP item or box) is left out rather than read. */
#define IC_MAX_METADATA_BYTES ((size_t)4 << 20)

/* Whether the options ask to shrink a width × height image (see ic_decode_options). */
int ic_wants_reduction(const ic_decode_options *options, uint32_t width, uint32_t height);

#endif
