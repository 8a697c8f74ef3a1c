#ifndef IMAGE_CODEC_JPEG_ERROR_H
#define IMAGE_CODEC_JPEG_ERROR_H

/* libjpeg error manager that longjmps back into the codec function that set it up. */

#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */

#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr pub; /* first, so a j_common_ptr's err can be cast back */
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX]; /* the error that caused the longjmp, if any */
} ic_jpeg_error;

/*
 * Fills `err` and returns the pointer to store in cinfo.err. Errors are
 * formatted into `message` and longjmp to `jump`; warnings and traces are
 * silent (a decoder may replace emit_message to act on warnings).
 */
struct jpeg_error_mgr *ic_jpeg_error_init(ic_jpeg_error *err);

#endif
