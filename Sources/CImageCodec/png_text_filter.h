#ifndef IMAGE_CODEC_PNG_TEXT_FILTER_H
#define IMAGE_CODEC_PNG_TEXT_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A stream that reads the PNG `data` without its text chunks (tEXt, zTXt, iTXt), for libpng's
 * simplified API; close it with fclose. `data` must outlive it. NULL when out of memory.
 */
FILE *ic_png_without_text(const uint8_t *data, size_t size);

#endif
