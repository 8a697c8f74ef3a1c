/* An experiment (docs/notes/thumbnail-speed.md, "Decode into the resampler band by band"), not
 * part of the product. Build: cc -O2 -mavx2 -ffp-contract=off -o fuse thumbnail-fused-prototype.c -ljpeg -lm
 *
 * Decode a JPEG at 1/4 and Lanczos-3 it to fit 512x512: (full) into a whole RGBA buffer then
 * resample; (fused) into a ring of rows, resampling each output row as soon as its rows are in;
 * (fused3) the same over RGB; (decode) the decode alone. Same resample code in all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <jpeglib.h>

typedef struct { int taps, out; int *first; float *w; } axis;

static double lanczos(double x) {
    x = fabs(x);
    if (x < 1e-9) return 1;
    if (x >= 3) return 0;
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

static axis make_axis(int in, int out) {
    axis a;
    double scale = (double)in / out, stretch = scale > 1 ? scale : 1, support = 3 * stretch;
    a.taps = (int)ceil(support) * 2 + 1;
    a.out = out;
    a.first = calloc(out, sizeof(int));
    a.w = calloc((size_t)out * a.taps, sizeof(float));
    double row[64];
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * scale;
        int low = (int)(centre - support + 0.5); if (low < 0) low = 0;
        int high = (int)(centre + support + 0.5); if (high > in) high = in;
        int count = high - low; if (count > a.taps) count = a.taps;
        double total = 0;
        for (int k = 0; k < count; k++) { row[k] = lanczos((low + k - centre + 0.5) / stretch); total += row[k]; }
        a.first[o] = low;
        for (int k = 0; k < count; k++) a.w[o * a.taps + k] = (float)(row[k] / total);
    }
    return a;
}

static void vertical(const unsigned char **rows, const float *w, int taps, float *sum, int count) {
    int i = 0;
    for (; i + 32 <= count; i += 32) {
        float acc[32] = {0};
        for (int k = 0; k < taps; k++) {
            const unsigned char *r = rows[k] + i;
            float wk = w[k];
            for (int j = 0; j < 32; j++) acc[j] = acc[j] + wk * (float)r[j];
        }
        memcpy(sum + i, acc, sizeof acc);
    }
    for (; i < count; i++) { float a = 0; for (int k = 0; k < taps; k++) a = a + w[k] * rows[k][i]; sum[i] = a; }
}

typedef float v4 __attribute__((vector_size(16)));
static void horizontal(const float *sum, int ch, const axis *xs, unsigned char *out) {
    for (int x = 0; x < xs->out; x++) {
        v4 acc = {0, 0, 0, 0};
        const float *w = xs->w + (size_t)x * xs->taps;
        const float *p = sum + (size_t)xs->first[x] * ch;
        for (int k = 0; k < xs->taps; k++, p += ch) {
            v4 v; memcpy(&v, p, sizeof v);
            acc = acc + w[k] * v;
        }
        for (int c = 0; c < 4; c++) {
            float v = acc[c] < 0 ? 0 : acc[c] > 255 ? 255 : acc[c];
            out[x * 4 + c] = (unsigned char)(v + 0.5f);
        }
        if (ch == 3) out[x * 4 + 3] = 255;
    }
}

typedef struct { unsigned char *data; size_t size; } blob;
static int mode; /* 0 decode, 1 full, 2 fused, 3 fused3 */
static axis xs_cache, ys_cache; static int cached_w, cached_h;

