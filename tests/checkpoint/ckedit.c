/*
 * ckedit FILE EDIT ARGS...: changes one value of a checkpoint (host/session/checkpoint.h, formats 2 and 3,
 * which share a layout) and
 * writes it back with its payload length and checksum recomputed, so that the reader's byte-level
 * checks pass and what the tests see is the restore's semantic validation alone.
 *
 *   setting KEY JSON           settings[KEY] = JSON (KEY "a.b" reaches into an object; JSON "-" removes it)
 *   time VALUE                 the clock's time (strtod: "nan", "inf", "-1" ...)
 *   step VALUE                 the clock's step count (unsigned decimal)
 *   field NAME COMP I VALUE    component COMP of particle I of field NAME
 *   rename NAME NEW            a field's stored name (NEW of the same length)
 *   id I J                     particle I gets the id of particle J
 *   collider I MEMBER COMP VALUE   MEMBER: point normal min max center radius velocity
 *   state drop                 no solver state (size 0)
 *   state-real K VALUE         the K-th value of an eddy_state record (state.h: tag, count, values)
 *   state-retag TAG COUNT      the record renamed TAG and cut to its first COUNT values (an older
 *                              layout of a solver's record, e.g. "tait/1", which held max_accel alone)
 *   format N                   the format version (2 or 3: same layout)
 *
 * Exit status 0 on success, 2 on a usage or layout error (message on stderr).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <eddy/eddy.h>

#include "checkpoint.h"

enum { HEADER = 24, CHECKSUM = 8 };

static unsigned char *data;
static size_t size;

static int die(const char *msg, const char *arg)
{
    fprintf(stderr, "ckedit: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

/* Offsets of the sections, found by walking the layout of host/session/checkpoint.c (formats 2, 3). */
typedef struct layout {
    size_t settings;          /* the u32 length before the settings text */
    size_t clock;             /* time (f64), step (u64) */
    size_t colliders;         /* u64 count, then each: u32 shape and 19 reals */
    size_t particles;         /* u64 count */
    uint64_t count;
    uint32_t nf;
    size_t field_at[EDDY_MAX_FIELDS]; /* the u32 name length of each field */
    size_t ids, blob;         /* the u64 ids; the u64 blob size */
} layout;

static void need(size_t at, size_t n)
{
    if (at > size || n > size - at) die("the checkpoint is shorter than its layout", NULL);
}

static uint32_t u32_at(size_t at)
{
    uint32_t v;
    need(at, 4);
    memcpy(&v, data + at, 4);
    return v;
}

static uint64_t u64_at(size_t at)
{
    uint64_t v;
    need(at, 8);
    memcpy(&v, data + at, 8);
    return v;
}

static void walk(layout *L)
{
    if (size < HEADER + CHECKSUM || memcmp(data, "EDDYCKPT", 8) || (u32_at(8) != 2 && u32_at(8) != 3))
        die("not a format-2 or -3 checkpoint", NULL);
    size_t at = HEADER;
    L->settings = at;
    at += 4 + u32_at(at);
    L->clock = at;
    at += 16;
    L->colliders = at;
    uint64_t nc = u64_at(at);
    at += 8 + nc * (4 + 19 * sizeof(eddy_real));
    L->particles = at;
    L->count = u64_at(at);
    if (u32_at(at + 8) != sizeof(eddy_real)) die("the checkpoint's reals are of another size", NULL);
    L->nf = u32_at(at + 12);
    if (L->nf > EDDY_MAX_FIELDS) die("too many fields", NULL);
    at += 16;
    for (uint32_t f = 0; f < L->nf; ++f) {
        L->field_at[f] = at;
        uint32_t len = u32_at(at);
        uint32_t comps = u32_at(at + 4 + len);
        at += 8 + len + (size_t)comps * L->count * sizeof(eddy_real);
    }
    L->ids = at;
    at += L->count * (8 + 4);
    L->blob = at;
    need(at, 8 + u64_at(at));
}

