#pragma once
// The policy matcher as the transfer callbacks use it; not part of the Swift-visible API.

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "curl_shim.h"

/// Room for a host name (253 bytes at most), a "*." prefix and the NUL.
#define PC_HOST_MAX 256
/// Room for a refusal reason.
#define PC_REASON_MAX 512

/// An IP address: family 4 (first 4 bytes used) or 6. IPv4-mapped IPv6 addresses
/// (::ffff:a.b.c.d) are stored as IPv4, so the IPv4 rules apply to them.
typedef struct {
    int family;
    uint8_t bytes[16];
} pc_ip;

/// Parses "a.b.c.d", an IPv6 address, or one in brackets. Returns 0, or -1 if it is none.
int pc_ip_parse(const char *text, pc_ip *out);
/// Reads an AF_INET/AF_INET6 socket address. Returns 0, or -1 for any other family.
int pc_ip_from_sockaddr(const struct sockaddr *sa, pc_ip *out);
void pc_ip_format(const pc_ip *ip, char *buf, size_t len);

/// The decision for one request: `host` as in the URL, `ip` the address about to be used or
/// NULL before resolution (an IP-literal host then counts as its address). Returns 1 if
/// allowed or still undecided, 0 with the reason in `why`.
/// `*reach` (if not NULL) gets the pc_reach class of a refusal by reach, otherwise -1.
int pc_policy_decide(const pc_policy *p, const char *host, const pc_ip *ip, char *why, size_t why_len, int *reach);
/// The pc_reach of an address; `embedded` (if not NULL) gets the IPv4 address an IPv6 form
/// embeds and `*has_embedded` whether there was one.
pc_reach pc_ip_reach(const pc_ip *ip, pc_ip *embedded, int *has_embedded);
