// The download policy: parsing allow/deny entries and deciding on a host and an address.
// Pure C, no libcurl, so the same code serves the transfer callbacks and pc_policy_allows.

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy_internal.h"

typedef struct {
    char entry[PC_HOST_MAX];    // as given, for messages
    char note[128];             // quoted after the entry in refusals; may be ""
    int is_name;
    // Host-name rule: lowercased, without "*." and without a trailing dot.
    char name[PC_HOST_MAX];
    int subdomains;             // "*." given: matches names below `name`, not `name` itself
    // Address rule.
    pc_ip net;
    int prefix;
    int single;                 // written without a prefix length
} pc_rule;

typedef struct {
    pc_rule *rules;
    size_t count;
    int has_ranges;
} pc_rule_list;

struct pc_policy {
    pc_rule_list allow, deny;
    unsigned refused_reach;     // 1 << pc_reach for each class refused
};

// MARK: addresses

static void unmap_v4(pc_ip *ip) {
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (ip->family == 6 && memcmp(ip->bytes, mapped, 12) == 0) {
        memmove(ip->bytes, ip->bytes + 12, 4);
        memset(ip->bytes + 4, 0, 12);
        ip->family = 4;
    }
}

// Like pc_ip_parse, but keeps IPv4-mapped IPv6 addresses as IPv6.
static int parse_raw(const char *text, pc_ip *out) {
    char buf[64];
    size_t n = strlen(text);
    if (n >= 2 && text[0] == '[' && text[n - 1] == ']') {
        text++;
        n -= 2;
    }
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, buf, out->bytes) == 1) {
        out->family = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, buf, out->bytes) == 1) {
        out->family = 6;
        return 0;
    }
    return -1;
}

int pc_ip_parse(const char *text, pc_ip *out) {
    if (parse_raw(text, out) != 0) return -1;
    unmap_v4(out);
    return 0;
}

