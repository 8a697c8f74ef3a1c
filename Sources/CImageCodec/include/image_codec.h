#ifndef IMAGE_CODEC_H
#define IMAGE_CODEC_H

/*
 * JPEG, PNG and WebP codecs around libjpeg-turbo, libpng and libwebp, working in memory.
 *
 * Pixels are 8-bit RGBA, rows packed without padding. Every function reports
 * failure through its return value and a human message written into the
 * caller's buffer; library errors (setjmp/longjmp) never leave these functions.
 * Buffers handed out are malloc'd and belong to the caller (free with
 * ic_free or free).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    IC_OK = 0,
    IC_EMPTY,            /* no bytes at all */
    IC_UNSUPPORTED,      /* not a format (or a variant) this codec handles */
    IC_CORRUPT,          /* malformed, truncated or failing a checksum */
    IC_TOO_LARGE,        /* over the pixel cap, overflowing, or out of memory */
    IC_ENCODE_FAILED,    /* bad input to an encoder or an encoder error */
    IC_STOPPED           /* a callback asked it to stop (an encoder's band callback, a decoder's should_stop) */
} ic_status;

typedef enum {
    IC_FORMAT_UNKNOWN = 0,
    IC_FORMAT_JPEG,
    IC_FORMAT_PNG,
    IC_FORMAT_WEBP,
    IC_FORMAT_HEIF, /* HEIC and other HEIF files (libheif; HEVC through libde265) */
    IC_FORMAT_AVIF, /* HEIF with AV1 (libheif; aom or dav1d) */
    IC_FORMAT_TIFF, /* libtiff */
    IC_FORMAT_GIF,  /* giflib */
    IC_FORMAT_JXL   /* JPEG XL, bare codestream or ISO-BMFF container (libjxl) */
} ic_format;

/* A decoded image; `pixels` holds width * height * 4 bytes. */
typedef struct {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    int gray; /* stored with one colour channel (gray, or gray and alpha) */
    int reduced; /* shrunk while decoding to the options' reduce_width × reduce_height */
    int cmyk;    /* stored as CMYK: the pixels are now sRGB (by the given profile, else by formula) */
} ic_image;

/* Bytes owned by the caller; `size` 0 means absent. */
typedef struct {
    const uint8_t *bytes;
    size_t size;
} ic_blob;

/* How to decode. Zero-filled is a plain decode with no pixel cap (set max_pixels). */
typedef struct {
    uint64_t max_pixels;
    /* JPEG: libjpeg-turbo's fast integer DCT and chroma upsampling by replication. */
    int fast_dct;
    /*
     * Shrink while decoding to exactly this size (both nonzero, neither larger than the image,
     * one smaller), by area averaging as rows arrive, without a full-size image: JPEG is first
     * decoded at the largest DCT scale (1/2, 1/4, 1/8) that still leaves at least twice this size
     * (less would alias the 8×8 blocks), PNG row by row (interlaced PNG is decoded whole first).
     * Otherwise ignored, and `reduced` says which happened.
     */
    uint32_t reduce_width, reduce_height;
    /* JPEG: the photo's own ICC profile; a CMYK photo is converted to sRGB by it (by formula without). */
    ic_blob icc;
    /* JPEG: asked between scans and between bands of rows; nonzero stops the decode, which
     * returns IC_STOPPED. NULL: never asked. A PNG or WebP decode is not interrupted: its time is
     * linear in its size, which the pixel cap bounds (a PNG's text chunks are never read). */
    int (*should_stop)(void *context);
    void *stop_context;
    /* Bytes the decoder may allocate for itself besides the output (0: no limit): libjpeg's
     * max_memory_to_use, libpng's chunk malloc limit. Past it the decode fails (IC_TOO_LARGE)
     * instead of growing, so a wrong estimate fails the photo, not the process. */
    uint64_t decoder_memory_limit;
} ic_decode_options;

/* A JPEG of more scans is refused before any is decoded: each scan passes over every
 * coefficient of the frame, and real files have about ten. */
#define IC_MAX_JPEG_SCANS 100

/* JPEG chroma subsampling. */
enum { IC_CHROMA_AUTO = 0, IC_CHROMA_420 = 1, IC_CHROMA_444 = 2, IC_CHROMA_422 = 3 };

