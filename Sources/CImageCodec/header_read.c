#include "codec_util.h"

#include <stdlib.h>
#include <string.h>

ic_status ic_read_heif_header(const uint8_t *data, size_t size, ic_header *out, char *message, size_t message_size);
ic_status ic_read_tiff_header(const uint8_t *data, size_t size, ic_header *out, char *message, size_t message_size);
ic_status ic_read_gif_header(const uint8_t *data, size_t size, ic_header *out, char *message, size_t message_size);
ic_status ic_read_jxl_header(const uint8_t *data, size_t size, ic_header *out, char *message, size_t message_size);

ic_status ic_read_header(ic_format format, const uint8_t *data, size_t size, ic_header *out,
                         char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    ic_set_message(message, message_size, "%s", "");
    if (data == NULL || size == 0) {
        ic_set_message(message, message_size, "image data is empty");
        return IC_EMPTY;
    }
    ic_status status;
    switch (format) {
    case IC_FORMAT_HEIF:
    case IC_FORMAT_AVIF: status = ic_read_heif_header(data, size, out, message, message_size); break;
    case IC_FORMAT_TIFF: status = ic_read_tiff_header(data, size, out, message, message_size); break;
    case IC_FORMAT_GIF: status = ic_read_gif_header(data, size, out, message, message_size); break;
    case IC_FORMAT_JXL: status = ic_read_jxl_header(data, size, out, message, message_size); break;
    default:
        ic_set_message(message, message_size, "no header reader for this format");
        return IC_UNSUPPORTED;
    }
    if (status != IC_OK) ic_header_free(out);
    return status;
}

void ic_header_free(ic_header *header) {
    free(header->icc);
    free(header->exif);
    free(header->xmp);
    header->icc = header->exif = header->xmp = NULL;
    header->icc_size = header->exif_size = header->xmp_size = 0;
}
