#include "jxl_util.h"
#include "reduce.h"

#include <stdlib.h>
#include <string.h>

/*
 * JPEG XL through libjxl, bare codestream or ISO-BMFF container: the first frame only (an
 * animation's later frames are never decoded, as for GIF), turned upright by libjxl from the
 * header's orientation, any bit depth or float scaled to 8-bit RGBA by libjxl (gray repeated in
 * red, green and blue, alpha unpremultiplied). The file is fed in chunks: `should_stop` is asked
 * between libjxl's events and between chunks.
 */

ic_status ic_decode_jxl(const uint8_t *data, size_t size, const ic_decode_options *options,
                        ic_image *out, char *message, size_t message_size) {
    ic_status status = ic_start_decode(data, size, out, message, message_size);
    if (status != IC_OK) return status;
    ic_jxl_reader reader;
    status = ic_jxl_open(&reader, data, size, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE, message, message_size);
    if (status != IC_OK) return status;
    const JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    uint32_t width = 0, height = 0;
    size_t byte_count = 0;
    uint8_t *pixels = NULL;
    int have_info = 0;
    while (status == IC_OK) {
        if (options->should_stop != NULL && options->should_stop(options->stop_context)) {
            ic_set_message(message, message_size, "JPEG XL decoding stopped");
            status = IC_STOPPED;
            break;
        }
        JxlDecoderStatus event = ic_jxl_next(&reader, have_info ? "image data" : "header", message, message_size);
        if (event == JXL_DEC_NEED_MORE_INPUT) continue;
        if (event == JXL_DEC_ERROR) {
            status = IC_CORRUPT;
        } else if (event == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo info;
            if (JxlDecoderGetBasicInfo(reader.decoder, &info) != JXL_DEC_SUCCESS) {
                ic_set_message(message, message_size, "JPEG XL header is unreadable");
                status = IC_CORRUPT;
                break;
            }
            have_info = 1;
            out->gray = info.num_color_channels == 1;
            ic_jxl_upright_size(&info, &width, &height);
            /* Before libjxl allocates its frame: it does so only once it is asked for pixels. */
            status = ic_check_size(width, height, options->max_pixels, &byte_count, message, message_size);
            if (status != IC_OK) ic_prefix_message(message, message_size, "JPEG XL", "header");
        } else if (event == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            if (JxlDecoderImageOutBufferSize(reader.decoder, &format, &needed) != JXL_DEC_SUCCESS || needed != byte_count) {
                ic_set_message(message, message_size, "JPEG XL frame is not the %ux%u image its header declares", width, height);
                status = IC_CORRUPT;
                break;
            }
            pixels = ic_alloc_pixels(byte_count);
            if (pixels == NULL) {
                ic_set_message(message, message_size, "no memory for %zu bytes of pixels", byte_count);
                status = IC_TOO_LARGE;
                break;
            }
            if (JxlDecoderSetImageOutBuffer(reader.decoder, &format, pixels, byte_count) != JXL_DEC_SUCCESS) {
                ic_set_message(message, message_size, "JPEG XL decoder refused the output buffer");
                status = IC_CORRUPT;
            }
        } else if (event == JXL_DEC_FULL_IMAGE) {
            break; /* the first frame: later ones are never decoded */
        } else {
            /* JXL_DEC_SUCCESS before a full image, or an event not asked for. */
            ic_set_message(message, message_size, "JPEG XL %s ended before the first frame", have_info ? "image data" : "header");
            status = IC_CORRUPT;
        }
    }
    ic_jxl_close(&reader);
    return ic_finish_whole_image(status, pixels, width, height, options, "JPEG XL", out, message, message_size);
}
