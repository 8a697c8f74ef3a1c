#include "jpeg_error.h"

#include <string.h>

static void error_exit(j_common_ptr cinfo) {
    ic_jpeg_error *err = (ic_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) cinfo->err->num_warnings++;
}

static void output_message(j_common_ptr cinfo) { (void)cinfo; }

struct jpeg_error_mgr *ic_jpeg_error_init(ic_jpeg_error *err) {
    memset(err, 0, sizeof *err);
    jpeg_std_error(&err->pub);
    err->pub.error_exit = error_exit;
    err->pub.emit_message = emit_message;
    err->pub.output_message = output_message;
    return &err->pub;
}
