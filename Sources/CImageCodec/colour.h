#ifndef IMAGE_CODEC_COLOUR_H
#define IMAGE_CODEC_COLOUR_H

/* A conversion to sRGB by a photo's own ICC profile (Little CMS), for the decoders. */

#include "codec_util.h"

typedef struct ic_colour ic_colour;

/* A conversion from the profile's space (RGB, gray or CMYK: Adobe's inverted inks when
 * `adobe_inverted`) to sRGB, or NULL when the profile does not parse or convert. */
ic_colour *ic_colour_open(ic_blob icc, int adobe_inverted);

ic_profile_kind ic_colour_kind(const ic_colour *colour);

/* Converts RGBA pixels in place: RGB and CMYK (4 bytes a pixel) to sRGB, gray (from red) to sRGB's
 * gray; CMYK pixels get alpha 255. */
void ic_colour_apply(ic_colour *colour, uint8_t *pixels, size_t pixel_count);

void ic_colour_close(ic_colour *colour);

#endif
