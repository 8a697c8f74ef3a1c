/*
 * The floor: what libjpeg-turbo (and libpng) cost alone, in one process, on photos held in
 * memory. Every photo is decoded (at 1/D of its size in the DCT with --scale D), optionally
 * passed through a plain C sepia loop, and encoded again at the same quality (JPEG 4:2:0), as PNG
 * with PhotoCluster's settings (zlib level 1, Z_RLE, UP filter), or not at all (--out none: the
 * decode alone, the floor of a thumbnail at that scale). Built by bench/run:  cc -O2 -o floor bench/floor.c -ljpeg -lpng -lpthread
 *
 *   floor [--threads N] [--runs R] [--quality Q] [--out jpeg|png|none] [--scale 1|2|4|8] [--sepia]
 *         [--rgba] [--fast] [--small-pages] [--png-level L] [--png-strategy default|rle|filtered|huffman]
 *         [--png-filter none|sub|up|paeth|all] FILE...   (PNG: default level 1, rle, up)
 *
 * Prints one JSON object: seconds of each run (wall clock, all photos), megapixels and photos
 * per run, bytes written by the last run.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

typedef struct {
    unsigned char *data;
    size_t size;
} blob;

/* malloc, advised onto transparent huge pages like PhotoCluster's decoder does (ic_alloc_pixels),
 * so the floor pays the same (small) page-fault cost; --small-pages turns it off. */
static int huge_pages = 1;
static void *alloc_pixels(size_t size) {
    void *p = malloc(size);
#ifdef MADV_HUGEPAGE
    if (p && huge_pages && size >= ((size_t)8 << 20)) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1), end = ((uintptr_t)p + size) & ~(page - 1);
        if (end > start) madvise((void *)start, end - start, MADV_HUGEPAGE);
    }
#endif
    return p;
}

static blob *inputs;
static int input_count;
static int quality = 85, out_png = 0, out_none = 0, scale = 1, use_sepia = 0, use_rgba = 0, fast = 0;
/* PNG defaults are PhotoCluster's (png_encode.c): level 1, run-length strategy, UP filter. */
static int png_level = 1, png_strategy = Z_RLE, png_filter = PNG_FILTER_UP;
static int next_index;
static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t bytes_out;
static double megapixels;

struct err_mgr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

static void on_jpeg_error(j_common_ptr cinfo) {
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    fprintf(stderr, "floor: libjpeg: %s\n", text);
    exit(1);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static blob read_file(const char *path) {
    blob b = {0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    b.size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.data = malloc(b.size);
    if (fread(b.data, 1, b.size, f) != b.size) exit(1);
    fclose(f);
    return b;
}

/* The sepia of PhotoCluster (intensity 0.8), plain C: out = 0.2·in + 0.8·min(M·in, 255). */
static void sepia(unsigned char *p, size_t pixels, int step) {
    const float i = 0.8f, keep = 1 - i;
    const float m[9] = {0.393f * i, 0.769f * i, 0.189f * i, 0.349f * i, 0.686f * i,
                        0.168f * i, 0.272f * i, 0.534f * i, 0.131f * i};
    const float cap = 255 * i;
    for (size_t n = 0; n < pixels; n++, p += step) {
        float r = p[0], g = p[1], b = p[2];
        float sr = m[0] * r + m[1] * g + m[2] * b, sg = m[3] * r + m[4] * g + m[5] * b,
              sb = m[6] * r + m[7] * g + m[8] * b;
        sr = sr < cap ? sr : cap;
        sg = sg < cap ? sg : cap;
        sb = sb < cap ? sb : cap;
        float o0 = keep * r + sr + 0.5f, o1 = keep * g + sg + 0.5f, o2 = keep * b + sb + 0.5f;
        p[0] = (unsigned char)(o0 < 255 ? o0 : 255);
        p[1] = (unsigned char)(o1 < 255 ? o1 : 255);
        p[2] = (unsigned char)(o2 < 255 ? o2 : 255);
    }
}

typedef struct {
    unsigned char *data;
    size_t size, capacity;
} sink;

static void png_write(png_structp png, png_bytep bytes, size_t length) {
    sink *s = png_get_io_ptr(png);
    if (s->size + length > s->capacity) {
        while (s->size + length > s->capacity) s->capacity = s->capacity ? s->capacity * 2 : 65536;
        s->data = realloc(s->data, s->capacity);
    }
    memcpy(s->data + s->size, bytes, length);
    s->size += length;
}

static void png_flush(png_structp png) { (void)png; }

static size_t encode_png(unsigned char *pixels, unsigned width, unsigned height, int step) {
    sink s = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "floor: libpng failed\n");
        exit(1);
    }
    png_set_write_fn(png, &s, png_write, png_flush);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, png_level);
    png_set_compression_strategy(png, png_strategy);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, png_filter);
    png_write_info(png, info);
    if (step == 4) png_set_filler(png, 0, PNG_FILLER_AFTER);
    for (unsigned y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * width * step);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(s.data);
    return s.size;
}

