#ifndef IMAGE_CODEC_HEIF_UTIL_H
#define IMAGE_CODEC_HEIF_UTIL_H

/* What the HEIF decoder and header reader share; not part of the public header. */

#include "codec_util.h"

struct heif_context;
struct heif_image_handle;

/* Reads a HEIF or AVIF container from memory (not copied: `data` must outlive the context) and
 * finds its primary image. On IC_OK the caller releases both; otherwise `message` says which
 * part failed. */
ic_status ic_heif_open(const uint8_t *data, size_t size, struct heif_context **context,
                       struct heif_image_handle **handle, char *message, size_t message_size);

/* Refuses a file whose primary image is derived, through `dimg` and `auxl` references, from
 * itself or through a chain deeper than real files have (libheif would recurse without end);
 * `name` ("HEIF", "AVIF") starts the message. Reads only the boxes, before libheif does. */
ic_status ic_heif_check_references(const uint8_t *data, size_t size, const char *name, char *message, size_t message_size);

/* Refuses a file with a grid or overlay item whose canvas (its ImageGrid or ImageOverlay size,
 * which libheif allocates whole) is larger than `image_pixels`, the primary image's area. */
ic_status ic_heif_check_canvases(const uint8_t *data, size_t size, const char *name, uint64_t image_pixels,
                                 char *message, size_t message_size);

/* An RGB ICC profile (malloc'd) for an nclx box's primaries and transfer (ITU-T H.273 codes),
 * or NULL when they are sRGB's, unspecified, or not representable (PQ, HLG). */
uint8_t *ic_icc_from_nclx(int primaries, int transfer, size_t *size);

#endif
