#pragma once
// A small C face over libcurl for Swift: hides the variadic curl_easy_setopt/getinfo and owns
// the C callbacks. libcurl's own headers are not exposed; Swift sees only these opaque types.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One transfer: easy handle, body buffer, byte cap, cancel flag, error text and a snapshot of
/// what curl reported when it ended.
typedef struct pc_transfer pc_transfer;
/// A curl multi handle.
typedef struct pc_multi pc_multi;
/// Allow and deny rules for hosts and addresses; immutable once built, shareable across threads.
typedef struct pc_policy pc_policy;

typedef enum {
    PC_OUTCOME_PENDING = 0,     // not finished yet
    PC_OUTCOME_OK,              // transfer done; look at the HTTP status
    PC_OUTCOME_TIMEOUT,
    PC_OUTCOME_TOO_LARGE,
    PC_OUTCOME_TOO_MANY_REDIRECTS,
    PC_OUTCOME_UNSUPPORTED_SCHEME,
    PC_OUTCOME_INVALID_URL,
    PC_OUTCOME_RESOLVE,         // host name did not resolve
    PC_OUTCOME_CONNECT,         // could not connect
    PC_OUTCOME_CONNECTION,      // connected, then send/receive failed
    PC_OUTCOME_CANCELLED,
    PC_OUTCOME_POLICY,          // refused by the pc_policy (see pc_transfer_policy_reason)
    PC_OUTCOME_OTHER,
} pc_outcome;

typedef struct {
    long connect_timeout_ms;
    long total_timeout_ms;
    int64_t max_bytes;
    long max_redirects;
    const char *protocols;      // comma-separated, e.g. "http,https"
    const char *user_agent;
    const pc_policy *policy;    // may be NULL; must outlive the transfer
} pc_options;

/// curl_global_init, exactly once per process; safe from any thread.
void pc_global_init(void);

/// Splits an absolute URL. Returns 0 on success, -1 if it is not a URL. Scheme and host are
/// lowercased/normalised by curl; port is the explicit or default port (or -1 if unknown).
int pc_url_split(const char *url, char *scheme, size_t scheme_len,
                 char *host, size_t host_len, long *port);

/// Creates a configured transfer, or NULL with a reason in `err`.
pc_transfer *pc_transfer_new(const char *url, const pc_options *options, char *err, size_t err_len);
/// Frees everything (removal from a multi must have happened, see pc_multi_*).
void pc_transfer_free(pc_transfer *t);

/// Sets the cancel flag; any thread, any time before pc_transfer_free. Returns 1 the first time.
int pc_transfer_request_cancel(pc_transfer *t);

/// After the transfer finished (pc_multi_next_done / pc_multi_abort / pc_transfer_finish_unstarted):
pc_outcome pc_transfer_outcome(const pc_transfer *t);
long pc_transfer_http_status(const pc_transfer *t);
const char *pc_transfer_reason(const pc_transfer *t);        // reason phrase of the last status line, may be ""
const char *pc_transfer_message(const pc_transfer *t);       // curl's error text, may be ""
const char *pc_transfer_effective_url(const pc_transfer *t); // may be ""
int pc_transfer_os_errno(const pc_transfer *t);
int pc_transfer_connected(const pc_transfer *t);             // 1 if a connection was established
long pc_transfer_redirects(const pc_transfer *t);            // redirects followed
/// For PC_OUTCOME_POLICY: why, e.g. "169.254.169.254 is in the denied range 169.254.0.0/16".
const char *pc_transfer_policy_reason(const pc_transfer *t);
/// For PC_OUTCOME_POLICY: the URL of the refused redirect hop, "" if the first request was refused.
const char *pc_transfer_policy_url(const pc_transfer *t);
/// For PC_OUTCOME_POLICY: the pc_reach class that refused the hop, or -1 when a deny or allow
/// list entry (or something else) refused it.
int pc_transfer_policy_reach(const pc_transfer *t);
/// Hands over the malloc'd body (caller frees); *len gets its size. NULL when empty.
uint8_t *pc_transfer_take_body(pc_transfer *t, size_t *len);
/// Marks a transfer that was never added to a multi as cancelled and releases its easy handle.
void pc_transfer_finish_unstarted(pc_transfer *t);

pc_multi *pc_multi_new(void);
void pc_multi_free(pc_multi *m);   // transfers must have been removed first
/// Adds a transfer; 0 on success (on failure the transfer is finished with OTHER).
int pc_multi_add(pc_multi *m, pc_transfer *t);
/// Drives all transfers; returns the number still running, or -1 on a multi error.
int pc_multi_perform(pc_multi *m);
/// Waits for activity, curl's own timers, a wakeup, or timeout_ms.
void pc_multi_poll(pc_multi *m, int timeout_ms);
/// Interrupts pc_multi_poll; safe from any thread while `m` is alive.
void pc_multi_wakeup(pc_multi *m);
/// Next finished transfer, already removed from the multi and finished; NULL when none.
pc_transfer *pc_multi_next_done(pc_multi *m);
/// Removes a running transfer at once and finishes it as cancelled.
void pc_multi_abort(pc_multi *m, pc_transfer *t);