static size_t process(const blob *in) {
    struct jpeg_decompress_struct d;
    struct err_mgr err;
    d.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = on_jpeg_error;
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, in->data, in->size);
    jpeg_read_header(&d, TRUE);
    int step = use_rgba ? 4 : 3;
    d.out_color_space = use_rgba ? JCS_EXT_RGBA : JCS_RGB;
    if (fast) {
        d.dct_method = JDCT_IFAST;
        d.do_fancy_upsampling = FALSE;
    }
    d.scale_num = 1;
    d.scale_denom = (unsigned)scale;
    jpeg_start_decompress(&d);
    unsigned width = d.output_width, height = d.output_height;
    size_t stride = (size_t)width * step;
    unsigned char *pixels = alloc_pixels(stride * height);
    while (d.output_scanline < height) {
        JSAMPROW rows[16];
        for (unsigned k = 0; k < 16; k++) rows[k] = pixels + (size_t)(d.output_scanline + (k < height - d.output_scanline ? k : 0)) * stride;
        unsigned want = height - d.output_scanline < 16 ? height - d.output_scanline : 16;
        jpeg_read_scanlines(&d, rows, want);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);

    if (use_sepia) sepia(pixels, (size_t)width * height, step);

    size_t written = 0;
    if (out_none) {
        written = stride * height;  /* the pixels decoded */
    } else if (out_png) {
        written = encode_png(pixels, width, height, step);
    } else {
        struct jpeg_compress_struct c;
        c.err = jpeg_std_error(&err.pub);
        err.pub.error_exit = on_jpeg_error;
        jpeg_create_compress(&c);
        unsigned char *out = NULL;
        unsigned long out_size = 0;
        jpeg_mem_dest(&c, &out, &out_size);
        c.image_width = width;
        c.image_height = height;
        c.input_components = step;
        c.in_color_space = use_rgba ? JCS_EXT_RGBA : JCS_RGB;
        jpeg_set_defaults(&c);
        jpeg_set_quality(&c, quality, TRUE);
        c.comp_info[0].h_samp_factor = c.comp_info[0].v_samp_factor = 2;
        c.comp_info[1].h_samp_factor = c.comp_info[1].v_samp_factor = 1;
        c.comp_info[2].h_samp_factor = c.comp_info[2].v_samp_factor = 1;
        if (fast) c.dct_method = JDCT_IFAST;
        jpeg_start_compress(&c, TRUE);
        while (c.next_scanline < height) {
            JSAMPROW rows[16];
            unsigned want = height - c.next_scanline < 16 ? height - c.next_scanline : 16;
            for (unsigned k = 0; k < want; k++) rows[k] = pixels + (size_t)(c.next_scanline + k) * stride;
            jpeg_write_scanlines(&c, rows, want);
        }
        jpeg_finish_compress(&c);
        jpeg_destroy_compress(&c);
        written = out_size;
        free(out);
    }
    free(pixels);
    return written;
}

