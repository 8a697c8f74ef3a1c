#define _GNU_SOURCE
#include "png_text_filter.h"

#include <stdlib.h>
#include <string.h>

/*
 * A read-only stream over a PNG in memory that leaves out its text chunks (tEXt, zTXt, iTXt)
 * whole: libpng's simplified API inflates every compressed one (up to its 8 MB chunk limit, so
 * a thousand of them cost half a minute that nothing can interrupt), while the pixels never need
 * them and the metadata is read apart, within its own budget. A chunk's CRC covers only itself,
 * so the chunks kept stay valid. Anything that does not parse as chunks is passed on as it is,
 * for libpng to report.
 */
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t next;      /* where the next chunk (or the signature) starts in `data` */
    size_t kept_from; /* the part being passed on: [kept_from, kept_end) */
    size_t kept_end;
} text_filter;

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int is_text(const uint8_t *type) {
    return memcmp(type, "tEXt", 4) == 0 || memcmp(type, "zTXt", 4) == 0 || memcmp(type, "iTXt", 4) == 0;
}

/* The next part to pass on; 0 at the end. */
static int advance(text_filter *f) {
    while (f->next < f->size) {
        size_t left = f->size - f->next;
        if (f->next == 0 || left < 12) {
            /* The signature, or a tail too short for a chunk: passed on as it is. */
            f->kept_from = f->next;
            f->kept_end = f->next == 0 && left > 8 ? 8 : f->size;
            f->next = f->kept_end;
            return 1;
        }
        uint64_t length = be32(f->data + f->next);
        uint64_t whole = length + 12; /* length, type, body, CRC */
        if (whole > left) whole = left;
        if (is_text(f->data + f->next + 4) && length + 12 <= left) {
            f->next += (size_t)whole;
            continue;
        }
        f->kept_from = f->next;
        f->kept_end = f->next + (size_t)whole;
        f->next = f->kept_end;
        return 1;
    }
    return 0;
}

static ssize_t filter_read(void *cookie, char *buffer, size_t size) {
    text_filter *f = cookie;
    size_t done = 0;
    while (done < size) {
        if (f->kept_from == f->kept_end && !advance(f)) break;
        size_t n = f->kept_end - f->kept_from;
        if (n > size - done) n = size - done;
        memcpy(buffer + done, f->data + f->kept_from, n);
        f->kept_from += n;
        done += n;
    }
    return (ssize_t)done;
}

static int filter_close(void *cookie) {
    free(cookie);
    return 0;
}

FILE *ic_png_without_text(const uint8_t *data, size_t size) {
    text_filter *f = calloc(1, sizeof *f);
    if (f == NULL) return NULL;
    f->data = data;
    f->size = size;
    cookie_io_functions_t io = {.read = filter_read, .write = NULL, .seek = NULL, .close = filter_close};
    FILE *file = fopencookie(f, "r", io);
    if (file == NULL) free(f);
    return file;
}
