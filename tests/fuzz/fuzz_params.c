/* The params target: a parameter table and values decoded from the bytes (fuzz.h). */
#include "fuzz.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

#define MAX_ENTRIES 8
#define MAX_STRINGS 128

/* The members of an ABI 2.0 entry, without def_string: what an entry of an older minor holds. */
#define OLD_ENTRY_SIZE (offsetof(eddy_param_desc, choices) + sizeof(const char *const *))

typedef struct reader {
    const uint8_t *p;
    size_t n;
    /* every string handed out, freed at the end of the input */
    char *strings[MAX_STRINGS];
    size_t nstrings;
    const char **choice_lists[MAX_ENTRIES];
    size_t nchoices;
} reader;

static uint8_t u8(reader *r)
{
    if (!r->n) return 0;
    --r->n;
    return *r->p++;
}

/* The values that sit on the edges of the checks, or 8 raw bytes. */
static double f64(reader *r)
{
    static const double edge[] = {0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 1e-30, 1e30, -1e30, 9.2e18, -9.3e18,
                                  DBL_MAX, -DBL_MAX, DBL_MIN, -0.0, 1e300};
    const uint8_t sel = u8(r);
    if (sel < sizeof edge / sizeof edge[0]) return edge[sel];
    if (sel == 0xfd) return INFINITY;
    if (sel == 0xfe) return -INFINITY;
    if (sel == 0xff) return NAN;
    double v = 0;
    if (r->n >= sizeof v) {
        memcpy(&v, r->p, sizeof v);
        r->p += sizeof v;
        r->n -= sizeof v;
    }
    return v;
}

/* NULL, "", or up to 31 bytes (cut at an embedded NUL). */
static const char *str(reader *r)
{
    const uint8_t mode = u8(r);
    if (mode == 0 || r->nstrings == MAX_STRINGS) return NULL;
    size_t len = (size_t)(mode - 1) % 32;
    if (len > r->n) len = r->n;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    memcpy(s, r->p, len);
    s[len] = '\0';
    r->p += len;
    r->n -= len;
    r->strings[r->nstrings++] = s;
    return s;
}

static const char *const *choices(reader *r)
{
    const size_t n = u8(r) % 6;
    if (n == 5 || r->nchoices == MAX_ENTRIES) return NULL;
    const char **list = calloc(n + 1, sizeof *list);
    if (!list) return NULL;
    for (size_t i = 0; i < n; ++i) list[i] = str(r);
    r->choice_lists[r->nchoices++] = list;
    return list;
}

static void release(reader *r)
{
    for (size_t i = 0; i < r->nstrings; ++i) free(r->strings[i]);
    for (size_t i = 0; i < r->nchoices; ++i) free(r->choice_lists[i]);
}

static void decode_entry(reader *r, eddy_param_desc *d)
{
    memset(d, 0, sizeof *d);
    d->size = sizeof *d;
    d->id = str(r);
    d->type = (eddy_param_type)(u8(r) % 7); /* 6: an unknown type */
    const uint8_t flags = u8(r);
    d->flags = (uint32_t)(flags & 0x07u) | (flags & 0x80u ? 0x100u : 0u);
    d->def = f64(r);
    d->min = f64(r);
    d->max = f64(r);
    d->unit = str(r);
    d->doc = str(r);
    d->choices = choices(r);
    d->def_string = str(r);
}

static void decode_value(reader *r, eddy_param_value *v)
{
    memset(v, 0, sizeof *v);
    const uint8_t head = u8(r);
    v->is_set = head & 1;
    v->count = (int)(int8_t)u8(r);
    v->number = f64(r);
    if (head & 2) {
        uint64_t raw = 0;
        for (int k = 0; k < 8; ++k) raw = raw << 8 | u8(r);
        v->integer = (int64_t)raw;
    } else {
        v->integer = isfinite(v->number) && fabs(v->number) < 9.2e18 ? (int64_t)v->number : 0;
    }
    v->string = str(r);
    for (int k = 0; k < 3; ++k) v->vector[k] = f64(r);
}

/* An invariant of params.h broken: report it the way libFuzzer reports a crash. */
static void broken(const char *what, const eddy_param_desc *d, const eddy_error *err)
{
    fprintf(stderr, "eddy fuzz params: %s (parameter '%s', type %d): %s\n", what, d->id ? d->id : "(null)",
            (int)d->type, err->message);
    abort();
}

