#include "jxl_util.h"

#include <stdlib.h>
#include <string.h>

/* libjxl asks for more input in steps of this: a chance to stop between them. */
#define JXL_CHUNK_BYTES ((size_t)256 << 10)

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

ic_status ic_jxl_open(ic_jxl_reader *reader, const uint8_t *data, size_t size, int events,
                      char *message, size_t message_size) {
    memset(reader, 0, sizeof *reader);
    reader->data = data;
    reader->size = size;
    /* No parallel runner: libjxl decodes on the calling thread, as workers run photos side by side. */
    reader->decoder = JxlDecoderCreate(NULL);
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

JxlDecoderStatus ic_jxl_next(ic_jxl_reader *reader, const char *part, char *message, size_t message_size) {
    JxlDecoderStatus status = JxlDecoderProcessInput(reader->decoder);
    if (status == JXL_DEC_NEED_MORE_INPUT) {
        if (feed(reader)) return JXL_DEC_NEED_MORE_INPUT;
        ic_set_message(message, message_size, "JPEG XL %s is truncated", part);
        return JXL_DEC_ERROR;
    }
    if (status == JXL_DEC_ERROR) ic_set_message(message, message_size, "JPEG XL %s is corrupt or truncated", part);
    return status;
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