static size_t one(const blob *in) {
    struct jpeg_decompress_struct d; struct jpeg_error_mgr err;
    d.err = jpeg_std_error(&err);
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, in->data, in->size);
    jpeg_read_header(&d, TRUE);
    int ch = mode == 3 ? 3 : 4;
    d.out_color_space = ch == 3 ? JCS_RGB : JCS_EXT_RGBA;
    d.dct_method = JDCT_IFAST; d.do_fancy_upsampling = FALSE;
    d.scale_num = 1; d.scale_denom = 4;
    jpeg_start_decompress(&d);
    int w = d.output_width, h = d.output_height, stride = w * ch;
    int ow = 512, oh = (int)((2.0 * h * 512 + w) / (2.0 * w)); /* fit */
    if (h > w) { oh = 512; ow = (int)((2.0 * w * 512 + h) / (2.0 * h)); }
    if (cached_w != w || cached_h != h) { xs_cache = make_axis(w, ow); ys_cache = make_axis(h, oh); cached_w = w; cached_h = h; }
    axis *xs = &xs_cache, *ys = &ys_cache;
    float *sum = calloc((size_t)(w + xs->taps) * ch + 8, sizeof(float));
    unsigned char *out = malloc((size_t)ow * oh * 4);
    const unsigned char *taprows[64]; float tapw[64];
    size_t checksum = 0;
    if (mode <= 1) {
        unsigned char *pixels = malloc((size_t)stride * h);
        while (d.output_scanline < (unsigned)h) {
            JSAMPROW rows[16]; unsigned n = 0;
            while (n < 16 && d.output_scanline + n < (unsigned)h) { rows[n] = pixels + (size_t)(d.output_scanline + n) * stride; n++; }
            jpeg_read_scanlines(&d, rows, n);
        }
        if (mode == 1) {
            for (int y = 0; y < oh; y++) {
                int t = 0;
                for (int k = 0; k < ys->taps; k++) {
                    int r = ys->first[y] + k; float wk = ys->w[y * ys->taps + k];
                    if (wk == 0 || r >= h) continue;
                    taprows[t] = pixels + (size_t)r * stride; tapw[t++] = wk;
                }
                vertical(taprows, tapw, t, sum, stride);
                horizontal(sum, ch, xs, out + (size_t)y * ow * 4);
            }
        }
        checksum = pixels[stride * (h / 2)];
        free(pixels);
    } else {
        int slots = ys->taps + 16;
        unsigned char *ring = malloc((size_t)stride * slots);
        int decoded = 0;
        for (int y = 0; y < oh; y++) {
            int need = ys->first[y] + ys->taps; if (need > h) need = h;
            while (decoded < need) {
                JSAMPROW row = ring + (size_t)(decoded % slots) * stride;
                jpeg_read_scanlines(&d, &row, 1);
                decoded++;
            }
            int t = 0;
            for (int k = 0; k < ys->taps; k++) {
                int r = ys->first[y] + k; float wk = ys->w[y * ys->taps + k];
                if (wk == 0 || r >= h) continue;
                taprows[t] = ring + (size_t)(r % slots) * stride; tapw[t++] = wk;
            }
            vertical(taprows, tapw, t, sum, stride);
            horizontal(sum, ch, xs, out + (size_t)y * ow * 4);
        }
        while (d.output_scanline < (unsigned)h) { JSAMPROW row = ring; jpeg_read_scanlines(&d, &row, 1); }
        free(ring);
    }
    if (mode >= 1) checksum = out[(size_t)ow * 4 * (oh / 2) + 4 * (ow / 2)];
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(sum); free(out);
    return checksum;
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: fuse decode|full|fused|fused3 RUNS FILE...\n"); return 2; }
    mode = !strcmp(argv[1], "decode") ? 0 : !strcmp(argv[1], "full") ? 1 : !strcmp(argv[1], "fused") ? 2 : 3;
    int runs = atoi(argv[2]), n = argc - 3;
    blob *in = calloc(n, sizeof *in);
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(argv[3 + i], "rb"); fseek(f, 0, SEEK_END); in[i].size = ftell(f); rewind(f);
        in[i].data = malloc(in[i].size); if (fread(in[i].data, 1, in[i].size, f) != in[i].size) return 1; fclose(f);
    }
    size_t sink = 0; double best = 1e9;
    printf("%s:", argv[1]);
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        for (int i = 0; i < n; i++) sink += one(&in[i]);
        double dt = (now() - t0) / n * 1000;
        if (dt < best) best = dt;
        printf(" %.1f", dt);
    }
    printf("  best %.1f ms/photo (%zu)\n", best, sink);
    return 0;
}