/* What an encoder writes besides the pixels. */
typedef struct {
    int quality;  /* JPEG and lossy WebP: 1...100 (clamped) */
    int fast_dct; /* JPEG: the fast integer DCT at quality 90 or less */
    int gray;     /* JPEG and PNG: one colour channel, taken from red (the caller checked r = g = b) */
    int lossless; /* WebP: lossless (quality then sets the effort) */
    int chroma;   /* JPEG: IC_CHROMA_AUTO (4:4:4 above quality 90, else 4:2:0), IC_CHROMA_420, IC_CHROMA_422, IC_CHROMA_444 */
    ic_blob icc;  /* an ICC profile: JPEG APP2 chunks, PNG iCCP */
    ic_blob exif; /* TIFF-structured EXIF (starting II or MM): JPEG APP1, PNG eXIf */
    ic_blob xmp;  /* an XMP packet: JPEG APP1, PNG iTXt XML:com.adobe.xmp */
} ic_encode_options;

/* Size of a message buffer that no message is cut short by. */
#define IC_MESSAGE_SIZE 256

/* The format named by the leading magic bytes. */
ic_format ic_sniff(const uint8_t *data, size_t size);

/*
 * Decode to RGBA8. The header's size is checked against `options->max_pixels` before
 * any pixel memory is allocated. On IC_OK `out->pixels` is the caller's; on
 * any other status `out` is zeroed and `message` says why.
 */
ic_status ic_decode_jpeg(const uint8_t *data, size_t size, const ic_decode_options *options,
                         ic_image *out, char *message, size_t message_size);
ic_status ic_decode_png(const uint8_t *data, size_t size, const ic_decode_options *options,
                        ic_image *out, char *message, size_t message_size);
/* WebP: lossy or lossless, with or without alpha; animated files are refused. */
ic_status ic_decode_webp(const uint8_t *data, size_t size, const ic_decode_options *options,
                         ic_image *out, char *message, size_t message_size);

/*
 * What the decoder allocates for itself besides its output while it decodes these bytes, read
 * by the decoder's own header probe (libjpeg's jpeg_read_header, libwebp's WebPGetFeatures): a
 * JPEG decoded in several passes (progressive, or a first scan with fewer components than the
 * frame, baseline or not) keeps every DCT coefficient; a lossless WebP is decoded whole into
 * ARGB, a lossy one keeps its alpha plane. 0 when it decodes row by row or the header cannot be
 * read (the decode then says why).
 */
uint64_t ic_decoder_bytes(const uint8_t *data, size_t size, ic_format format);

/* The colour space an ICC profile describes; NONE when Little CMS cannot read it. */
typedef enum {
    IC_PROFILE_NONE = 0,
    IC_PROFILE_RGB,
    IC_PROFILE_GRAY,
    IC_PROFILE_CMYK
} ic_profile_kind;

ic_profile_kind ic_profile_kind_of(ic_blob icc);

/*
 * Converts decoded RGBA pixels in place from an RGB or gray ICC profile to sRGB (gray to sRGB's
 * gray, so gray stays gray), with Little CMS, perceptual intent, alpha kept.
 */
ic_status ic_convert_to_srgb(uint8_t *pixels, size_t pixel_count, ic_blob icc, char *message, size_t message_size);

/*
 * Inflates zlib data (a PNG iCCP profile, a compressed iTXt) into a malloc'd buffer of at most
 * `max_size` bytes. IC_TOO_LARGE past that, IC_CORRUPT when the stream is bad.
 */
ic_status ic_inflate(const uint8_t *data, size_t size, size_t max_size, uint8_t **out,
                     size_t *out_size);

/*
 * Called by an encoder for each band of up to IC_BAND_ROWS rows just before it compresses them:
 * `source` is the band in the caller's image, `row_count` rows of `width` * 4 bytes. When the
 * hooks transform, the callback writes the pixels to compress into `destination` (a buffer of
 * the same shape that stays in cache, so a point filter done here costs no pass over the whole
 * image); otherwise `destination` is NULL and the call is only a chance to stop. Returns 0 to go
 * on, nonzero to stop: the encoder then returns IC_STOPPED and no output.
 * A transform may change colour only: PNG decides RGB or RGBA from the source's alpha.
 */
typedef int (*ic_band_callback)(void *context, const uint8_t *source, uint8_t *destination,
                                uint32_t row_count, uint32_t width);

typedef struct {
    ic_band_callback band;
    void *context;
    int transforms; /* nonzero: `band` writes every band into `destination` */
} ic_encode_hooks;

#define IC_BAND_ROWS 16

