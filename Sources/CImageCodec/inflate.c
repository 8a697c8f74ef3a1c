#include "codec_util.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

ic_status ic_inflate(const uint8_t *data, size_t size, size_t max_size, uint8_t **out,
                     size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    if (data == NULL || size == 0 || size > UINT32_MAX) return IC_CORRUPT;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return IC_TOO_LARGE;
    size_t capacity = size * 4 < max_size ? size * 4 : max_size;
    if (capacity < 256) capacity = 256;
    uint8_t *buffer = malloc(capacity);
    ic_status status = buffer ? IC_OK : IC_TOO_LARGE;
    stream.next_in = (Bytef *)data;
    stream.avail_in = (uInt)size;
    while (status == IC_OK) {
        if (stream.total_out == capacity) {
            /* Full: grow up to the cap, which stops a few bytes from inflating to gigabytes. */
            if (capacity >= max_size) { status = IC_TOO_LARGE; break; }
            size_t grown_capacity = capacity * 2 < max_size ? capacity * 2 : max_size;
            uint8_t *grown = realloc(buffer, grown_capacity);
            if (grown == NULL) { status = IC_TOO_LARGE; break; }
            buffer = grown;
            capacity = grown_capacity;
        }
        stream.next_out = buffer + stream.total_out;
        stream.avail_out = (uInt)(capacity - stream.total_out);
        int result = inflate(&stream, Z_NO_FLUSH);
        if (result == Z_STREAM_END) break;
        if (result != Z_OK && !(result == Z_BUF_ERROR && stream.avail_out == 0)) status = IC_CORRUPT;
    }
    size_t produced = stream.total_out;
    inflateEnd(&stream);
    if (status != IC_OK) {
        free(buffer);
        return status;
    }
    *out = buffer;
    *out_size = produced;
    return IC_OK;
}
