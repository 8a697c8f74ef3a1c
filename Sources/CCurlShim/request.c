// Requests with a method, headers and a body, signed by libcurl's AWS Signature Version 4
// (S3's GET, PUT, POST and DELETE), and the response headers they need (an upload part's ETag).

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "transfer_internal.h"


static int add_header(pc_transfer *t, const char *line) {
    struct curl_slist *grown = curl_slist_append(t->request_headers, line);
    if (!grown) return -1;
    t->request_headers = grown;
    return 0;
}

pc_transfer *pc_request_new(const char *url, const pc_options *o, const pc_request *r, char *err, size_t err_len) {
    pc_options plain = *o;
    plain.policy = NULL;
    pc_transfer *t = pc_transfer_new(url, &plain, err, err_len);
    if (!t) return NULL;
    t->keep_headers = 1;
    // A redirect is an answer to judge (S3 names the bucket's region in it), not a place to go.
    PC_SET(CURLOPT_FOLLOWLOCATION, 0L);
    // An object key may hold "." and ".." segments: they are part of its name.
    PC_SET(CURLOPT_PATH_AS_IS, 1L);
    // The bytes as stored, not decoded.
    PC_SET(CURLOPT_ACCEPT_ENCODING, (char *)NULL);

    const char *method = r->method ? r->method : "GET";
    if (strcmp(method, "HEAD") == 0) {
        PC_SET(CURLOPT_NOBODY, 1L);
    } else if (strcmp(method, "GET") != 0) {
        PC_SET(CURLOPT_CUSTOMREQUEST, method);
    }
    if (r->body || strcmp(method, "PUT") == 0 || strcmp(method, "POST") == 0) {
        // The body as POST fields (copied), so the signature covers it and no read callback is needed.
        PC_SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
        PC_SET(CURLOPT_COPYPOSTFIELDS, r->body ? (const char *)r->body : "");
        // curl sends a large body after "Expect: 100-continue", which lets S3 refuse it before
        // it is sent. (Removing that header with an empty "Expect:" line would not do: libcurl's
        // SigV4 would sign the empty header, and no server sees it.)
    }
    for (size_t i = 0; i < r->header_count; i++) {
        if (add_header(t, r->headers[i]) != 0) goto out_of_memory;
    }
    if (t->request_headers) PC_SET(CURLOPT_HTTPHEADER, t->request_headers);
    if (r->aws_sigv4) {
        PC_SET(CURLOPT_AWS_SIGV4, r->aws_sigv4);
        PC_SET(CURLOPT_USERNAME, r->user ? r->user : "");
        PC_SET(CURLOPT_PASSWORD, r->password ? r->password : "");
    }
    return t;

out_of_memory:
    snprintf(err, err_len, "out of memory");
    pc_transfer_free(t);
    return NULL;
}

void pc_transfer_keep_header(pc_transfer *t, const char *line, size_t len) {
    if (len > 5 && memcmp(line, "HTTP/", 5) == 0) {
        t->response_headers_len = 0;   // a new response (after a 100 Continue, say)
        return;
    }
    if (t->response_headers_len + len + 1 > 65536) return;   // enough for any S3 answer
    if (t->response_headers_len + len + 1 > t->response_headers_cap) {
        size_t cap = t->response_headers_cap ? t->response_headers_cap : 1024;
        while (cap < t->response_headers_len + len + 1) cap *= 2;
        char *grown = realloc(t->response_headers, cap);
        if (!grown) return;
        t->response_headers = grown;
        t->response_headers_cap = cap;
    }
    memcpy(t->response_headers + t->response_headers_len, line, len);
    t->response_headers_len += len;
    t->response_headers[t->response_headers_len] = '\0';
}

long pc_transfer_header(const pc_transfer *t, const char *name, char *value, size_t value_len) {
    if (!t->response_headers) return -1;
    size_t name_len = strlen(name);
    long found = -1;
    const char *line = t->response_headers;
    const char *end = t->response_headers + t->response_headers_len;
    while (line < end) {
        const char *next = memchr(line, '\n', (size_t)(end - line));
        next = next ? next + 1 : end;
        if ((size_t)(next - line) > name_len && strncasecmp(line, name, name_len) == 0 && line[name_len] == ':') {
            const char *start = line + name_len + 1;
            const char *stop = next;
            while (start < stop && (*start == ' ' || *start == '\t')) start++;
            while (stop > start && (stop[-1] == '\r' || stop[-1] == '\n' || stop[-1] == ' ')) stop--;
            size_t len = (size_t)(stop - start);
            if (value_len > 0) {
                size_t copied = len < value_len - 1 ? len : value_len - 1;
                memcpy(value, start, copied);
                value[copied] = '\0';
            }
            found = (long)len;   // the last one wins, as for a repeated header
        }
        line = next;
    }
    return found;
}
