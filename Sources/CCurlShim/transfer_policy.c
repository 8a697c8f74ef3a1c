// Enforces the download policy on every hop of a transfer, the first request and each redirect:
// - the host name before it is resolved (resolver-start callback), so a denied name fails as
//   the policy rather than as a DNS error;
// - every address before a socket is opened for it (opensocket callback), so nothing connects;
// - host and connected address again before each request is sent (prereq callback), which
//   also covers reused connections and names already in curl's DNS cache.
// All three run on the thread driving the multi handle.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "policy_internal.h"
#include "transfer_internal.h"

// Host of the hop curl works on: CURLINFO_EFFECTIVE_URL already names a redirect's target.
static int hop_host(const char *url, char *host, size_t len) {
    CURLU *u = curl_url();
    if (!u) return -1;
    char *part = NULL;
    int ok = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK
        && curl_url_get(u, CURLUPART_HOST, &part, CURLU_PUNYCODE) == CURLUE_OK
        && strlen(part) < len;
    if (ok) memcpy(host, part, strlen(part) + 1);
    curl_free(part);
    curl_url_cleanup(u);
    return ok ? 0 : -1;
}

static void refuse(pc_transfer *t, const char *why, const char *url, long redirects, int reach) {
    snprintf(t->policy_reason, sizeof t->policy_reason, "%s", why);
    t->policy_reach = reach;
    free(t->policy_url);
    t->policy_url = NULL;
    if (redirects > 0 && url) {
        size_t size = strlen(url) + 1;
        t->policy_url = malloc(size);
        if (t->policy_url) memcpy(t->policy_url, url, size);
    }
}

// Checks the current hop; `ip` is NULL before resolution. Records the reason on a refusal.
static int hop_allowed(pc_transfer *t, const pc_ip *ip) {
    char *url = NULL;
    long redirects = 0;
    curl_easy_getinfo(t->easy, CURLINFO_EFFECTIVE_URL, &url);
    curl_easy_getinfo(t->easy, CURLINFO_REDIRECT_COUNT, &redirects);
    char host[PC_HOST_MAX], why[PC_REASON_MAX];
    if (!url || hop_host(url, host, sizeof host) != 0) {
        snprintf(why, sizeof why, "could not read the host name of %s", url ? url : "the URL");
        refuse(t, why, url, redirects, -1);
        return 0;
    }
    int reach = -1;
    if (pc_policy_decide(t->policy, host, ip, why, sizeof why, &reach)) return 1;
    refuse(t, why, url, redirects, reach);
    return 0;
}

// Nonzero fails the resolve (CURLE_COULDNT_RESOLVE_HOST); also called for IP-literal hosts.
static int on_resolver_start(void *resolver_state, void *reserved, void *user) {
    (void)resolver_state; (void)reserved;
    pc_transfer *t = user;
    if (hop_allowed(t, NULL)) return 0;
    t->policy_abort = 1;
    return 1;
}

// CURL_SOCKET_BAD makes curl skip this address and try the next (CURLE_COULDNT_CONNECT if none).
static curl_socket_t on_open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    pc_transfer *t = user;
    pc_ip ip;
    if (pc_ip_from_sockaddr(&address->addr, &ip) != 0) {
        char why[64];
        snprintf(why, sizeof why, "address family %d is not allowed", address->family);
        refuse(t, why, NULL, 0, -1);
        t->sockets_refused++;
        return CURL_SOCKET_BAD;
    }
    if (!hop_allowed(t, &ip)) {
        t->sockets_refused++;
        return CURL_SOCKET_BAD;
    }
    t->sockets_allowed++;
    int type = address->socktype;
#ifdef SOCK_CLOEXEC
    type |= SOCK_CLOEXEC;
#endif
    return socket(address->family, type, address->protocol);
}

static int on_prereq(void *user, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)local_ip; (void)primary_port; (void)local_port;
    pc_transfer *t = user;
    pc_ip ip;
    int allowed;
    if (!primary_ip || pc_ip_parse(primary_ip, &ip) != 0) {
        char why[128];
        snprintf(why, sizeof why, "connected address '%s' is not an IP address", primary_ip ? primary_ip : "");
        refuse(t, why, NULL, 0, -1);
        allowed = 0;
    } else {
        allowed = hop_allowed(t, &ip);
    }
    if (!allowed) {
        t->policy_abort = 1;
        return CURL_PREREQFUNC_ABORT;
    }
    // This hop is connected: refusals of its other addresses no longer decide how it ends.
    t->sockets_refused = t->sockets_allowed = 0;
    return CURL_PREREQFUNC_OK;
}

#define SET_POLICY(opt, value)                                                        \
    do {                                                                              \
        CURLcode rc_ = curl_easy_setopt(t->easy, opt, value);                         \
        if (rc_ != CURLE_OK) {                                                        \
            *option = #opt;                                                           \
            return rc_;                                                               \
        }                                                                             \
    } while (0)

CURLcode pc_transfer_set_policy(pc_transfer *t, const pc_policy *policy, const char **option) {
    t->policy = policy;
    t->policy_reach = -1;
    SET_POLICY(CURLOPT_RESOLVER_START_FUNCTION, on_resolver_start);
    SET_POLICY(CURLOPT_RESOLVER_START_DATA, (void *)t);
    SET_POLICY(CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    SET_POLICY(CURLOPT_OPENSOCKETDATA, (void *)t);
    SET_POLICY(CURLOPT_PREREQFUNCTION, on_prereq);
    SET_POLICY(CURLOPT_PREREQDATA, (void *)t);
    // Through a proxy the address checked would be the proxy's, so proxies from the
    // environment (http_proxy, ...) are ignored.
    SET_POLICY(CURLOPT_PROXY, "");
    return CURLE_OK;
}

int pc_transfer_refused_by_policy(const pc_transfer *t, CURLcode code) {
    if (code == CURLE_OK) return 0;
    if (t->policy_abort) return 1;
    // Every address of the failing hop was refused before connecting.
    return code == CURLE_COULDNT_CONNECT && t->sockets_refused > 0 && t->sockets_allowed == 0;
}
