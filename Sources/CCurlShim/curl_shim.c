// Process-wide setup and URL splitting.

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "curl_shim.h"

static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void global_init_once(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

void pc_global_init(void) {
    pthread_once(&global_once, global_init_once);
}

static void copy_out(char *dst, size_t dst_len, const char *src) {
    if (dst_len == 0) return;
    snprintf(dst, dst_len, "%s", src ? src : "");
}

int pc_url_split(const char *url, char *scheme, size_t scheme_len,
                 char *host, size_t host_len, long *port) {
    copy_out(scheme, scheme_len, "");
    copy_out(host, host_len, "");
    *port = -1;
    CURLU *u = curl_url();
    if (!u) return -1;
    // Accept any scheme here so the caller can tell "not allowed" apart from "not a URL".
    if (curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
        curl_url_cleanup(u);
        return -1;
    }
    char *part = NULL;
    if (curl_url_get(u, CURLUPART_SCHEME, &part, 0) == CURLUE_OK) {
        copy_out(scheme, scheme_len, part);
        curl_free(part);
    }
    part = NULL;
    if (curl_url_get(u, CURLUPART_HOST, &part, 0) == CURLUE_OK) {
        copy_out(host, host_len, part);
        curl_free(part);
    }
    part = NULL;
    if (curl_url_get(u, CURLUPART_PORT, &part, CURLU_DEFAULT_PORT) == CURLUE_OK) {
        *port = strtol(part, NULL, 10);
        curl_free(part);
    }
    curl_url_cleanup(u);
    return 0;
}
