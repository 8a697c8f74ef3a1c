#include "heif_util.h"

#include <stdlib.h>
#include <string.h>

/*
 * What libheif 1.15 trusts in a HEIF or AVIF file and should not, checked from the boxes. First,
 * the item references, checked before libheif reads the file. libheif decodes a derived image (a grid, an `iden`, an overlay) by decoding the items it is derived
 * from (`dimg` references), and an image's alpha plane by decoding its auxiliary image (`auxl`),
 * each by recursion, with no guard: a 533-byte file whose primary item is derived from itself
 * recursed until the decoding thread's stack ran out and the whole process died. Real files nest
 * two deep (an `iden` of a grid of tiles), so a chain of more than IC_HEIF_MAX_DERIVATION
 * references, or any loop, is refused with the items named.
 */

#define IC_HEIF_MAX_DERIVATION 8
/* A grid has at most 256 x 256 tiles; a file naming more references than this is refused rather
 * than held (8 bytes each here, more in libheif). */
#define IC_HEIF_MAX_REFERENCES (1u << 20)

typedef struct {
    uint32_t from, to; /* decoding `from` decodes `to` */
} heif_edge;

typedef struct {
    heif_edge *edges; /* sorted by `from` */
    size_t count;
    uint32_t *items;  /* every item an edge names, sorted, once each */
    size_t item_count;
    int16_t *depths;  /* per item of `items`: the depth found, or -3 before it is */
} heif_graph;

static uint32_t be(const uint8_t *p, int bytes) {
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
    return v;
}

/* A box at `at` inside [at, end): its type, where its body starts and where it ends; 0 if it does not fit. */
static int box_at(const uint8_t *data, size_t at, size_t end, char type[5], size_t *body, size_t *box_end) {
    if (end < at + 8) return 0;
    uint64_t length = be(data + at, 4);
    size_t header = 8;
    if (length == 1) {
        if (end < at + 16) return 0;
        length = (uint64_t)be(data + at + 8, 4) << 32 | be(data + at + 12, 4);
        header = 16;
    } else if (length == 0) {
        length = end - at;
    }
    if (length < header || length > end - at) return 0;
    memcpy(type, data + at + 4, 4);
    type[4] = '\0';
    *body = at + header;
    *box_end = at + (size_t)length;
    return 1;
}

static int by_from(const void *a, const void *b) {
    uint32_t x = ((const heif_edge *)a)->from, y = ((const heif_edge *)b)->from;
    return x < y ? -1 : x > y;
}

/*
 * Appends the edges of an `iref` box's body; 0 when out of memory or past IC_HEIF_MAX_REFERENCES. Each reference is read as
 * libheif reads it: a box header whose size is not used (libheif reads the references one after
 * another to the end of the iref box, whatever each claims), the item it is from, a count, the
 * items it names.
 */
static int read_iref(const uint8_t *data, size_t body, size_t end, heif_graph *graph) {
    if (end < body + 4) return 1;
    size_t id_bytes = data[body] == 0 ? 2 : 4, at = body + 4;
    while (end >= at + 8) {
        size_t header = be(data + at, 4) == 1 ? 16 : 8;
        if (end < at + header) break;
        int derived = memcmp(data + at + 4, "dimg", 4) == 0, auxiliary = memcmp(data + at + 4, "auxl", 4) == 0;
        if (memcmp(data + at + 4, "uuid", 4) == 0) header += 16;
        at += header;
        if (end < at + id_bytes + 2) break;
        uint32_t from = be(data + at, (int)id_bytes);
        size_t n = be(data + at + id_bytes, 2), ids = at + id_bytes + 2;
        if (n > (end - ids) / id_bytes) n = (end - ids) / id_bytes;
        at = ids + n * id_bytes;
        if (!derived && !auxiliary) continue;
        if (graph->count + n > IC_HEIF_MAX_REFERENCES) return 0;
        heif_edge *grown = n > 0 ? realloc(graph->edges, (graph->count + n) * sizeof *grown) : graph->edges;
        if (grown == NULL && n > 0) return 0;
        graph->edges = grown;
        for (size_t i = 0; i < n; i++) {
            uint32_t to = be(data + ids + i * id_bytes, (int)id_bytes);
            /* dimg: `from` is made of `to`. auxl: `from` is the auxiliary image of `to`. */
            graph->edges[graph->count++] = derived ? (heif_edge){from, to} : (heif_edge){to, from};
        }
    }
    return 1;
}

