#include "jxl_util.h"

#include <stdlib.h>
#include <string.h>

/*
 * Whether the decoded pixels are plain sRGB (or sRGB's gray), which needs no profile: libjxl
 * would make one up for them, and an output would carry it for nothing.
 */
static int pixels_are_srgb(JxlDecoder *decoder) {
    JxlColorEncoding colour;
    if (JxlDecoderGetColorAsEncodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &colour) != JXL_DEC_SUCCESS) return 0;
    if (colour.white_point != JXL_WHITE_POINT_D65 || colour.transfer_function != JXL_TRANSFER_FUNCTION_SRGB) return 0;
    return colour.color_space == JXL_COLOR_SPACE_GRAY ||
           (colour.color_space == JXL_COLOR_SPACE_RGB && colour.primaries == JXL_PRIMARIES_SRGB);
}

/* The ICC profile of the pixels as decoded (libjxl converts an XYB image to it), or none for sRGB. */
static void read_profile(JxlDecoder *decoder, ic_header *out) {
    size_t size = 0;
    if (pixels_are_srgb(decoder)) return;
    if (JxlDecoderGetICCProfileSize(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size) != JXL_DEC_SUCCESS || size == 0) return;
    uint8_t *icc = malloc(size);
    if (icc == NULL) return;
    if (JxlDecoderGetColorAsICCProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, icc, size) != JXL_DEC_SUCCESS) {
        free(icc);
        return;
    }
    out->icc = icc;
    out->icc_size = size;
}

ic_status ic_read_jxl_header(const uint8_t *data, size_t size, ic_header *out, char *message, size_t message_size) {
    ic_jxl_reader reader;
    ic_status status = ic_jxl_open(&reader, data, size, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING, message, message_size);
    if (status != IC_OK) return status;
    JxlBasicInfo info;
    int have_info = 0;
    for (;;) {
        JxlDecoderStatus event = ic_jxl_next(&reader, have_info ? "colour encoding" : "header", message, message_size);
        if (event == JXL_DEC_NEED_MORE_INPUT) continue;
        if (event == JXL_DEC_BASIC_INFO) {
            if (JxlDecoderGetBasicInfo(reader.decoder, &info) != JXL_DEC_SUCCESS) {
                ic_set_message(message, message_size, "JPEG XL header is unreadable");
                status = IC_CORRUPT;
                break;
            }
            have_info = 1;
            continue;
        }
        if (event == JXL_DEC_COLOR_ENCODING) {
            read_profile(reader.decoder, out);
            break;
        }
        if (event != JXL_DEC_ERROR) ic_set_message(message, message_size, "JPEG XL header ended early");
        status = IC_CORRUPT;
        break;
    }
    if (status == IC_OK && have_info) {
        ic_jxl_upright_size(&info, &out->width, &out->height);
        out->orientation = 0; /* libjxl turns the pixels itself */
        out->bit_depth = (uint16_t)info.bits_per_sample;
        out->has_alpha = info.alpha_bits > 0;
        /*
         * libjxl 0.7 decodes a 12-megapixel photo holding 0.3 (lossless) to 3 (lossy) bytes a
         * pixel besides the output, but 33 for a lossy one with alpha (measured, docs/images.md):
         * counted as a float frame of four channels (16), 36 with alpha, and the whole RGBA8
         * image a reduction starts from (4).
         */
        uint64_t per_pixel = (out->has_alpha ? 36 : 16) + 4;
        out->scratch_bytes = (uint64_t)out->width * out->height * per_pixel;
    }
    ic_jxl_close(&reader);
    return status;
}