static void *worker(void *unused) {
    (void)unused;
    size_t written = 0;
    for (;;) {
        pthread_mutex_lock(&index_lock);
        int i = next_index++;
        pthread_mutex_unlock(&index_lock);
        if (i >= input_count) break;
        written += process(&inputs[i]);
    }
    pthread_mutex_lock(&index_lock);
    bytes_out += written;
    pthread_mutex_unlock(&index_lock);
    return NULL;
}

static void measure_megapixels(void) {
    for (int i = 0; i < input_count; i++) {
        struct jpeg_decompress_struct d;
        struct err_mgr err;
        d.err = jpeg_std_error(&err.pub);
        err.pub.error_exit = on_jpeg_error;
        jpeg_create_decompress(&d);
        jpeg_mem_src(&d, inputs[i].data, inputs[i].size);
        jpeg_read_header(&d, TRUE);
        megapixels += (double)d.image_width * d.image_height / 1e6;
        jpeg_destroy_decompress(&d);
    }
}

int main(int argc, char **argv) {
    int threads = 1, runs = 5;
    inputs = calloc((size_t)argc, sizeof *inputs);
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--threads") && a + 1 < argc) threads = atoi(argv[++a]);
        else if (!strcmp(arg, "--runs") && a + 1 < argc) runs = atoi(argv[++a]);
        else if (!strcmp(arg, "--quality") && a + 1 < argc) quality = atoi(argv[++a]);
        else if (!strcmp(arg, "--out") && a + 1 < argc) {
            const char *s = argv[++a];
            out_png = !strcmp(s, "png");
            out_none = !strcmp(s, "none");
        } else if (!strcmp(arg, "--scale") && a + 1 < argc) scale = atoi(argv[++a]);
        else if (!strcmp(arg, "--sepia")) use_sepia = 1;
        else if (!strcmp(arg, "--rgba")) use_rgba = 1;
        else if (!strcmp(arg, "--fast")) fast = 1;
        else if (!strcmp(arg, "--small-pages")) huge_pages = 0;
        else if (!strcmp(arg, "--png-level") && a + 1 < argc) png_level = atoi(argv[++a]);
        else if (!strcmp(arg, "--png-strategy") && a + 1 < argc) {
            const char *s = argv[++a];
            png_strategy = !strcmp(s, "rle") ? Z_RLE : !strcmp(s, "filtered") ? Z_FILTERED
                         : !strcmp(s, "huffman") ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY;
        } else if (!strcmp(arg, "--png-filter") && a + 1 < argc) {
            const char *s = argv[++a];
            png_filter = !strcmp(s, "none") ? PNG_FILTER_NONE : !strcmp(s, "up") ? PNG_FILTER_UP
                       : !strcmp(s, "paeth") ? PNG_FILTER_PAETH : !strcmp(s, "all") ? PNG_ALL_FILTERS
                       : !strcmp(s, "sub") ? PNG_FILTER_SUB : PNG_FILTER_UP;
        } else if (arg[0] == '-') {
            fprintf(stderr, "floor: unknown option %s\n", arg);
            return 2;
        } else inputs[input_count++] = read_file(arg);
    }
    if (input_count == 0 || threads < 1 || runs < 1 || (scale != 1 && scale != 2 && scale != 4 && scale != 8)) {
        fprintf(stderr, "usage: floor [--threads N] [--runs R] [--quality Q] [--out jpeg|png|none] [--scale 1|2|4|8] [--sepia] FILE...\n");
        return 2;
    }
    measure_megapixels();
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    printf("{\"megapixels\": %.6f, \"photos\": %d, \"seconds\": [", megapixels, input_count);
    for (int r = 0; r < runs; r++) {
        next_index = 0;
        bytes_out = 0;
        double start = now();
        for (int t = 0; t < threads; t++) pthread_create(&ids[t], NULL, worker, NULL);
        for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
        printf("%s%.6f", r ? ", " : "", now() - start);
        fflush(stdout);
    }
    printf("], \"bytes_out\": %zu}\n", bytes_out);
    return 0;
}
