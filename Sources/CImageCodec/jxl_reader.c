#include "jxl_util.h"

#include <stdlib.h>
#include <string.h>

/* libjxl asks for more input in steps of this: a chance to stop between them. */
#define JXL_CHUNK_BYTES ((size_t)256 << 10)

/* Each block carries its size in front, so a free can give it back to the count. */
#define JXL_BLOCK_HEADER 16

static int feed(ic_jxl_reader *reader);

static void *counted_alloc(void *opaque, size_t size) {
    ic_jxl_memory *memory = opaque;
    if (size > SIZE_MAX - JXL_BLOCK_HEADER) return NULL;
    if (memory->limit != 0 && (size > memory->limit || memory->used > memory->limit - size)) {
        memory->refused = 1;
        return NULL;
    }
    uint8_t *block = malloc(size + JXL_BLOCK_HEADER);
    if (block == NULL) return NULL;
    memcpy(block, &size, sizeof size);
    memory->used += size;
    return block + JXL_BLOCK_HEADER;
}

static void counted_free(void *opaque, void *address) {
    if (address == NULL) return;
    ic_jxl_memory *memory = opaque;
    uint8_t *block = (uint8_t *)address - JXL_BLOCK_HEADER;
    size_t size;
    memcpy(&size, block, sizeof size);
    memory->used -= size;
    free(block);
}

ic_status ic_jxl_open(ic_jxl_reader *reader, const uint8_t *data, size_t size, int events, uint64_t memory_limit,
                      char *message, size_t message_size) {
    memset(reader, 0, sizeof *reader);
    reader->data = data;
    reader->size = size;
    reader->memory.limit = memory_limit;
    JxlMemoryManager manager = {&reader->memory, counted_alloc, counted_free};
    /* No parallel runner: libjxl decodes on the calling thread, as workers run photos side by side. */
    reader->decoder = JxlDecoderCreate(&manager);
    if (reader->decoder == NULL) {
        ic_set_message(message, message_size, "JPEG XL: no memory for a decoder");
        return IC_TOO_LARGE;
    }
    if (JxlDecoderSubscribeEvents(reader->decoder, events) != JXL_DEC_SUCCESS ||
        JxlDecoderSetKeepOrientation(reader->decoder, JXL_FALSE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetUnpremultiplyAlpha(reader->decoder, JXL_TRUE) != JXL_DEC_SUCCESS) {
        ic_set_message(message, message_size, "JPEG XL: the decoder refused its settings");
        ic_jxl_close(reader);
        return IC_CORRUPT;
    }
    feed(reader);
    return IC_OK;
}

/* Hands libjxl what it has not consumed and the next chunk; the whole file ends the input. */
static int feed(ic_jxl_reader *reader) {
    if (reader->fed >= reader->size) return 0;
    size_t unconsumed = reader->fed > 0 ? JxlDecoderReleaseInput(reader->decoder) : 0;
    size_t start = reader->fed - unconsumed;
    size_t end = reader->size - reader->fed > JXL_CHUNK_BYTES ? reader->fed + JXL_CHUNK_BYTES : reader->size;
    if (JxlDecoderSetInput(reader->decoder, reader->data + start, end - start) != JXL_DEC_SUCCESS) return 0;
    reader->fed = end;
    if (end == reader->size) JxlDecoderCloseInput(reader->decoder);
    return 1;
}

JxlDecoderStatus ic_jxl_next(ic_jxl_reader *reader, const char *part, char *message, size_t message_size) {
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(reader->decoder);
        if (status == JXL_DEC_NEED_MORE_INPUT) {
            if (feed(reader)) return JXL_DEC_NEED_MORE_INPUT; /* a step taken: the caller may stop here */
            ic_set_message(message, message_size, "JPEG XL %s is truncated", part);
            return JXL_DEC_ERROR;
        }
        if (status == JXL_DEC_ERROR) {
            if (reader->memory.refused)
                ic_set_message(message, message_size, "JPEG XL %s needs more than the decoder's %llu bytes", part,
                               (unsigned long long)reader->memory.limit);
            else
                ic_set_message(message, message_size, "JPEG XL %s is corrupt or truncated", part);
        }
        return status;
    }
}

void ic_jxl_upright_size(const JxlBasicInfo *info, uint32_t *width, uint32_t *height) {
    int turned = info->orientation >= JXL_ORIENT_TRANSPOSE;
    *width = turned ? info->ysize : info->xsize;
    *height = turned ? info->xsize : info->ysize;
}

void ic_jxl_close(ic_jxl_reader *reader) {
    if (reader->decoder != NULL) JxlDecoderDestroy(reader->decoder);
    reader->decoder = NULL;
}