/* The rest of the input as a scene section {parameter: value} validated against the table. */
static void scene_section(reader *r, const eddy_param_desc *table, size_t count)
{
    const uint8_t opts = u8(r);
    static const char *const host_keys[] = {"name", "kind", "reference", NULL};
    char *text = malloc(r->n + 1);
    if (!text) return;
    memcpy(text, r->p, r->n);
    text[r->n] = '\0';
    eddy_scene scene;
    memset(&scene, 0, sizeof scene);
    snprintf(scene.file, sizeof scene.file, "fuzz.json");
    scene.dimensions = opts & 1 ? 3 : 2;
    scene.text = text;
    scene.root = cJSON_Parse(text);
    const cJSON *obj = opts & 2 ? scene.root : NULL;
    eddy_param_value values[MAX_ENTRIES];
    eddy_error err;
    eddy_error_clear(&err);
    const int rc = eddy_scene_param_values(&scene, obj, "solvers.fuzz", table, count, opts & 4 ? host_keys : NULL,
                                           values, &err);
    eddy_fuzz_report("params", rc, &err, obj ? "section validated" : "defaults");
    if (rc == EDDY_OK && obj) {
        /* Every value the scene gave passed the core's check (the defaults are the table's). */
        for (const cJSON *m = obj->child; m; m = m->next) {
            int i = eddy_param_find(table, count, m->string);
            if (i < 0) continue;
            const eddy_param_desc *d = eddy_param_at(table, (size_t)i);
            if (eddy_param_check(d, &values[i], "solvers.fuzz", &err) != EDDY_OK)
                broken("a value the scene validator accepted fails eddy_param_check", d, &err);
        }
    }
    cJSON_Delete(scene.root);
    free(text);
}

int eddy_fuzz_params(const uint8_t *data, size_t size)
{
    eddy_fuzz_init();
    reader r;
    memset(&r, 0, sizeof r);
    r.p = data;
    r.n = size;
    const size_t count = u8(&r) % (MAX_ENTRIES + 1);
    /* The stride: this build's entry, an older minor's (no def_string), a newer one's (16 more
     * bytes), or an entry too short for ABI 2.0 (stepped with this build's size, refused by size). */
    const uint8_t layout = u8(&r);
    size_t stride = sizeof(eddy_param_desc), size_field = stride;
    switch (layout % 4) {
    case 1: stride = size_field = OLD_ENTRY_SIZE; break;
    case 2: stride = size_field = sizeof(eddy_param_desc) + 16; break;
    case 3: size_field = u8(&r) % OLD_ENTRY_SIZE; break;
    default: break;
    }
    const size_t room = stride > sizeof(eddy_param_desc) ? stride : sizeof(eddy_param_desc);
    unsigned char *buf = calloc(count + 1, room);
    if (!buf) return 0;
    for (size_t i = 0; i < count; ++i) {
        eddy_param_desc d;
        decode_entry(&r, &d);
        d.size = size_field;
        /* now and then one entry disagrees with the table's size */
        if ((layout & 0x10) && i == count - 1 && i > 0) d.size = size_field + 8;
        memcpy(buf + i * stride, &d, stride < sizeof d ? stride : sizeof d);
    }
    const eddy_param_desc *table = count ? (const eddy_param_desc *)buf : NULL;
    eddy_error err;
    eddy_error_clear(&err);
    const int table_ok = eddy_param_table_check(table, count, &err) == EDDY_OK;
    if (!table_ok) eddy_fuzz_report("params", EDDY_ERR_INVALID_ARGUMENT, &err, NULL);
    (void)eddy_param_find(table, count, str(&r));
    if (table_ok) {
        eddy_param_value values[MAX_ENTRIES];
        for (size_t i = 0; i < count; ++i) {
            const eddy_param_desc *d = eddy_param_at(table, i);
            values[i] = eddy_param_default(d);
            /* A table the loader accepts has defaults its own check accepts. (Not a non-finite
             * default: table_check lets REAL/INT/VECTOR defaults of +-inf through when a bound is
             * infinite, while values must be finite; the scene validator never checks defaults.) */
            if (!(d->flags & EDDY_PARAM_DERIVED) && isfinite(d->def) &&
                eddy_param_check(d, &values[i], "solvers.fuzz", &err) != EDDY_OK)
                broken("the default of a table that passed eddy_param_table_check fails eddy_param_check", d, &err);
            eddy_param_value v;
            decode_value(&r, &v);
            (void)eddy_param_check(d, &v, (layout & 0x20) ? NULL : "solvers.fuzz", &err);
        }
        const eddy_param_values pv = {sizeof pv, table, count, values};
        for (size_t i = 0; i < count; ++i) {
            const eddy_param_desc *d = eddy_param_at(table, i);
            (void)eddy_param_get(&pv, d->id, 0.0);
            if (eddy_param_find_value(&pv, d->id) != &values[i])
                broken("eddy_param_find_value found another entry", d, &err);
        }
        scene_section(&r, table, count);
    }
    release(&r);
    free(buf);
    return 0;
}
