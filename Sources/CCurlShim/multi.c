// The multi handle the engine thread drives; every function but pc_multi_wakeup belongs to
// that one thread.

#include <stdio.h>
#include <stdlib.h>
#include "transfer_internal.h"

struct pc_multi {
    CURLM *multi;
};

pc_multi *pc_multi_new(void) {
    pc_global_init();
    pc_multi *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->multi = curl_multi_init();
    if (!m->multi) {
        free(m);
        return NULL;
    }
    return m;
}

void pc_multi_free(pc_multi *m) {
    if (!m) return;
    curl_multi_cleanup(m->multi);
    free(m);
}

int pc_multi_add(pc_multi *m, pc_transfer *t) {
    CURLMcode rc = curl_multi_add_handle(m->multi, t->easy);
    if (rc != CURLM_OK) {
        snprintf(t->errbuf, sizeof t->errbuf, "could not start transfer: %s", curl_multi_strerror(rc));
        pc_transfer_finish(t, CURLE_FAILED_INIT);
        return -1;
    }
    t->in_multi = 1;
    return 0;
}

int pc_multi_perform(pc_multi *m) {
    int running = 0;
    return curl_multi_perform(m->multi, &running) == CURLM_OK ? running : -1;
}

void pc_multi_poll(pc_multi *m, int timeout_ms) {
    curl_multi_poll(m->multi, NULL, 0, timeout_ms, NULL);
}

void pc_multi_wakeup(pc_multi *m) {
    curl_multi_wakeup(m->multi);
}

static void detach(pc_multi *m, pc_transfer *t) {
    if (t->in_multi) {
        curl_multi_remove_handle(m->multi, t->easy);
        t->in_multi = 0;
    }
}

pc_transfer *pc_multi_next_done(pc_multi *m) {
    int left = 0;
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(m->multi, &left)) != NULL) {
        if (msg->msg != CURLMSG_DONE) continue;
        // The message dies with curl_multi_remove_handle: copy what is needed first.
        CURL *easy = msg->easy_handle;
        CURLcode code = msg->data.result;
        pc_transfer *t = NULL;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&t);
        detach(m, t);
        pc_transfer_finish(t, code);
        return t;
    }
    return NULL;
}

void pc_multi_abort(pc_multi *m, pc_transfer *t) {
    if (!t->easy) return;
    detach(m, t);
    pc_transfer_request_cancel(t);
    pc_transfer_finish(t, CURLE_ABORTED_BY_CALLBACK);
}
