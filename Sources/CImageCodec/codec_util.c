#include "codec_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

void ic_set_message(char *message, size_t message_size, const char *format, ...) {
    if (message == NULL || message_size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(message, message_size, format, args);
    va_end(args);
}

ic_status ic_check_size(uint64_t width, uint64_t height, uint64_t max_pixels,
                        size_t *byte_count, char *message, size_t message_size) {
    if (width == 0 || height == 0) {
        ic_set_message(message, message_size, "image has a zero side (%llux%llu pixels)",
                       (unsigned long long)width, (unsigned long long)height);
        return IC_CORRUPT;
    }
    /* Both sides fit in 32 bits, so the product cannot overflow 64 bits. */
    uint64_t pixels = width * height;
    if (width > UINT32_MAX || height > UINT32_MAX || pixels > max_pixels) {
        ic_set_message(message, message_size, "image is %llux%llu pixels, over the limit of %llu",
                       (unsigned long long)width, (unsigned long long)height,
                       (unsigned long long)max_pixels);
        return IC_TOO_LARGE;
    }
    if (pixels > SIZE_MAX / 4) {
        ic_set_message(message, message_size, "image is %llux%llu pixels, too many to address",
                       (unsigned long long)width, (unsigned long long)height);
        return IC_TOO_LARGE;
    }
    *byte_count = (size_t)pixels * 4;
    return IC_OK;
}

void ic_free(void *buffer) { free(buffer); }

void ic_prefix_message(char *message, size_t message_size, const char *format, const char *part) {
    if (message == NULL || message_size == 0) return;
    char text[IC_MESSAGE_SIZE];
    snprintf(text, sizeof text, "%s", message);
    ic_set_message(message, message_size, "%s %s: %s", format, part, text);
}

void *ic_alloc_pixels(size_t byte_count) {
    void *pixels = malloc(byte_count);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* Only worth it (and only possible) when the buffer spans whole 2 MB pages. */
    if (pixels != NULL && byte_count >= ((size_t)8 << 20)) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t start = ((uintptr_t)pixels + page - 1) & ~(page - 1);
        uintptr_t end = ((uintptr_t)pixels + byte_count) & ~(page - 1);
        if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE); /* advice only */
    }
#endif
    return pixels;
}

int ic_wants_reduction(const ic_decode_options *options, uint32_t width, uint32_t height) {
    uint32_t w = options->reduce_width, h = options->reduce_height;
    return w > 0 && h > 0 && w <= width && h <= height && (w < width || h < height);
}

ic_status ic_start_decode(const uint8_t *data, size_t size, ic_image *out, char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    ic_set_message(message, message_size, "%s", "");
    if (data == NULL || size == 0) {
        ic_set_message(message, message_size, "image data is empty");
        return IC_EMPTY;
    }
    return IC_OK;
}

void ic_exif_from_item(uint8_t **exif, size_t *size) {
    uint8_t *bytes = *exif;
    size_t start = *size >= 4 ? 4 + ((size_t)bytes[0] << 24 | (size_t)bytes[1] << 16 | (size_t)bytes[2] << 8 | bytes[3]) : *size;
    if (start + 8 > *size || !((bytes[start] == 'I' && bytes[start + 1] == 'I') || (bytes[start] == 'M' && bytes[start + 1] == 'M'))) {
        free(bytes);
        *exif = NULL;
        *size = 0;
        return;
    }
    memmove(bytes, bytes + start, *size - start);
    *size -= start;
}
