// One transfer: easy-handle setup, the C callbacks, and classification of how it ended.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "transfer_internal.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14; older kernels refuse it, which costs nothing
#endif

// A body of 1 to 16 MB, sized from Content-Length, is faulted in by one call before curl's
// chunks arrive (on huge pages where the kernel lends them on request), where each 4 kB page
// written would fault on its own: ~850 faults for a 3.4 MB photo, about 3% of a thumbnail. Not
// larger: a server that names a large length and then stalls would hold that memory for nothing.
static void prefault(uint8_t *bytes, size_t size) {
    if (size < ((size_t)1 << 20) || size > ((size_t)16 << 20)) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)bytes + page - 1) & ~(page - 1), end = ((uintptr_t)bytes + size) & ~(page - 1);
    if (end <= start) return;
#ifdef MADV_HUGEPAGE
    (void)madvise((void *)start, end - start, MADV_HUGEPAGE); // advice only
#endif
    (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

// Body bytes; refuses (returns 0, curl then fails with CURLE_WRITE_ERROR) past max_bytes.
static size_t on_write(char *data, size_t size, size_t count, void *user) {
    pc_transfer *t = user;
    size_t n = size * count;
    if (atomic_load(&t->cancel)) return 0;
    if ((int64_t)(t->len + n) > t->max_bytes) {
        t->too_large = 1;
        return 0;
    }
    if (t->len + n > t->cap) {
        size_t cap = t->cap;
        if (cap == 0) {
            // Size the first allocation from Content-Length when it is known.
            curl_off_t expected = -1;
            curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected);
            cap = (expected > 0 && expected <= t->max_bytes) ? (size_t)expected : 16384;
        }
        while (cap < t->len + n) cap *= 2;
        if ((int64_t)cap > t->max_bytes) cap = (size_t)t->max_bytes;
        uint8_t *grown = realloc(t->body, cap);
        if (!grown) {
            t->out_of_memory = 1;
            return 0;
        }
        if (t->cap == 0) prefault(grown, cap);
        t->body = grown;
        t->cap = cap;
    }
    memcpy(t->body + t->len, data, n);
    t->len += n;
    return n;
}

// Keeps the reason phrase of the latest status line ("HTTP/1.1 404 Not Found" -> "Not Found").
static size_t on_header(char *data, size_t size, size_t count, void *user) {
    pc_transfer *t = user;
    size_t n = size * count;
    if (n > 5 && memcmp(data, "HTTP/", 5) == 0) {
        size_t i = 5;
        while (i < n && data[i] != ' ') i++;                          // version
        while (i < n && data[i] == ' ') i++;
        while (i < n && data[i] >= '0' && data[i] <= '9') i++;        // status code
        while (i < n && data[i] == ' ') i++;
        size_t end = n;
        while (end > i && (data[end - 1] == '\r' || data[end - 1] == '\n')) end--;
        size_t len = end - i < sizeof t->reason - 1 ? end - i : sizeof t->reason - 1;
        memcpy(t->reason, data + i, len);
        t->reason[len] = '\0';
    }
    if (t->keep_headers) pc_transfer_keep_header(t, data, n);
    return n;
}

// Called by curl while it works on the transfer; nonzero aborts with CURLE_ABORTED_BY_CALLBACK.
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    pc_transfer *t = user;
    return atomic_load(&t->cancel) ? 1 : 0;
}


pc_transfer *pc_transfer_new(const char *url, const pc_options *o, char *err, size_t err_len) {
    pc_global_init();
    pc_transfer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    atomic_init(&t->cancel, 0);
    t->max_bytes = o->max_bytes;
    t->easy = curl_easy_init();
    if (!t->easy) {
        snprintf(err, err_len, "curl_easy_init failed");
        free(t);
        return NULL;
    }
    PC_SET(CURLOPT_PRIVATE, (void *)t);
    PC_SET(CURLOPT_ERRORBUFFER, t->errbuf);
    PC_SET(CURLOPT_URL, url);
    PC_SET(CURLOPT_PROTOCOLS_STR, o->protocols);
    PC_SET(CURLOPT_REDIR_PROTOCOLS_STR, o->protocols);
    PC_SET(CURLOPT_FOLLOWLOCATION, 1L);
    PC_SET(CURLOPT_MAXREDIRS, o->max_redirects);
    PC_SET(CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
    PC_SET(CURLOPT_TIMEOUT_MS, o->total_timeout_ms);
    PC_SET(CURLOPT_NOSIGNAL, 1L);
    PC_SET(CURLOPT_USERAGENT, o->user_agent);
    PC_SET(CURLOPT_ACCEPT_ENCODING, "");
    PC_SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_bytes);
    PC_SET(CURLOPT_WRITEFUNCTION, on_write);
    PC_SET(CURLOPT_WRITEDATA, (void *)t);
    PC_SET(CURLOPT_HEADERFUNCTION, on_header);
    PC_SET(CURLOPT_HEADERDATA, (void *)t);
    PC_SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    PC_SET(CURLOPT_XFERINFODATA, (void *)t);
    PC_SET(CURLOPT_NOPROGRESS, 0L);
    if (o->policy) {
        const char *option = "";
        CURLcode rc = pc_transfer_set_policy(t, o->policy, &option);
        if (rc != CURLE_OK) {
            snprintf(err, err_len, "could not set %s: %s", option, curl_easy_strerror(rc));
            pc_transfer_free(t);
            return NULL;
        }
    }
    return t;
}