static int by_value(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Lists each item once and makes room for its depth; 0 when out of memory. */
static int index_items(heif_graph *graph) {
    graph->items = malloc(graph->count * 2 * sizeof *graph->items);
    if (graph->items == NULL) return 0;
    for (size_t i = 0; i < graph->count; i++) {
        graph->items[2 * i] = graph->edges[i].from;
        graph->items[2 * i + 1] = graph->edges[i].to;
    }
    qsort(graph->items, graph->count * 2, sizeof *graph->items, by_value);
    size_t unique = 0;
    for (size_t i = 0; i < graph->count * 2; i++)
        if (unique == 0 || graph->items[unique - 1] != graph->items[i]) graph->items[unique++] = graph->items[i];
    graph->item_count = unique;
    graph->depths = malloc(unique * sizeof *graph->depths);
    if (graph->depths == NULL) return 0;
    for (size_t i = 0; i < unique; i++) graph->depths[i] = -3;
    return 1;
}

/*
 * The depth of what decoding `item` decodes (the longest chain of references below it); -1 for a
 * loop (`item` reached again while it is being decoded), -2 when the walk goes past
 * IC_HEIF_MAX_DERIVATION levels. `path` holds the items being decoded; each item's depth is found
 * once (a grid's tiles shared by two derived images are walked once), so the walk is linear in the
 * references; a depth found through a shared item can still exceed the limit, which the caller checks.
 */
static int depth_of(heif_graph *graph, uint32_t item, uint32_t *path, int level, uint32_t *looped) {
    for (int i = 0; i < level; i++) {
        if (path[i] == item) {
            *looped = item;
            return -1;
        }
    }
    const uint32_t *slot = bsearch(&item, graph->items, graph->item_count, sizeof item, by_value);
    if (slot == NULL) return 0; /* no edge names it: it decodes nothing else */
    int16_t *known = &graph->depths[slot - graph->items];
    if (*known >= 0) return *known;
    heif_edge key = {item, 0};
    const heif_edge *first = bsearch(&key, graph->edges, graph->count, sizeof key, by_from);
    int deepest = 0;
    if (first != NULL) {
        /* `level` references lead here; following one more would pass the limit. */
        if (level == IC_HEIF_MAX_DERIVATION) return -2;
        path[level] = item;
        while (first > graph->edges && first[-1].from == item) first--;
        for (const heif_edge *e = first; e < graph->edges + graph->count && e->from == item; e++) {
            int d = depth_of(graph, e->to, path, level + 1, looped);
            if (d < 0) return d;
            if (d + 1 > deepest) deepest = d + 1;
        }
    }
    *known = (int16_t)(deepest < 1000 ? deepest : 1000);
    return deepest;
}

ic_status ic_heif_check_references(const uint8_t *data, size_t size, const char *name, char *message, size_t message_size) {
    size_t at = 0, body, end;
    char type[5];
    heif_graph graph = {NULL, 0, NULL, 0, NULL};
    uint32_t primary = 0;
    int have_primary = 0;
    while (box_at(data, at, size, type, &body, &end)) {
        if (strcmp(type, "meta") == 0 && end >= body + 4) {
            size_t child = body + 4, child_body, child_end; /* a full box: version and flags first */
            while (box_at(data, child, end, type, &child_body, &child_end)) {
                if (strcmp(type, "pitm") == 0 && !have_primary && child_end >= child_body + 6) {
                    int id_bytes = data[child_body] == 0 ? 2 : 4;
                    if (child_end >= child_body + 4 + (size_t)id_bytes) {
                        primary = be(data + child_body + 4, id_bytes);
                        have_primary = 1;
                    }
                } else if (strcmp(type, "iref") == 0 && !read_iref(data, child_body, child_end, &graph)) {
                    free(graph.edges);
                    ic_set_message(message, message_size, "%s container names more than %u image references, or there is no memory to read them",
                                   name, IC_HEIF_MAX_REFERENCES);
                    return IC_TOO_LARGE;
                }
                child = child_end;
            }
            break;
        }
        at = end;
    }
    ic_status status = IC_OK;
    if (have_primary && graph.count > 0) {
        qsort(graph.edges, graph.count, sizeof *graph.edges, by_from);
        if (!index_items(&graph)) {
            free(graph.edges);
            free(graph.items);
            ic_set_message(message, message_size, "%s: no memory to read its item references", name);
            return IC_TOO_LARGE;
        }
        uint32_t path[IC_HEIF_MAX_DERIVATION], looped = 0;
        int depth = depth_of(&graph, primary, path, 0, &looped);
        if (depth == -1) {
            ic_set_message(message, message_size, "%s container is corrupt: item %u is made from itself (its image items refer to one another in a loop)",
                           name, looped);
            status = IC_CORRUPT;
        } else if (depth == -2 || depth > IC_HEIF_MAX_DERIVATION) {
            ic_set_message(message, message_size, "%s container nests derived images more than %d deep under its primary item %u",
                           name, IC_HEIF_MAX_DERIVATION, primary);
            status = IC_UNSUPPORTED;
        }
    }
    free(graph.edges);
    free(graph.items);
    free(graph.depths);
    return status;
}

/*
 * A grid's ImageGrid and an overlay's ImageOverlay (their item data) each name the canvas libheif
 * allocates whole when it decodes them; libheif 1.15 does not compare it with the item's `ispe`,
 * which is what the pixel cap and the memory budget read. A 533-byte file whose grid claimed a
 * 27256x27747 canvas over an ispe of 16x8 asked for 3 GB. Every grid and overlay item's canvas
 * must fit in the primary image's area (what the header reported); real files' do.
 */

typedef struct {
    size_t idat_body, idat_end; /* construction method 1 reads here; 0 when there is no idat */
    size_t iloc_body, iloc_end;
    size_t iinf_body, iinf_end;
} heif_meta;

/* The first `want` bytes of `item`'s data (its extents one after another) into `out`; how many. */
static size_t item_bytes(const uint8_t *data, size_t size, const heif_meta *meta, uint32_t item, uint8_t *out, size_t want) {
    const uint8_t *p = data + meta->iloc_body, *end = data + meta->iloc_end;
    if (end - p < 6) return 0;
    int version = p[0];
    int offset_size = p[4] >> 4, length_size = p[4] & 15, base_size = p[5] >> 4, index_size = version >= 1 ? p[5] & 15 : 0;
    p += 6;
    int count_bytes = version < 2 ? 2 : 4;
    if (end - p < count_bytes) return 0;
    uint32_t items = be(p, count_bytes);
    p += count_bytes;
    for (uint32_t i = 0; i < items; i++) {
        int id_bytes = version < 2 ? 2 : 4;
        if (end - p < id_bytes + (version >= 1 ? 2 : 0) + 2 + base_size + 2) return 0;
        uint32_t id = be(p, id_bytes);
        p += id_bytes;
        int method = 0;
        if (version >= 1) {
            method = p[1] & 15;
            p += 2;
        }
        p += 2; /* data reference index */
        uint64_t base = base_size > 0 ? be(p, base_size > 4 ? 4 : base_size) : 0;
        if (base_size == 8) base = (uint64_t)be(p, 4) << 32 | be(p + 4, 4);
        p += base_size;
        uint32_t extents = be(p, 2);
        p += 2;
        size_t got = 0;
        for (uint32_t e = 0; e < extents; e++) {
            if (end - p < index_size + offset_size + length_size) return 0;
            p += index_size;
            uint64_t offset = offset_size == 8 ? (uint64_t)be(p, 4) << 32 | be(p + 4, 4) : offset_size ? be(p, offset_size) : 0;
            p += offset_size;
            uint64_t length = length_size == 8 ? (uint64_t)be(p, 4) << 32 | be(p + 4, 4) : length_size ? be(p, length_size) : 0;
            p += length_size;
            if (id != item || got == want) continue;
            size_t from = method == 1 ? meta->idat_body : 0, limit = method == 1 ? meta->idat_end : size;
            if (method > 1 || (method == 1 && meta->idat_end == 0)) return 0;
            uint64_t start = (uint64_t)from + base + offset;
            if (start >= limit) return got;
            uint64_t available = limit - start;
            if (length == 0 || length > available) length = available;
            size_t n = length < want - got ? (size_t)length : want - got;
            memcpy(out + got, data + start, n);
            got += n;
        }
        if (id == item) return got;
    }
    return 0;
}

ic_status ic_heif_check_canvases(const uint8_t *data, size_t size, const char *name, uint64_t image_pixels,
                                 char *message, size_t message_size) {
    heif_meta meta = {0, 0, 0, 0, 0, 0};
    size_t at = 0, body, end;
    char type[5];
    while (box_at(data, at, size, type, &body, &end)) {
        if (strcmp(type, "meta") == 0 && end >= body + 4) {
            size_t child = body + 4, child_body, child_end;
            while (box_at(data, child, end, type, &child_body, &child_end)) {
                if (strcmp(type, "idat") == 0 && meta.idat_end == 0) meta.idat_body = child_body, meta.idat_end = child_end;
                if (strcmp(type, "iloc") == 0 && meta.iloc_end == 0) meta.iloc_body = child_body, meta.iloc_end = child_end;
                if (strcmp(type, "iinf") == 0 && meta.iinf_end == 0) meta.iinf_body = child_body, meta.iinf_end = child_end;
                child = child_end;
            }
            break;
        }
        at = end;
    }
    if (meta.iinf_end < meta.iinf_body + 6 || meta.iloc_end == 0) return IC_OK;
    /* iinf: a full box, an entry count (16 bits in version 0), then infe boxes. */
    size_t entry = meta.iinf_body + 4 + (data[meta.iinf_body] == 0 ? 2 : 4), entry_body, entry_end;
    while (box_at(data, entry, meta.iinf_end, type, &entry_body, &entry_end)) {
        entry = entry_end;
        if (strcmp(type, "infe") != 0 || entry_end < entry_body + 4) continue;
        int version = data[entry_body];
        if (version < 2) continue; /* no item type before version 2 */
        size_t id_bytes = version == 2 ? 2 : 4;
        if (entry_end < entry_body + 4 + id_bytes + 2 + 4) continue;
        uint32_t item = be(data + entry_body + 4, (int)id_bytes);
        const uint8_t *kind = data + entry_body + 4 + id_bytes + 2;
        int grid = memcmp(kind, "grid", 4) == 0, overlay = memcmp(kind, "iovl", 4) == 0;
        if (!grid && !overlay) continue;
        uint8_t bytes[28];
        size_t got = item_bytes(data, size, &meta, item, bytes, sizeof bytes);
        /* ImageGrid: version, flags, rows-1, columns-1, then the size. ImageOverlay: version,
         * flags, four 16-bit fill values, then the size. Flag bit 0: 32-bit sizes. */
        size_t at_size = grid ? 4 : 10, field = got >= 2 && (bytes[1] & 1) ? 4 : 2;
        if (got < at_size + 2 * field) continue; /* too short: libheif refuses it */
        uint64_t width = be(bytes + at_size, (int)field), height = be(bytes + at_size + field, (int)field);
        if (width * height > image_pixels) {
            ic_set_message(message, message_size, "%s container is corrupt: its %s item %u claims a %llux%llu canvas, larger than the image it makes",
                           name, grid ? "grid" : "overlay", item, (unsigned long long)width, (unsigned long long)height);
            return IC_CORRUPT;
        }
    }
    return IC_OK;
}
