#include "codec_util.h"
#include "reduce.h"

#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

/*
 * GIF through giflib: the first frame only (an animation's later frames are ignored, as libvips
 * and sharp do by default), drawn where it sits on the logical screen, the screen around it
 * transparent, its transparent colour index transparent. Records are read one at a time: no
 * later frame is ever decompressed.
 */

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
} gif_source;

static int source_read(GifFileType *gif, GifByteType *buffer, int count) {
    gif_source *source = gif->UserData;
    if (count <= 0 || source->offset >= source->size) return 0;
    size_t n = source->size - source->offset < (size_t)count ? source->size - source->offset : (size_t)count;
    memcpy(buffer, source->data + source->offset, n);
    source->offset += n;
    return (int)n;
}

/* The first frame's descriptor and its transparent index (-1: none), read up to its pixels. */
typedef struct {
    GifFileType *gif;
    gif_source source;
    int transparent;
} gif_reader;

static ic_status open_first_frame(gif_reader *reader, const uint8_t *data, size_t size, char *message, size_t message_size) {
    int error = 0;
    reader->source = (gif_source){data, size, 0};
    reader->transparent = -1;
    reader->gif = DGifOpen(&reader->source, source_read, &error);
    if (reader->gif == NULL) {
        ic_set_message(message, message_size, "GIF header is unreadable: %s", GifErrorString(error));
        return IC_CORRUPT;
    }
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(reader->gif, &type) == GIF_ERROR) break;
        if (type == TERMINATE_RECORD_TYPE) {
            ic_set_message(message, message_size, "GIF has no frame");
            return IC_CORRUPT;
        }
        if (type == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(reader->gif) == GIF_ERROR) break;
            return IC_OK;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(reader->gif, &code, &block) == GIF_ERROR) break;
            if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL) {
                GraphicsControlBlock control;
                if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK) reader->transparent = control.TransparentColor;
            }
            while (block != NULL)
                if (DGifGetExtensionNext(reader->gif, &block) == GIF_ERROR) goto failed;
        }
    }
failed:
    ic_set_message(message, message_size, "GIF records before the first frame are corrupt: %s", GifErrorString(reader->gif->Error));
    return IC_CORRUPT;
}

static void close_reader(gif_reader *reader) {
    if (reader->gif != NULL) DGifCloseFile(reader->gif, NULL);
    reader->gif = NULL;
}

/* The canvas: the logical screen, grown to hold a frame that reaches past it (as browsers do). */
static void canvas_size(const GifFileType *gif, uint32_t *width, uint32_t *height) {
    uint64_t right = (uint64_t)(uint32_t)gif->Image.Left + (uint32_t)gif->Image.Width;
    uint64_t bottom = (uint64_t)(uint32_t)gif->Image.Top + (uint32_t)gif->Image.Height;
    *width = (uint32_t)((uint64_t)gif->SWidth > right ? (uint64_t)gif->SWidth : right);
    *height = (uint32_t)((uint64_t)gif->SHeight > bottom ? (uint64_t)gif->SHeight : bottom);
}

ic_status ic_read_gif_header(const uint8_t *data, size_t size, ic_header *out, char *message, size_t message_size) {
    gif_reader reader;
    ic_status status = open_first_frame(&reader, data, size, message, message_size);
    if (status == IC_OK) {
        canvas_size(reader.gif, &out->width, &out->height);
        out->bit_depth = 8;
        out->has_alpha = reader.transparent >= 0 || reader.gif->Image.Width != (int)out->width || reader.gif->Image.Height != (int)out->height;
        /* A row of indices, and the whole canvas when it is reduced afterwards. */
        out->scratch_bytes = (uint64_t)out->width * out->height * 4 + out->width;
    }
    close_reader(&reader);
    return status;
}

ic_status ic_decode_gif(const uint8_t *data, size_t size, const ic_decode_options *options,
                        ic_image *out, char *message, size_t message_size) {
    ic_status status = ic_start_decode(data, size, out, message, message_size);
    if (status != IC_OK) return status;
    gif_reader reader;
    status = open_first_frame(&reader, data, size, message, message_size);
    if (status != IC_OK) {
        close_reader(&reader);
        return status;
    }
    GifFileType *gif = reader.gif;
    uint32_t width, height;
    canvas_size(gif, &width, &height);
    size_t byte_count = 0;
    status = ic_check_size(width, height, options->max_pixels, &byte_count, message, message_size);
    if (status != IC_OK) ic_prefix_message(message, message_size, "GIF", "header");
    const ColorMapObject *colours = gif->Image.ColorMap != NULL ? gif->Image.ColorMap : gif->SColorMap;
    if (status == IC_OK && colours == NULL) {
        ic_set_message(message, message_size, "GIF frame has no colour table");
        status = IC_CORRUPT;
    }
    uint32_t left = (uint32_t)gif->Image.Left, top = (uint32_t)gif->Image.Top;
    uint32_t frame_width = (uint32_t)gif->Image.Width, frame_height = (uint32_t)gif->Image.Height;
    uint8_t *pixels = NULL;
    GifPixelType *line = NULL;
    if (status == IC_OK) {
        pixels = ic_alloc_pixels(byte_count);
        line = malloc(frame_width > 0 ? frame_width : 1);
        if (pixels == NULL || line == NULL) {
            ic_set_message(message, message_size, "no memory for %zu bytes of pixels", byte_count);
            status = IC_TOO_LARGE;
        } else {
            memset(pixels, 0, byte_count); /* transparent around the frame */
        }
    }
    /* Interlaced frames arrive in four passes: every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1. */
    static const uint32_t starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    int passes = gif->Image.Interlace ? 4 : 1;
    uint32_t done = 0;
    for (int pass = 0; status == IC_OK && pass < passes; pass++) {
        uint32_t start = gif->Image.Interlace ? starts[pass] : 0, step = gif->Image.Interlace ? steps[pass] : 1;
        for (uint32_t y = start; y < frame_height; y += step, done++) {
            if ((done & 63) == 0 && options->should_stop != NULL && options->should_stop(options->stop_context)) {
                ic_set_message(message, message_size, "GIF decoding stopped");
                status = IC_STOPPED;
                break;
            }
            if (DGifGetLine(gif, line, (int)frame_width) == GIF_ERROR) {
                ic_set_message(message, message_size, "GIF frame is %s at row %u: %s",
                               gif->Error == D_GIF_ERR_READ_FAILED ? "truncated" : "corrupt", y, GifErrorString(gif->Error));
                status = IC_CORRUPT;
                break;
            }
            uint8_t *row = pixels + ((size_t)(top + y) * width + left) * 4;
            for (uint32_t x = 0; x < frame_width; x++, row += 4) {
                int index = line[x];
                if (index == reader.transparent || index >= colours->ColorCount) continue; /* stays transparent */
                GifColorType colour = colours->Colors[index];
                row[0] = colour.Red, row[1] = colour.Green, row[2] = colour.Blue, row[3] = 255;
            }
        }
    }
    free(line);
    close_reader(&reader);
    return ic_finish_whole_image(status, pixels, width, height, options, "GIF", out, message, message_size);
}