/* Replaces [at, at + n) by the m bytes of src. */
static void splice(size_t at, size_t n, const void *src, size_t m)
{
    unsigned char *q = malloc(size - n + m);
    if (!q) die("out of memory", NULL);
    memcpy(q, data, at);
    memcpy(q + at, src, m);
    memcpy(q + at + m, data + at + n, size - at - n);
    free(data);
    data = q;
    size = size - n + m;
}

static void put_real(size_t at, const char *text)
{
    eddy_real v = (eddy_real)strtod(text, NULL);
    need(at, sizeof v);
    memcpy(data + at, &v, sizeof v);
}

static size_t index_arg(const char *s, uint64_t limit)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || end == s || v >= limit) die("index out of range", s);
    return (size_t)v;
}

static void edit_setting(const layout *L, const char *key, const char *json)
{
    uint32_t len = u32_at(L->settings);
    need(L->settings + 4, len);
    cJSON *root = cJSON_ParseWithLength((const char *)data + L->settings + 4, len);
    if (!root) die("the settings are not JSON", NULL);
    char path[256];
    snprintf(path, sizeof path, "%s", key);
    cJSON *obj = root;
    char *name = path, *dot;
    while ((dot = strchr(name, '.'))) {
        *dot = '\0';
        obj = cJSON_GetObjectItemCaseSensitive(obj, name);
        if (!cJSON_IsObject(obj)) die("no such object in the settings", name);
        name = dot + 1;
    }
    if (strcmp(json, "-") == 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, name);
    } else {
        cJSON *v = cJSON_Parse(json);
        if (!v) die("not JSON", json);
        if (cJSON_GetObjectItemCaseSensitive(obj, name)) cJSON_ReplaceItemInObjectCaseSensitive(obj, name, v);
        else cJSON_AddItemToObject(obj, name, v);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    uint32_t n = (uint32_t)strlen(text);
    splice(L->settings + 4, len, text, n);
    memcpy(data + L->settings, &n, 4);
    cJSON_free(text);
}

static int find_field(const layout *L, const char *name, uint32_t *comps, size_t *values)
{
    for (uint32_t f = 0; f < L->nf; ++f) {
        size_t at = L->field_at[f];
        uint32_t len = u32_at(at);
        if (len == strlen(name) && memcmp(data + at + 4, name, len) == 0) {
            *comps = u32_at(at + 4 + len);
            *values = at + 8 + len;
            return (int)f;
        }
    }
    return die("no such field", name);
}

static void edit_collider(const layout *L, char **a)
{
    static const char *const members[] = {"point", "normal", "min", "max", "center", "radius", "velocity"};
    static const int first[] = {0, 3, 6, 9, 12, 15, 16}, comps[] = {3, 3, 3, 3, 3, 1, 3};
    size_t i = index_arg(a[0], u64_at(L->colliders));
    for (int m = 0; m < 7; ++m)
        if (strcmp(a[1], members[m]) == 0) {
            size_t c = index_arg(a[2], (uint64_t)comps[m]);
            put_real(L->colliders + 8 + i * (4 + 19 * sizeof(eddy_real)) + 4 + (first[m] + c) * sizeof(eddy_real), a[3]);
            return;
        }
    die("no such collider member", a[1]);
}