int pc_ip_from_sockaddr(const struct sockaddr *sa, pc_ip *out) {
    memset(out, 0, sizeof *out);
    if (sa->sa_family == AF_INET) {
        out->family = 4;
        memcpy(out->bytes, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return 0;
    }
    if (sa->sa_family == AF_INET6) {
        out->family = 6;
        memcpy(out->bytes, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        unmap_v4(out);
        return 0;
    }
    return -1;
}

void pc_ip_format(const pc_ip *ip, char *buf, size_t len) {
    if (!inet_ntop(ip->family == 4 ? AF_INET : AF_INET6, ip->bytes, buf, (socklen_t)len) && len > 0)
        buf[0] = '\0';
}

static int in_range(const pc_rule *r, const pc_ip *ip) {
    if (r->is_name || r->net.family != ip->family) return 0;
    int whole = r->prefix / 8, bits = r->prefix % 8;
    if (memcmp(r->net.bytes, ip->bytes, (size_t)whole) != 0) return 0;
    if (bits == 0) return 1;
    uint8_t mask = (uint8_t)(0xff << (8 - bits));
    return (r->net.bytes[whole] & mask) == (ip->bytes[whole] & mask);
}

// MARK: reach

static pc_reach v4_reach(const uint8_t *b) {
    if (b[0] == 169 && b[1] == 254 && b[2] == 169 && b[3] == 254) return PC_REACH_METADATA;
    if (b[0] == 100 && b[1] == 100 && b[2] == 100 && b[3] == 200) return PC_REACH_METADATA;
    if (b[0] == 0) return PC_REACH_UNSPECIFIED;
    if (b[0] == 127) return PC_REACH_LOOPBACK;
    if (b[0] == 169 && b[1] == 254) return PC_REACH_LINK_LOCAL;
    if (b[0] == 100 && (b[1] & 0xc0) == 64) return PC_REACH_SHARED;
    if (b[0] == 10 || (b[0] == 172 && (b[1] & 0xf0) == 16) || (b[0] == 192 && b[1] == 168)) return PC_REACH_PRIVATE;
    if (b[0] == 192 && b[1] == 0 && b[2] == 0) {
        // IETF protocol assignments; only the PCP and TURN anycast addresses are global.
        return b[3] == 9 || b[3] == 10 ? PC_REACH_PUBLIC : PC_REACH_RESERVED;
    }
    if ((b[0] == 192 && b[1] == 0 && b[2] == 2) || (b[0] == 198 && b[1] == 51 && b[2] == 100) ||
        (b[0] == 203 && b[1] == 0 && b[2] == 113))
        return PC_REACH_DOCUMENTATION;
    if (b[0] == 198 && (b[1] & 0xfe) == 18) return PC_REACH_BENCHMARKING;
    if (b[0] == 192 && b[1] == 88 && b[2] == 99) return PC_REACH_RESERVED;   // deprecated 6to4 relay anycast
    if ((b[0] & 0xf0) == 224) return PC_REACH_MULTICAST;
    if ((b[0] & 0xf0) == 240) return PC_REACH_RESERVED;                     // 240/4 and 255.255.255.255
    return PC_REACH_PUBLIC;
}

// Where an IPv6 address embeds an IPv4 one: byte offset of the IPv4 address, or -1. `*tunnel`
// is set for the forms that go through a translator or relay (NAT64, 6to4).
static int v4_offset(const uint8_t *b, int *tunnel) {
    static const uint8_t zero[12] = {0};
    static const uint8_t translated[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    *tunnel = 0;
    if (memcmp(b, zero, 12) == 0) {
        // IPv4-compatible ::a.b.c.d; :: and ::1 are addresses of their own.
        return (b[12] | b[13] | b[14]) == 0 && b[15] <= 1 ? -1 : 12;
    }
    if (memcmp(b, translated, 12) == 0) return 12;
    *tunnel = 1;
    if (memcmp(b, nat64, 12) == 0) return 12;
    if (b[0] == 0x20 && b[1] == 0x02) return 2;   // 6to4 2002:AABB:CCDD::/48
    *tunnel = 0;
    return -1;
}

static int has_prefix(const uint8_t *b, const uint8_t *prefix, int bits) {
    int whole = bits / 8, rest = bits % 8;
    if (memcmp(b, prefix, (size_t)whole) != 0) return 0;
    if (rest == 0) return 1;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (b[whole] & mask) == (prefix[whole] & mask);
}

// The IETF protocol assignments 2001::/23 (RFC 2928): Teredo, benchmarking, ORCHID and the
// rest are reserved or special; the few the registry marks globally reachable are public.
static pc_reach ietf_reach(const uint8_t *b) {
    static const uint8_t teredo[] = {0x20, 0x01, 0, 0};
    static const uint8_t anycast[] = {0x20, 0x01, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t benchmarking[] = {0x20, 0x01, 0, 0x02, 0, 0};
    static const uint8_t amt[] = {0x20, 0x01, 0, 0x03};
    static const uint8_t as112[] = {0x20, 0x01, 0, 0x04, 0x01, 0x12};
    static const uint8_t orchid2[] = {0x20, 0x01, 0, 0x20};
    static const uint8_t drip[] = {0x20, 0x01, 0, 0x30};
    if (has_prefix(b, teredo, 32)) return PC_REACH_TUNNEL;
    if (has_prefix(b, anycast, 120) && b[15] >= 1 && b[15] <= 3) return PC_REACH_PUBLIC;   // PCP, TURN, DNS-SD SRP
    if (has_prefix(b, benchmarking, 48)) return PC_REACH_BENCHMARKING;
    if (has_prefix(b, amt, 32) || has_prefix(b, as112, 48) || has_prefix(b, orchid2, 28) || has_prefix(b, drip, 28))
        return PC_REACH_PUBLIC;
    return PC_REACH_RESERVED;
}

pc_reach pc_ip_reach(const pc_ip *ip, pc_ip *embedded, int *has_embedded) {
    if (has_embedded) *has_embedded = 0;
    const uint8_t *b = ip->bytes;
    if (ip->family == 4) return v4_reach(b);
    static const uint8_t metadata6[16] = {0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54};
    static const uint8_t zero[15] = {0};
    static const uint8_t nat64_local[] = {0, 0x64, 0xff, 0x9b, 0, 0x01};
    static const uint8_t ietf[] = {0x20, 0x01, 0};
    static const uint8_t documentation[] = {0x20, 0x01, 0x0d, 0xb8};
    static const uint8_t documentation2[] = {0x3f, 0xff, 0};
    if (memcmp(b, zero, 15) == 0 && b[15] <= 1) return b[15] == 1 ? PC_REACH_LOOPBACK : PC_REACH_UNSPECIFIED;
    if (memcmp(b, metadata6, 16) == 0) return PC_REACH_METADATA;
    if (b[0] == 0xff) return PC_REACH_MULTICAST;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return PC_REACH_LINK_LOCAL;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return PC_REACH_RESERVED;        // site-local, deprecated
    if ((b[0] & 0xfe) == 0xfc) return PC_REACH_PRIVATE;
    if (has_prefix(b, nat64_local, 48)) return PC_REACH_TUNNEL;
    if (has_prefix(b, ietf, 23)) return ietf_reach(b);
    if (has_prefix(b, documentation, 32) || has_prefix(b, documentation2, 20)) return PC_REACH_DOCUMENTATION;
    int tunnel = 0;
    int offset = v4_offset(b, &tunnel);
    if (offset < 0) {
        // Global unicast is 2000::/3; the rest of the space (100::/64 discard-only, 5f00::/16
        // SRv6 SIDs, unassigned blocks) is reserved.
        return (b[0] & 0xe0) == 0x20 ? PC_REACH_PUBLIC : PC_REACH_RESERVED;
    }
    if (embedded) {
        memset(embedded, 0, sizeof *embedded);
        embedded->family = 4;
        memcpy(embedded->bytes, b + offset, 4);
    }
    if (has_embedded) *has_embedded = 1;
    pc_reach inner = v4_reach(b + offset);
    return tunnel && inner == PC_REACH_PRIVATE ? PC_REACH_TUNNEL : inner;
}

int pc_reach_classify(const char *address, char *embedded, size_t embedded_len) {
    if (embedded && embedded_len > 0) embedded[0] = '\0';
    pc_ip ip, inner;
    int has_embedded = 0;
    if (!address || pc_ip_parse(address, &ip) != 0) return -1;
    pc_reach reach = pc_ip_reach(&ip, &inner, &has_embedded);
    if (has_embedded && embedded) pc_ip_format(&inner, embedded, embedded_len);
    return (int)reach;
}

const char *pc_reach_name(int reach) {
    switch (reach) {
    case PC_REACH_PUBLIC: return "public";
    case PC_REACH_PRIVATE: return "private";
    case PC_REACH_LOOPBACK: return "loopback";
    case PC_REACH_LINK_LOCAL: return "link-local";
    case PC_REACH_METADATA: return "cloud metadata";
    case PC_REACH_UNSPECIFIED: return "unspecified";
    case PC_REACH_SHARED: return "carrier-grade NAT";
    case PC_REACH_MULTICAST: return "multicast";
    case PC_REACH_DOCUMENTATION: return "documentation";
    case PC_REACH_BENCHMARKING: return "benchmarking";
    case PC_REACH_RESERVED: return "reserved";
    case PC_REACH_TUNNEL: return "tunnelled";
    default: return "";
    }
}

// MARK: host names

// Lowercases and drops one trailing dot ("example.com." is "example.com").
static int normalize_host(const char *host, char *out, size_t len) {
    size_t n = strlen(host);
    if (n > 1 && host[n - 1] == '.') n--;
    if (n >= len) return -1;
    for (size_t i = 0; i < n; i++) out[i] = (char)tolower((unsigned char)host[i]);
    out[n] = '\0';
    return 0;
}

static int name_matches(const pc_rule *r, const char *host) {
    if (!r->is_name) return 0;
    if (!r->subdomains) return strcmp(host, r->name) == 0;
    size_t h = strlen(host), n = strlen(r->name);
    return h > n + 1 && host[h - n - 1] == '.' && strcmp(host + h - n, r->name) == 0;
}

// Letters, digits, '-' and '_' in labels of 1 to 63 bytes; a numeric last label is a
// mistyped address ("10.0.0.256"), never a name.
static const char *check_name(const char *name) {
    if (strchr(name, '*')) return "a wildcard is only allowed as a leading '*.'";
    size_t label = 0;
    int numeric = 1;
    for (const char *c = name;; c++) {
        if (*c == '.' || *c == '\0') {
            if (label == 0) return "not a host name, IP address or CIDR range";
            if (label > 63) return "a host name label is longer than 63 bytes";
            if (*c == '\0') break;
            label = 0;
            numeric = 1;
            continue;
        }
        if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
            return "not a host name, IP address or CIDR range";
        if (!isdigit((unsigned char)*c)) numeric = 0;
        label++;
    }
    return numeric ? "not a valid IP address" : NULL;
}

// MARK: building

static const char *parse_entry(const char *entry, pc_rule *r) {
    size_t n = strlen(entry);
    if (n == 0) return "empty entry";
    if (n >= sizeof r->entry) return "too long";
    memcpy(r->entry, entry, n + 1);
    if (strstr(entry, "://")) return "a URL; give its host name only";
    const char *slash = strchr(entry, '/');
    if (slash) {
        char address[PC_HOST_MAX];
        memcpy(address, entry, (size_t)(slash - entry));
        address[slash - entry] = '\0';
        if (parse_raw(address, &r->net) != 0) return "not a valid IP address before the '/'";
        int max = r->net.family == 4 ? 32 : 128;
        const char *digits = slash + 1;
        size_t count = strspn(digits, "0123456789");
        if (count == 0 || count > 3 || digits[count] != '\0' || atoi(digits) > max)
            return max == 32 ? "the prefix length must be 0 to 32" : "the prefix length must be 0 to 128";
        r->prefix = atoi(digits);
        pc_ip unmapped = r->net;
        unmap_v4(&unmapped);
        if (unmapped.family == 4 && r->net.family == 6) {
            if (r->prefix < 96) return "an IPv4-mapped range needs a prefix length of at least 96";
            r->net = unmapped;
            r->prefix -= 96;
        }
        return NULL;
    }
    if (pc_ip_parse(entry, &r->net) == 0) {
        r->prefix = r->net.family == 4 ? 32 : 128;
        r->single = 1;
        return NULL;
    }
    r->is_name = 1;
    const char *name = entry;
    if (strncmp(name, "*.", 2) == 0) {
        r->subdomains = 1;
        name += 2;
    }
    normalize_host(name, r->name, sizeof r->name);
    return check_name(r->name);
}

pc_policy *pc_policy_new(void) {
    return calloc(1, sizeof(pc_policy));
}

void pc_policy_refuse_reach(pc_policy *p, unsigned mask) {
    p->refused_reach = mask;
}

void pc_policy_free(pc_policy *p) {
    if (!p) return;
    free(p->allow.rules);
    free(p->deny.rules);
    free(p);
}

int pc_policy_add(pc_policy *p, int deny, const char *entry, const char *note, char *err, size_t err_len) {
    pc_rule rule;
    memset(&rule, 0, sizeof rule);
    const char *problem = parse_entry(entry, &rule);
    if (problem) {
        snprintf(err, err_len, "%s", problem);
        return -1;
    }
    snprintf(rule.note, sizeof rule.note, "%s", note ? note : "");
    pc_rule_list *list = deny ? &p->deny : &p->allow;
    pc_rule *grown = realloc(list->rules, (list->count + 1) * sizeof *grown);
    if (!grown) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    list->rules = grown;
    list->rules[list->count++] = rule;
    if (!rule.is_name) list->has_ranges = 1;
    return 0;
}

// MARK: deciding

static const pc_rule *find(const pc_rule_list *list, const char *name, const pc_ip *ip) {
    for (size_t i = 0; i < list->count; i++) {
        const pc_rule *r = &list->rules[i];
        if ((name && name_matches(r, name)) || (ip && in_range(r, ip))) return r;
    }
    return NULL;
}

static void note_suffix(const pc_rule *r, char *buf, size_t len) {
    if (r->note[0]) snprintf(buf, len, " (%s)", r->note);
    else if (len > 0) buf[0] = '\0';
}

int pc_policy_decide(const pc_policy *p, const char *host_in, const pc_ip *ip, char *why, size_t why_len, int *reach_out) {
    char host[PC_HOST_MAX], address[INET6_ADDRSTRLEN] = "", note[160];
    if (reach_out) *reach_out = -1;
    if (normalize_host(host_in, host, sizeof host) != 0) {
        snprintf(why, why_len, "host name is too long");
        return 0;
    }
    pc_ip literal;
    int is_literal = pc_ip_parse(host, &literal) == 0;
    if (!ip && is_literal) ip = &literal;
    const char *name = is_literal ? NULL : host;
    if (ip) pc_ip_format(ip, address, sizeof address);

    const pc_rule *r = find(&p->deny, name, NULL);
    if (r) {
        note_suffix(r, note, sizeof note);
        snprintf(why, why_len, "host %s matches the denied name %s%s", host, r->entry, note);
        return 0;
    }
    if (ip && (r = find(&p->deny, NULL, ip))) {
        char subject[PC_HOST_MAX + 96];
        if (name) snprintf(subject, sizeof subject, "host %s resolved to %s, which", host, address);
        else snprintf(subject, sizeof subject, "%s", address);
        note_suffix(r, note, sizeof note);
        if (r->single) snprintf(why, why_len, "%s is a denied address%s", subject, note);
        else snprintf(why, why_len, "%s is in the denied range %s%s", subject, r->entry, note);
        return 0;
    }
    if (ip && p->refused_reach) {
        pc_ip inner;
        int has_embedded = 0;
        pc_reach reach = pc_ip_reach(ip, &inner, &has_embedded);
        if (p->refused_reach & (1u << reach)) {
            char subject[PC_HOST_MAX + 64], article[4];
            const char *kind = pc_reach_name(reach);
            snprintf(article, sizeof article, "%s", strchr("aeiou", kind[0]) ? "an" : "a");
            if (name) snprintf(subject, sizeof subject, "host %s resolved to %s", host, address);
            else snprintf(subject, sizeof subject, "%s", address);
            if (has_embedded) {
                char inner_text[INET6_ADDRSTRLEN];
                pc_ip_format(&inner, inner_text, sizeof inner_text);
                snprintf(why, why_len, "%s, which embeds %s, %s %s address", subject, inner_text, article, kind);
            } else if (name) {
                snprintf(why, why_len, "%s, %s %s address", subject, article, kind);
            } else {
                snprintf(why, why_len, "%s is %s %s address", subject, article, kind);
            }
            if (reach_out) *reach_out = (int)reach;
            return 0;
        }
    }
    if (p->allow.count == 0 || find(&p->allow, name, ip)) return 1;
    if (ip && name) snprintf(why, why_len, "host %s (%s) is not in the allow list", host, address);
    else if (ip) snprintf(why, why_len, "%s is not in the allow list", address);
    else if (p->allow.has_ranges) return 1;   // an allowed range may still match its address
    else snprintf(why, why_len, "host %s is not in the allow list", host);
    return 0;
}

int pc_policy_check(const pc_policy *p, const char *host, const char *address, char *why, size_t why_len, int *reach) {
    pc_ip ip;
    if (reach) *reach = -1;
    if (address && pc_ip_parse(address, &ip) != 0) {
        snprintf(why, why_len, "'%s' is not an IP address", address);
        return 0;
    }
    return pc_policy_decide(p, host, address ? &ip : NULL, why, why_len, reach);
}

int pc_policy_allows(const pc_policy *p, const char *host, const char *address, char *why, size_t why_len) {
    return pc_policy_check(p, host, address, why, why_len, NULL);
}