/*
 * Encode RGBA8 pixels, calling `hooks->band` (when hooks is not NULL) for every band of rows.
 * On IC_OK `*out` is a malloc'd buffer of `*out_size` bytes; otherwise `*out` is NULL and
 * `message` says why. Metadata too large for its container (EXIF or XMP over one JPEG
 * segment) is left out.
 * JPEG: chroma subsampled 4:2:0 (or 4:4:4, see `chroma`), alpha is dropped.
 * PNG: RGB (or gray) when every alpha is 255, else with alpha; fast compression.
 */
ic_status ic_encode_jpeg(const uint8_t *rgba, uint32_t width, uint32_t height,
                         const ic_encode_options *options, const ic_encode_hooks *hooks,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size);
ic_status ic_encode_png(const uint8_t *rgba, uint32_t width, uint32_t height,
                        const ic_encode_options *options, const ic_encode_hooks *hooks,
                        uint8_t **out, size_t *out_size, char *message, size_t message_size);
/*
 * WebP: lossy at `quality` or lossless, alpha kept when any pixel is not opaque; the ICC profile,
 * EXIF and XMP go in chunks of an extended file. libwebp compresses the whole picture at the end,
 * so besides one call per band while the picture is filled, `hooks->band` is called as libwebp
 * reports progress with no rows (NULL buffers, row_count 0): only a chance to stop.
 */
ic_status ic_encode_webp(const uint8_t *rgba, uint32_t width, uint32_t height,
                         const ic_encode_options *options, const ic_encode_hooks *hooks,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size);

/*
 * HEIF/AVIF, TIFF, GIF and JPEG XL (heif_header.c, tiff_decode.c, gif_decode.c, jxl_header.c): what the header says,
 * read without decoding pixels, for formats whose containers are parsed by their own library.
 */
typedef struct {
    uint32_t width, height; /* as decoded: a HEIF's irot/imir/clap already applied */
    uint16_t orientation;   /* TIFF's Orientation tag (1 to 8); 0 when absent or applied (HEIF, JPEG XL) */
    uint16_t bit_depth;     /* bits per colour sample as stored */
    int has_alpha;
    /* What the decoder allocates besides its RGBA output, at most (planes, strips, a canvas). */
    uint64_t scratch_bytes;
    /* malloc'd, or NULL. HEIF: the `colr` ICC profile, else one made from an `nclx` box whose
     * primaries or transfer are not sRGB's. EXIF is TIFF-structured (from II or MM). */
    uint8_t *icc, *exif, *xmp;
    size_t icc_size, exif_size, xmp_size;
} ic_header;

ic_status ic_read_header(ic_format format, const uint8_t *data, size_t size, ic_header *out,
                         char *message, size_t message_size);
void ic_header_free(ic_header *header);

/*
 * HEIF and AVIF: the primary image (never an embedded thumbnail) with its transformations
 * applied, any bit depth scaled to 8. Not interruptible inside libheif: `should_stop` is asked
 * before and after the decode.
 */
ic_status ic_decode_heif(const uint8_t *data, size_t size, const ic_decode_options *options,
                         ic_image *out, char *message, size_t message_size);
/* TIFF: the first page, strips or tiles, 1 to 16 bits; `should_stop` asked between bands. */
ic_status ic_decode_tiff(const uint8_t *data, size_t size, const ic_decode_options *options,
                         ic_image *out, char *message, size_t message_size);
/* GIF: the first frame on the logical screen (transparent around it); `should_stop` between rows. */
ic_status ic_decode_gif(const uint8_t *data, size_t size, const ic_decode_options *options,
                        ic_image *out, char *message, size_t message_size);
/*
 * JPEG XL: the first frame, turned upright by its header's orientation, any bit depth or float
 * scaled to 8; `should_stop` asked between libjxl's events and between chunks of the file.
 * `decoder_memory_limit` is not applied: libjxl 0.7 allocates its frames with its own allocator,
 * not through a memory manager (the budget counts them from the header's scratch_bytes).
 */
ic_status ic_decode_jxl(const uint8_t *data, size_t size, const ic_decode_options *options,
                        ic_image *out, char *message, size_t message_size);

/*
 * AVIF through libheif's AV1 encoder (aom): `quality` 1...100, `speed` 0 (slowest) to 9, alpha
 * kept when any pixel is not opaque, the ICC profile, EXIF and XMP stored as items. The band
 * callback runs while the picture is filled; aom's own work is not interruptible.
 */
ic_status ic_encode_avif(const uint8_t *rgba, uint32_t width, uint32_t height,
                         const ic_encode_options *options, int speed, const ic_encode_hooks *hooks,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size);

/* Frees a buffer returned by this library. */
void ic_free(void *buffer);

#ifdef __cplusplus
}
#endif

#endif /* IMAGE_CODEC_H */
