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

/*
 * EXIF and XMP from the container's `Exif` and `xml ` boxes, wherever they lie and whether or not
 * cjxl Brotli-compressed them (`brob`); the first of each. A pass of its own that subscribes to
 * boxes only, so libjxl walks past the codestream without decoding it (well under a millisecond).
 * A bare codestream has no boxes; a broken box, or one past IC_MAX_METADATA_BYTES, is left out
 * and never fails the header.
 */
static void read_metadata_boxes(const uint8_t *data, size_t size, ic_header *out) {
    if (size < 12 || memcmp(data + 4, "JXL ", 4) != 0) return; /* a bare codestream */
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    if (decoder == NULL) return;
    if (JxlDecoderSubscribeEvents(decoder, JXL_DEC_BOX) != JXL_DEC_SUCCESS ||
        JxlDecoderSetDecompressBoxes(decoder, JXL_TRUE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(decoder, data, size) != JXL_DEC_SUCCESS) {
        JxlDecoderDestroy(decoder);
        return;
    }
    JxlDecoderCloseInput(decoder);
    uint8_t *box = NULL;         /* the box being read, when it is wanted */
    uint8_t **kept = NULL;       /* where it goes: &out->exif or &out->xmp */
    size_t *kept_size = NULL, capacity = 0;
    for (;;) {
        JxlDecoderStatus event = JxlDecoderProcessInput(decoder);
        if (box != NULL) {
            /* The buffer handed to libjxl always runs to `capacity`: what it left is unwritten. */
            size_t written = capacity - JxlDecoderReleaseBoxBuffer(decoder);
            if (event == JXL_DEC_BOX_NEED_MORE_OUTPUT) {
                uint8_t *grown = capacity < IC_MAX_METADATA_BYTES ? realloc(box, capacity * 4) : NULL;
                if (grown == NULL) break; /* too large: left out below */
                box = grown;
                capacity *= 4;
                JxlDecoderSetBoxBuffer(decoder, box + written, capacity - written);
                continue;
            }
            if (written > 0 && (event == JXL_DEC_BOX || event == JXL_DEC_SUCCESS)) {
                *kept = box;
                *kept_size = written;
            } else {
                free(box);
            }
            box = NULL;
        }
        if (event != JXL_DEC_BOX) break; /* the end of the file, or an error */
        JxlBoxType type;
        if (JxlDecoderGetBoxType(decoder, type, JXL_TRUE) != JXL_DEC_SUCCESS) break;
        if (memcmp(type, "Exif", 4) == 0 && out->exif == NULL) kept = &out->exif, kept_size = &out->exif_size;
        else if (memcmp(type, "xml ", 4) == 0 && out->xmp == NULL) kept = &out->xmp, kept_size = &out->xmp_size;
        else continue;
        capacity = 4096;
        if ((box = malloc(capacity)) != NULL && JxlDecoderSetBoxBuffer(decoder, box, capacity) != JXL_DEC_SUCCESS) {
            free(box);
            box = NULL;
        }
    }
    free(box); /* stopped inside a box */
    JxlDecoderDestroy(decoder);
    if (out->exif != NULL) ic_exif_from_item(&out->exif, &out->exif_size);
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
    if (status == IC_OK) read_metadata_boxes(data, size, out);
    return status;
}