int main(int argc, char **argv)
{
    if (argc < 3) die("usage: ckedit FILE EDIT ARGS...", NULL);
    const char *path = argv[1], *what = argv[2];
    char **a = argv + 3;
    const int na = argc - 3;
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open", path);
    fseek(f, 0, SEEK_END);
    size = (size_t)ftell(f);
    rewind(f);
    data = malloc(size ? size : 1);
    if (!data || fread(data, 1, size, f) != size) die("cannot read", path);
    fclose(f);
    layout L;
    walk(&L);
    size -= CHECKSUM;

    if (!strcmp(what, "setting") && na == 2) {
        edit_setting(&L, a[0], a[1]);
    } else if (!strcmp(what, "time") && na == 1) {
        double t = strtod(a[0], NULL);
        memcpy(data + L.clock, &t, 8);
    } else if (!strcmp(what, "step") && na == 1) {
        uint64_t s = strtoull(a[0], NULL, 10);
        memcpy(data + L.clock + 8, &s, 8);
    } else if (!strcmp(what, "field") && na == 4) {
        uint32_t comps;
        size_t values;
        find_field(&L, a[0], &comps, &values);
        size_t c = index_arg(a[1], comps), i = index_arg(a[2], L.count);
        put_real(values + (c * L.count + i) * sizeof(eddy_real), a[3]);
    } else if (!strcmp(what, "rename") && na == 2) {
        uint32_t comps;
        size_t values;
        int fi = find_field(&L, a[0], &comps, &values);
        if (strlen(a[1]) != strlen(a[0])) die("the new name must be as long as the old one", a[1]);
        memcpy(data + L.field_at[fi] + 4, a[1], strlen(a[1]));
    } else if (!strcmp(what, "id") && na == 2) {
        size_t i = index_arg(a[0], L.count), j = index_arg(a[1], L.count);
        memcpy(data + L.ids + 8 * i, data + L.ids + 8 * j, 8);
    } else if (!strcmp(what, "collider") && na == 4) {
        edit_collider(&L, a);
    } else if (!strcmp(what, "state") && na == 1 && !strcmp(a[0], "drop")) {
        uint64_t zero = 0;
        splice(L.blob, 8 + u64_at(L.blob), &zero, 8);
    } else if (!strcmp(what, "state-real") && na == 2) {
        const size_t blob = L.blob + 8, n = u64_at(L.blob);
        const unsigned char *nul = memchr(data + blob, '\0', n);
        if (!nul) die("the solver state is not a state.h record", NULL);
        size_t values = (size_t)(nul - data) + 1 + 4;
        size_t k = index_arg(a[0], (blob + n - values) / sizeof(eddy_real));
        put_real(values + k * sizeof(eddy_real), a[1]);
    } else if (!strcmp(what, "state-retag") && na == 2) {
        const size_t blob = L.blob + 8, n = u64_at(L.blob);
        const unsigned char *nul = memchr(data + blob, '\0', n);
        if (!nul) die("the solver state is not a state.h record", NULL);
        const size_t values = (size_t)(nul - data) + 1 + 4;
        const uint32_t count = (uint32_t)index_arg(a[1], (blob + n - values) / sizeof(eddy_real) + 1);
        const size_t tag_len = strlen(a[0]) + 1, size2 = tag_len + 4 + count * sizeof(eddy_real);
        unsigned char *record = malloc(size2);
        if (!record) die("out of memory", NULL);
        memcpy(record, a[0], tag_len);
        memcpy(record + tag_len, &count, 4);
        memcpy(record + tag_len + 4, data + values, count * sizeof(eddy_real));
        uint64_t blob_size = size2;
        splice(L.blob + 8, n, record, size2);
        memcpy(data + L.blob, &blob_size, 8);
        free(record);
    } else if (!strcmp(what, "format") && na == 1) {
        const uint32_t v = (uint32_t)index_arg(a[0], 4);
        if (v != 2 && v != 3) die("formats 2 and 3 share this layout; got", a[0]);
        memcpy(data + 8, &v, 4);
    } else {
        die("unknown edit or wrong argument count", what);
    }

    uint64_t payload = size - HEADER;
    memcpy(data + 16, &payload, 8);
    uint64_t sum = eddy_checkpoint_checksum(data, size);
    f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fwrite(&sum, 1, 8, f) != 8 || fclose(f) != 0) die("cannot write", path);
    free(data);
    return 0;
}
