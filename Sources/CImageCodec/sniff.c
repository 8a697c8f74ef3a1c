#include "image_codec.h"

#include <string.h>

static ic_format ic_sniff_heif(const uint8_t *data, size_t size);

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
    /* JPEG XL: a bare codestream's FF 0A, or the container's signature box `JXL `. */
    static const uint8_t jxl_box[12] = {0, 0, 0, 0x0C, 'J', 'X', 'L', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    if ((size >= 2 && data[0] == 0xFF && data[1] == 0x0A) || (size >= sizeof jxl_box && memcmp(data, jxl_box, sizeof jxl_box) == 0))
        return IC_FORMAT_JXL;
    if (size >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) return IC_FORMAT_GIF;
    /* Little- and big-endian TIFF, and BigTIFF. */
    if (size >= 4 && (memcmp(data, "II*\0", 4) == 0 || memcmp(data, "MM\0*", 4) == 0 ||
                      memcmp(data, "II+\0", 4) == 0 || memcmp(data, "MM\0+", 4) == 0))
        return IC_FORMAT_TIFF;
    return ic_sniff_heif(data, size);
}

/* An ISO-BMFF `ftyp` box first, its major and compatible brands naming AVIF or HEIF. */
static ic_format ic_sniff_heif(const uint8_t *data, size_t size) {
    if (size < 16 || memcmp(data + 4, "ftyp", 4) != 0) return IC_FORMAT_UNKNOWN;
    size_t box = (size_t)data[0] << 24 | (size_t)data[1] << 16 | (size_t)data[2] << 8 | data[3];
    if (box < 16 || box > size) box = size < 64 ? size : 64;
    static const char *heif_brands[] = {"heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"};
    ic_format found = IC_FORMAT_UNKNOWN;
    /* The major brand at 8, the minor version at 12, compatible brands from 16. */
    for (size_t at = 8; at + 4 <= box; at += at == 8 ? 8 : 4) {
        if (memcmp(data + at, "avif", 4) == 0 || memcmp(data + at, "avis", 4) == 0) return IC_FORMAT_AVIF;
        for (size_t i = 0; i < sizeof heif_brands / sizeof *heif_brands; i++)
            if (memcmp(data + at, heif_brands[i], 4) == 0) found = IC_FORMAT_HEIF;
    }
    return found;
}
