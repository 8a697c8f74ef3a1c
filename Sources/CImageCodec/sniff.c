#include "image_codec.h"

#include <string.h>

ic_format ic_sniff(const uint8_t *data, size_t size) {
    static const uint8_t jpeg_magic[3] = {0xFF, 0xD8, 0xFF};
    static const uint8_t png_magic[8] = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A};
    if (data == NULL) return IC_FORMAT_UNKNOWN;
    if (size >= sizeof jpeg_magic && memcmp(data, jpeg_magic, sizeof jpeg_magic) == 0)
        return IC_FORMAT_JPEG;
    if (size >= sizeof png_magic && memcmp(data, png_magic, sizeof png_magic) == 0)
        return IC_FORMAT_PNG;
    /* RIFF, the file's size, WEBP. */
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0)
        return IC_FORMAT_WEBP;
    return IC_FORMAT_UNKNOWN;
}