/// A request other than a plain download: a method, header lines and a body, and AWS Signature
/// Version 4 signing by libcurl (CURLOPT_AWS_SIGV4). Every string and the body are copied.
typedef struct {
    const char *method;                // "GET", "HEAD", "PUT", "POST" or "DELETE"
    const uint8_t *body;               // may be NULL: no body
    size_t body_len;
    const char *const *headers;        // "Name: value" lines
    size_t header_count;
    const char *aws_sigv4;             // e.g. "aws:amz:us-east-1:s3"; NULL: not signed
    const char *user;                  // the access key id (with aws_sigv4)
    const char *password;              // the secret key (with aws_sigv4); never logged
} pc_request;

/// Creates a transfer for `request`, or NULL with a reason in `err`. Unlike a download, it follows
/// no redirect, sends the path as given (no "." or ".." squashing), asks for no content encoding,
/// and ends OK whatever the HTTP status: the caller reads the status, headers and body. The
/// options' policy is not used (the caller chose the host).
pc_transfer *pc_request_new(const char *url, const pc_options *options, const pc_request *request,
                            char *err, size_t err_len);
/// The value of a header of the latest response to a request (name case-insensitive), copied
/// into `value`; returns its length, or -1 when the response has no such header.
long pc_transfer_header(const pc_transfer *t, const char *name, char *value, size_t value_len);

/// Where an address leads, as the reach rules see it: every range of the IANA IPv4 and IPv6
/// special-purpose registries has a class. IPv6 forms that embed an IPv4 address (IPv4-mapped
/// ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, IPv4-compatible ::/96, NAT64 64:ff9b::/96,
/// 6to4 2002::/16) have the class of the IPv4 address they embed, except that NAT64 and 6to4
/// must not embed a private address (RFC 6052, RFC 3056): those are PC_REACH_TUNNEL.
typedef enum {
    PC_REACH_PUBLIC = 0,        // anything not below
    PC_REACH_PRIVATE,           // 10/8, 172.16/12, 192.168/16, fc00::/7: allowed
    PC_REACH_LOOPBACK,          // 127/8, ::1
    PC_REACH_LINK_LOCAL,        // 169.254/16, fe80::/10
    PC_REACH_METADATA,          // cloud metadata: 169.254.169.254, fd00:ec2::254, 100.100.100.200
    PC_REACH_UNSPECIFIED,       // 0/8, ::
    PC_REACH_SHARED,            // carrier-grade NAT, 100.64/10
    PC_REACH_MULTICAST,         // 224/4, ff00::/8
    PC_REACH_DOCUMENTATION,     // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
    PC_REACH_BENCHMARKING,      // 198.18/15, 2001:2::/48
    PC_REACH_RESERVED,          // 240/4 and broadcast, 192.0.0/24, 192.88.99/24, 100::/64, 2001::/23,
                                // 5f00::/16, fec0::/10, and all IPv6 outside 2000::/3 not named here
    PC_REACH_TUNNEL,            // local-use NAT64 64:ff9b:1::/48, Teredo 2001::/32, NAT64 or 6to4
                                // embedding a private address: where they lead cannot be checked
    PC_REACH_COUNT
} pc_reach;

/// Classifies an IP address (brackets allowed). Returns its pc_reach, or -1 if it is not an IP
/// address. When the class comes from an embedded IPv4 address, that address is written to
/// `embedded` (if not NULL), otherwise `embedded` gets "".
int pc_reach_classify(const char *address, char *embedded, size_t embedded_len);
/// A class's name in refusals, e.g. "loopback"; "" for an unknown value.
const char *pc_reach_name(int reach);

/// An empty policy (allows everything), or NULL when out of memory.
pc_policy *pc_policy_new(void);
void pc_policy_free(pc_policy *p);
/// Adds an entry to the deny list (deny = 1) or allow list (deny = 0): a host name, "*.domain"
/// (subdomains only), an IPv4/IPv6 address or a CIDR range. `note` (may be NULL) is quoted in
/// refusals. Returns 0, or -1 with the reason in `err`. Not thread-safe: build, then share.
int pc_policy_add(pc_policy *p, int deny, const char *entry, const char *note, char *err, size_t err_len);
/// Refuses every address whose pc_reach has its bit (1 << reach) set in `mask`, the first
/// request and every redirect alike; neither list can let such an address through.
void pc_policy_refuse_reach(pc_policy *p, unsigned mask);
/// Decides on `host` (as in the URL) and, if not NULL, the IP address about to be used.
/// Returns 1 if allowed (or undecided until the address is known), 0 with the reason in `why`.
int pc_policy_allows(const pc_policy *p, const char *host, const char *address, char *why, size_t why_len);
/// As pc_policy_allows; on a refusal by reach `*reach` gets the class, otherwise -1.
int pc_policy_check(const pc_policy *p, const char *host, const char *address, char *why, size_t why_len, int *reach);

#ifdef __cplusplus
}
#endif