void pc_transfer_free(pc_transfer *t) {
    if (!t) return;
    if (t->easy) curl_easy_cleanup(t->easy);
    free(t->body);
    free(t->effective_url);
    free(t->policy_url);
    curl_slist_free_all(t->request_headers);
    free(t->response_headers);
    free(t);
}

int pc_transfer_request_cancel(pc_transfer *t) {
    return atomic_exchange(&t->cancel, 1) == 0;
}

static pc_outcome classify(const pc_transfer *t, CURLcode code) {
    if (atomic_load(&t->cancel)) return PC_OUTCOME_CANCELLED;
    if (pc_transfer_refused_by_policy(t, code)) return PC_OUTCOME_POLICY;
    if (t->too_large || code == CURLE_FILESIZE_EXCEEDED) return PC_OUTCOME_TOO_LARGE;
    if (t->out_of_memory) return PC_OUTCOME_OTHER;
    switch (code) {
    case CURLE_OK: return PC_OUTCOME_OK;
    case CURLE_OPERATION_TIMEDOUT: return PC_OUTCOME_TIMEOUT;
    case CURLE_TOO_MANY_REDIRECTS: return PC_OUTCOME_TOO_MANY_REDIRECTS;
    case CURLE_UNSUPPORTED_PROTOCOL: return PC_OUTCOME_UNSUPPORTED_SCHEME;
    case CURLE_URL_MALFORMAT: return PC_OUTCOME_INVALID_URL;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return PC_OUTCOME_RESOLVE;
    case CURLE_COULDNT_CONNECT: return PC_OUTCOME_CONNECT;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return PC_OUTCOME_CONNECTION;
    case CURLE_ABORTED_BY_CALLBACK: return PC_OUTCOME_CANCELLED;
    default: return PC_OUTCOME_OTHER;
    }
}

void pc_transfer_finish(pc_transfer *t, CURLcode code) {
    if (!t->easy) return;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->status);
    char *url = NULL;
    if (curl_easy_getinfo(t->easy, CURLINFO_EFFECTIVE_URL, &url) == CURLE_OK && url) {
        size_t size = strlen(url) + 1;
        t->effective_url = malloc(size);
        if (t->effective_url) memcpy(t->effective_url, url, size);
    }
    long os_errno = 0;
    curl_easy_getinfo(t->easy, CURLINFO_OS_ERRNO, &os_errno);
    t->os_errno = (int)os_errno;
    long redirects = 0;
    curl_easy_getinfo(t->easy, CURLINFO_REDIRECT_COUNT, &redirects);
    t->redirects = redirects;
    curl_off_t connect_us = 0;
    curl_easy_getinfo(t->easy, CURLINFO_CONNECT_TIME_T, &connect_us);
    t->connected = connect_us > 0;
    if (code != CURLE_OK && t->errbuf[0] == '\0')
        snprintf(t->errbuf, sizeof t->errbuf, "%s", curl_easy_strerror(code));
    if (t->out_of_memory) snprintf(t->errbuf, sizeof t->errbuf, "out of memory");
    t->outcome = classify(t, code);
    curl_easy_cleanup(t->easy);
    t->easy = NULL;
}

void pc_transfer_finish_unstarted(pc_transfer *t) {
    pc_transfer_request_cancel(t);
    pc_transfer_finish(t, CURLE_ABORTED_BY_CALLBACK);
}

pc_outcome pc_transfer_outcome(const pc_transfer *t) { return t->outcome; }
long pc_transfer_http_status(const pc_transfer *t) { return t->status; }
const char *pc_transfer_reason(const pc_transfer *t) { return t->reason; }
const char *pc_transfer_message(const pc_transfer *t) { return t->errbuf; }
const char *pc_transfer_effective_url(const pc_transfer *t) { return t->effective_url ? t->effective_url : ""; }
int pc_transfer_os_errno(const pc_transfer *t) { return t->os_errno; }
int pc_transfer_connected(const pc_transfer *t) { return t->connected; }
long pc_transfer_redirects(const pc_transfer *t) { return t->redirects; }

const char *pc_transfer_policy_reason(const pc_transfer *t) {
    return t->outcome == PC_OUTCOME_POLICY ? t->policy_reason : "";
}

int pc_transfer_policy_reach(const pc_transfer *t) {
    return t->outcome == PC_OUTCOME_POLICY ? t->policy_reach : -1;
}

const char *pc_transfer_policy_url(const pc_transfer *t) {
    return t->outcome == PC_OUTCOME_POLICY && t->policy_url ? t->policy_url : "";
}

uint8_t *pc_transfer_take_body(pc_transfer *t, size_t *len) {
    uint8_t *body = t->body;
    *len = t->len;
    t->body = NULL;
    t->len = t->cap = 0;
    return body;
}
