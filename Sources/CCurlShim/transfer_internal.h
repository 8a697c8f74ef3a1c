#pragma once
// Shared between transfer.c and multi.c; not part of the Swift-visible API.

#include <curl/curl.h>
#include <stdatomic.h>
#include "curl_shim.h"

// Sets an option on `t`'s easy handle inside a function that makes `t` and returns it: on a
// failure it writes which option and why into `err`, frees `t` and returns NULL.
#define PC_SET(option, value)                                                             \
    do {                                                                                  \
        CURLcode rc_ = curl_easy_setopt(t->easy, option, value);                          \
        if (rc_ != CURLE_OK) {                                                            \
            snprintf(err, err_len, "could not set %s: %s", #option, curl_easy_strerror(rc_)); \
            pc_transfer_free(t);                                                          \
            return NULL;                                                                  \
        }                                                                                 \
    } while (0)

// Ownership: `cancel` may be set from any thread. Every other field is set up by the thread that
// creates the transfer, then belongs to the thread that drives it (handed over under a lock),
// and is read by others only after the transfer finished.
struct pc_transfer {
    CURL *easy;                 // NULL once finished
    int in_multi;               // 1 while added to a multi handle

    uint8_t *body;              // malloc'd, grows by doubling up to max_bytes
    size_t len, cap;
    int64_t max_bytes;
    int too_large;              // the write callback refused bytes over max_bytes
    int out_of_memory;

    atomic_int cancel;          // checked in the progress and write callbacks

    char errbuf[CURL_ERROR_SIZE];
    char reason[64];            // reason phrase of the last status line seen

    // Download policy (see transfer_policy.c). `policy` is not owned; it outlives the transfer.
    const pc_policy *policy;
    int policy_abort;           // a callback aborted the transfer on a refusal
    int sockets_refused;        // addresses refused / allowed since the last request was sent
    int sockets_allowed;
    char policy_reason[512];    // the latest refusal
    char *policy_url;           // malloc'd URL of the refused redirect hop, NULL for the first request
    int policy_reach;           // pc_reach of the latest refusal by reach, -1 for any other refusal

    // Requests (see request.c): the header lines sent, owned; and, when `keep_headers` is set,
    // the header lines of the latest response, "Name: value\r\n" each, malloc'd.
    struct curl_slist *request_headers;
    int keep_headers;
    char *response_headers;
    size_t response_headers_len, response_headers_cap;

    // Snapshot taken by pc_transfer_finish.
    pc_outcome outcome;
    long status;
    char *effective_url;
    int os_errno;
    int connected;
    long redirects;             // redirects followed
};

/// Appends one response header line to `response_headers` (a status line starts them anew).
void pc_transfer_keep_header(pc_transfer *t, const char *line, size_t len);

/// Records curl's results, classifies them and releases the easy handle.
void pc_transfer_finish(pc_transfer *t, CURLcode code);

/// Installs the policy callbacks and turns off proxies. On failure `*option` names the option.
CURLcode pc_transfer_set_policy(pc_transfer *t, const pc_policy *policy, const char **option);
/// Whether a transfer that ended with `code` was stopped by the policy.
int pc_transfer_refused_by_policy(const pc_transfer *t, CURLcode code);
