/*
 * host/scene/scene.c — scene files: parse JSON (cJSON), apply --set overrides, validate every key with
 * messages that name FILE:LINE:COLUMN and the dotted key path, and build the world.
 *
 * Positions in messages come from a small JSON tokenizer over the source text (locate_offsets): it
 * walks a dotted path ("materials[0].viscosity") through the text. A value changed or created by --set
 * has no position in the file; node_position() detects that by comparing the tree value with the
 * value found in the text, and the position is then omitted.
 */
#include "scene.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_BUF 512
#define LATTICE_EPS 1e-4   /* per-axis count n = floor(extent / spacing + LATTICE_EPS) */
#define FILL_CHUNK 65536   /* particles added per eddy_world_add_particles call */
/* Parameter tables have finite ranges; a bound this large (EDDY_MATERIAL_VISCOSITY_DESC's 1e30) means
 * "no bound", and messages say "a number >= 0" rather than "a number in [0, 1e+30]". */
#define UNBOUNDED 1e30
/* Likewise a positive lower bound this small (a probe's width, [1e-30, inf]) stands for "> 0". */
#define TINY 1e-30

/* ------------------------------------------------------------------------------------------------ */
/* Dotted key paths                                                                                  */
/* ------------------------------------------------------------------------------------------------ */

typedef struct path_seg {
    int is_index;
    size_t index;
    const char *key; /* not NUL-terminated */
    size_t len;
} path_seg;

/* Reads the next segment of a path. Returns 1 with a segment, 0 at the end, -1 when malformed.
 * Grammar: KEY ( '.' KEY | '[' DIGITS ']' )*, or starting with '[' DIGITS ']'. Keys are non-empty
 * and contain none of . [ ] */
static int path_next(const char **pp, int first, path_seg *seg)
{
    const char *p = *pp;
    if (!*p) return first ? -1 : 0;
    if (*p == '[') {
        ++p;
        if (*p < '0' || *p > '9') return -1;
        size_t v = 0;
        while (*p >= '0' && *p <= '9') {
            size_t d = (size_t)(*p - '0');
            if (v > (SIZE_MAX - d) / 10) return -1;
            v = v * 10 + d;
            ++p;
        }
        if (*p != ']') return -1;
        ++p;
        seg->is_index = 1;
        seg->index = v;
        seg->key = NULL;
        seg->len = 0;
        *pp = p;
        return 1;
    }
    if (!first) {
        if (*p != '.') return -1;
        ++p;
    }
    const char *k = p;
    while (*p && *p != '.' && *p != '[' && *p != ']') ++p;
    if (p == k || *p == ']') return -1;
    seg->is_index = 0;
    seg->key = k;
    seg->len = (size_t)(p - k);
    *pp = p;
    return 1;
}

/* Checks a whole path; returns the number of segments or -1 when malformed. */
static int path_validate(const char *path)
{
    path_seg s;
    int n = 0, r;
    const char *p = path;
    while ((r = path_next(&p, n == 0, &s)) == 1) ++n;
    return r < 0 ? -1 : n;
}

/* Appends src to out[PATH_BUF] at *k, truncating. */
static void path_append(char *out, size_t *k, const char *src)
{
    while (*src && *k + 1 < PATH_BUF) out[(*k)++] = *src++;
    out[*k] = '\0';
}

/* out = parent.key (or key at the top level). `out` must not alias the arguments. */
static void path_key(char *out, const char *parent, const char *key)
{
    size_t k = 0;
    out[0] = '\0';
    if (parent && *parent) {
        path_append(out, &k, parent);
        path_append(out, &k, ".");
    }
    path_append(out, &k, key);
}

/* out = parent[i] */
static void path_index(char *out, const char *parent, size_t i)
{
    char num[32];
    snprintf(num, sizeof num, "[%zu]", i);
    size_t k = 0;
    out[0] = '\0';
    path_append(out, &k, parent);
    path_append(out, &k, num);
}

/* The cJSON node at a path (first occurrence of duplicated keys), or NULL. */
static cJSON *tree_lookup(cJSON *root, const char *path)
{
    if (!root || !path) return NULL;
    if (!*path) return root;
    cJSON *node = root;
    path_seg s;
    int r, first = 1;
    const char *p = path;
    while ((r = path_next(&p, first, &s)) == 1) {
        first = 0;
        if (s.is_index) {
            if (!cJSON_IsArray(node) || s.index >= (size_t)cJSON_GetArraySize(node)) return NULL;
            node = cJSON_GetArrayItem(node, (int)s.index);
        } else {
            if (!cJSON_IsObject(node)) return NULL;
            cJSON *c = NULL;
            for (c = node->child; c; c = c->next)
                if (c->string && strlen(c->string) == s.len && memcmp(c->string, s.key, s.len) == 0)
                    break;
            node = c;
        }
        if (!node) return NULL;
    }
    return r < 0 ? NULL : node;
}

/* ------------------------------------------------------------------------------------------------ */
/* The locator: a forgiving JSON tokenizer over the source text                                      */
/* ------------------------------------------------------------------------------------------------ */

static const char *tok_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
    return p;
}

/* p at '"': returns just past the closing quote (or at the NUL of an unterminated string). */
static const char *tok_string(const char *p)
{
    ++p;
    while (*p && *p != '"') {
        if (*p == '\\' && p[1]) p += 2;
        else ++p;
    }
    return *p ? p + 1 : p;
}

/* Skips one value of any kind; never reads past the terminating NUL. */
static const char *tok_value(const char *p)
{
    p = tok_ws(p);
    if (*p == '"') return tok_string(p);
    if (*p == '{' || *p == '[') {
        size_t depth = 0;
        while (*p) {
            if (*p == '"') { p = tok_string(p); continue; }
            if (*p == '{' || *p == '[') ++depth;
            else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            ++p;
        }
        return p;
    }
    while (*p && !strchr(",]} \t\r\n", *p)) ++p;
    return p;
}

static unsigned hex4(const char *p, int *ok)
{
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else { *ok = 0; return 0; }
    }
    return v;
}

/* Compares the JSON string at p (at '"', escapes decoded) with key[0..len). Sets *end past it. */
static int tok_key_equals(const char *p, const char *key, size_t len, const char **end)
{
    *end = tok_string(p);
    ++p;
    size_t k = 0;
    int equal = 1;
    while (*p && *p != '"') {
        unsigned char buf[4];
        size_t n = 0;
        if (*p == '\\') {
            ++p;
            char e = *p ? *p++ : 0;
            switch (e) {
            case 'b': buf[n++] = '\b'; break;
            case 'f': buf[n++] = '\f'; break;
            case 'n': buf[n++] = '\n'; break;
            case 'r': buf[n++] = '\r'; break;
            case 't': buf[n++] = '\t'; break;
            case 'u': {
                int ok = 1;
                unsigned cp = hex4(p, &ok);
                if (!ok) return 0;
                p += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && p[0] == '\\' && p[1] == 'u') {
                    unsigned lo = hex4(p + 2, &ok);
                    if (ok && lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        p += 6;
                    }
                }
                if (cp < 0x80) buf[n++] = (unsigned char)cp;
                else if (cp < 0x800) {
                    buf[n++] = (unsigned char)(0xC0 | (cp >> 6));
                    buf[n++] = (unsigned char)(0x80 | (cp & 0x3F));
                } else if (cp < 0x10000) {
                    buf[n++] = (unsigned char)(0xE0 | (cp >> 12));
                    buf[n++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                    buf[n++] = (unsigned char)(0x80 | (cp & 0x3F));
                } else {
                    buf[n++] = (unsigned char)(0xF0 | (cp >> 18));
                    buf[n++] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
                    buf[n++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                    buf[n++] = (unsigned char)(0x80 | (cp & 0x3F));
                }
                break;
            }
            case 0: return 0;
            default: buf[n++] = (unsigned char)e; break; /* \" \\ \/ */
            }
        } else {
            buf[n++] = (unsigned char)*p++;
        }
        for (size_t i = 0; i < n; ++i, ++k)
            if (k >= len || (unsigned char)key[k] != buf[i]) equal = 0;
    }
    return equal && k == len;
}

/*
 * Finds a path in the text. On success returns 1 with the offsets of the value and, when the last
 * segment is a key, of that key (else the value offset). `occurrence` picks the n-th (0-based) member
 * with the last key, for duplicated keys.
 */
static int locate_offsets(const char *text, const char *path, int occurrence, size_t *key_off,
                          size_t *val_off)
{
    if (!text || !path) return 0;
    const char *p = tok_ws(text);
    const char *key_at = p;
    path_seg s;
    int r, first = 1;
    const char *pp = path;
    if (*path) {
        while ((r = path_next(&pp, first, &s)) == 1) {
            first = 0;
            int last = *pp == '\0';
            p = tok_ws(p);
            if (s.is_index) {
                if (*p != '[') return 0;
                p = tok_ws(p + 1);
                if (*p == ']') return 0;
                for (size_t i = 0; i < s.index; ++i) {
                    p = tok_ws(tok_value(p));
                    if (*p != ',') return 0;
                    p = tok_ws(p + 1);
                }
                if (*p == ']' || !*p) return 0;
                key_at = p;
            } else {
                if (*p != '{') return 0;
                p = tok_ws(p + 1);
                int seen = 0;
                for (;;) {
                    if (*p != '"') return 0;
                    const char *kstart = p, *kend;
                    int eq = tok_key_equals(p, s.key, s.len, &kend);
                    p = tok_ws(kend);
                    if (*p != ':') return 0;
                    p = tok_ws(p + 1);
                    if (eq && (!last || seen++ == occurrence)) {
                        key_at = kstart;
                        break;
                    }
                    p = tok_ws(tok_value(p));
                    if (*p != ',') return 0;
                    p = tok_ws(p + 1);
                }
            }
        }
        if (r < 0) return 0;
    }
    p = tok_ws(p);
    if (!*p) return 0;
    *val_off = (size_t)(p - text);
    *key_off = (size_t)(key_at - text);
    return 1;
}

/* 1-based line and column (in characters: UTF-8 continuation bytes do not count) of a byte offset. */
static void offset_linecol(const char *text, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; ++i) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') { ++l; c = 1; }
        else if ((ch & 0xC0) != 0x80) ++c;
    }
    *line = l;
    *col = c;
}

/* Where an error points: the value (which must still be the file's value), the key, or an object
 * or array whose contents --set may have changed (only its kind must match the file). */
enum { AT_VALUE = 0, AT_KEY = 1, AT_CONTAINER = 2 };

static int same_value(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble || (isnan(a->valuedouble) && isnan(b->valuedouble));
    return cJSON_Compare(a, b, 1) != 0;
}

/*
 * Line and column of `node` (reached by `path`) in the scene's text: its key (AT_KEY, when the last
 * segment is a key), else its value. 0 when the path is not in the text, or when the text holds
 * a different value there (the tree was changed by --set).
 */
static void node_position(const eddy_scene *s, const char *path, const cJSON *node, int where,
                          int occurrence, int *line, int *col)
{
    *line = *col = 0;
    size_t key_off, val_off;
    if (!s->text || !node || !locate_offsets(s->text, path, occurrence, &key_off, &val_off)) return;
    if (where == AT_CONTAINER && (cJSON_IsObject(node) || cJSON_IsArray(node))) {
        if (s->text[val_off] == (cJSON_IsObject(node) ? '{' : '['))
            offset_linecol(s->text, val_off, line, col);
        return;
    }
    int want_key = where == AT_KEY;
    const char *end = NULL;
    cJSON *orig = cJSON_ParseWithOpts(s->text + val_off, &end, 0);
    int same = orig && same_value(orig, node);
    cJSON_Delete(orig);
    if (!same) return;
    offset_linecol(s->text, want_key ? key_off : val_off, line, col);
}

void eddy_scene_locate(const eddy_scene *scene, const char *path, int *line, int *column)
{
    int l = 0, c = 0;
    if (scene && path) {
        const cJSON *node = tree_lookup(scene->root, path);
        if (node) node_position(scene, path, node, AT_VALUE, 0, &l, &c);
    }
    if (line) *line = l;
    if (column) *column = c;
}

/* ------------------------------------------------------------------------------------------------ */
/* Error reporting                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

typedef struct name_index name_index;

typedef struct ctx {
    eddy_scene *s;
    eddy_error *err;
    name_index *material_names; /* material name -> index, while interpreting */
} ctx;


static const char *scene_file(const eddy_scene *s)
{
    return s->file[0] ? s->file : "<scene>";
}

/* "FILE[:LINE:COL]: [PATH: ]message". The position is that of `node` at `path` (see node_position). */
static int vfail(const eddy_scene *s, eddy_error *err, const char *path, const cJSON *node, int where,
                 int occurrence, const char *fmt, va_list ap)
{
    char msg[EDDY_ERROR_MESSAGE_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    int line = 0, col = 0;
    node_position(s, path, node, where, occurrence, &line, &col);
    char pos[48] = "";
    if (line > 0) snprintf(pos, sizeof pos, ":%d:%d", line, col);
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s: %s%s%s", scene_file(s), pos,
                          path && *path ? path : "", path && *path ? ": " : "", msg);
}

static int fail(ctx *c, const char *path, const cJSON *node, int where, const char *fmt, ...)
    EDDY_PRINTF(5, 6);
static int fail(ctx *c, const char *path, const cJSON *node, int where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(c->s, c->err, path, node, where, 0, fmt, ap);
    va_end(ap);
    return rc;
}

static void fmt_number(char *out, size_t size, double v)
{
    snprintf(out, size, "%.15g", v);
}

/* Describes a JSON value for "got ..." */
static const char *describe(const cJSON *v, char *buf, size_t size)
{
    if (!v) return "nothing";
    if (cJSON_IsNumber(v)) { fmt_number(buf, size, v->valuedouble); return buf; }
    if (cJSON_IsTrue(v)) return "true";
    if (cJSON_IsFalse(v)) return "false";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v);
        if (n == 0) return "an empty array";
        snprintf(buf, size, "an array of %d element%s", n, n == 1 ? "" : "s");
        return buf;
    }
    if (cJSON_IsString(v) && v->valuestring) {
        const char *str = v->valuestring;
        size_t len = strlen(str), k = 0;
        if (size < 8) return "a string";
        size_t cut = len;
        if (cut > 40) cut = 40;
        if (cut > size - 6) cut = size - 6;
        while (cut > 0 && cut < len && ((unsigned char)str[cut] & 0xC0) == 0x80) --cut; /* whole UTF-8 */
        buf[k++] = '"';
        for (size_t i = 0; i < cut; ++i) buf[k++] = (unsigned char)str[i] < 0x20 ? ' ' : str[i];
        if (cut < len && k + 5 <= size) { memcpy(buf + k, "...", 3); k += 3; }
        buf[k++] = '"';
        buf[k] = '\0';
        return buf;
    }
    return "an unknown value";
}

/* "PATH: expected EXP, got DESC" at the value. */
static int fail_expected(ctx *c, const char *path, const cJSON *v, const char *expected)
{
    char b[128];
    return fail(c, path, v, AT_VALUE, "expected %s, got %s", expected, describe(v, b, sizeof b));
}

/* "PARENT.KEY: missing required key, expected EXP" at the parent object. */
static int fail_missing(ctx *c, const char *parent_path, const cJSON *parent, const char *key,
                        const char *expected)
{
    char path[PATH_BUF];
    path_key(path, parent_path, key);
    char msg[EDDY_ERROR_MESSAGE_MAX];
    snprintf(msg, sizeof msg, "%s: missing required key, expected %s", path, expected);
    /* Position of the parent; the message carries the full path itself. */
    int line = 0, col = 0;
    node_position(c->s, parent_path, parent, AT_CONTAINER, 0, &line, &col);
    char pos[48] = "";
    if (line > 0) snprintf(pos, sizeof pos, ":%d:%d", line, col);
    return eddy_error_set(c->err, EDDY_ERR_INVALID_ARGUMENT, "%s%s: %s", scene_file(c->s), pos, msg);
}

/* ------------------------------------------------------------------------------------------------ */
/* A string index (open addressing), so that finding duplicates among n keys or names costs O(n)      */
/* ------------------------------------------------------------------------------------------------ */

struct name_index {
    const char **keys; /* borrowed; NULL: empty slot */
    size_t *values;
    size_t mask;
};

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Room for n names. Returns 0, or -1 when out of memory. */
static int name_index_init(name_index *ix, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n && cap < SIZE_MAX / 4) cap *= 2;
    ix->keys = calloc(cap, sizeof *ix->keys);
    ix->values = calloc(cap, sizeof *ix->values);
    ix->mask = cap - 1;
    if (!ix->keys || !ix->values) {
        free(ix->keys);
        free(ix->values);
        memset(ix, 0, sizeof *ix);
        return -1;
    }
    return 0;
}

static void name_index_free(name_index *ix)
{
    free(ix->keys);
    free(ix->values);
    memset(ix, 0, sizeof *ix);
}

/* The value stored under `key`, or SIZE_MAX. */
static size_t name_index_find(const name_index *ix, const char *key)
{
    if (!ix->keys) return SIZE_MAX;
    for (size_t i = (size_t)name_hash(key) & ix->mask;; i = (i + 1) & ix->mask) {
        if (!ix->keys[i]) return SIZE_MAX;
        if (strcmp(ix->keys[i], key) == 0) return ix->values[i];
    }
}

/* Stores key -> value unless key is there already; returns the value stored under key (the earlier
 * one for a duplicate). At most the n of name_index_init names. */
static size_t name_index_add(name_index *ix, const char *key, size_t value)
{
    size_t i = (size_t)name_hash(key) & ix->mask;
    for (; ix->keys[i]; i = (i + 1) & ix->mask)
        if (strcmp(ix->keys[i], key) == 0) return ix->values[i];
    ix->keys[i] = key;
    ix->values[i] = value;
    return value;
}

/* Below this many members an object's duplicates are found by comparing every pair. */
#define DUPLICATE_SCAN_MAX 16

/* Unknown and duplicated keys of an object. `valid` is NULL-terminated. */
static int check_keys(ctx *c, const cJSON *obj, const char *path, const char *const *valid)
{
    size_t members = 0;
    for (const cJSON *m = obj->child; m; m = m->next) ++members;
    name_index seen = {0};
    if (members > DUPLICATE_SCAN_MAX && name_index_init(&seen, members))
        return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = EDDY_OK;
    size_t at = 0;
    for (const cJSON *m = obj->child; m; m = m->next, ++at) {
        const char *name = m->string ? m->string : "";
        char mp[PATH_BUF];
        path_key(mp, path, name);
        int known = valid == NULL;
        for (size_t i = 0; valid && valid[i]; ++i)
            if (strcmp(valid[i], name) == 0) known = 1;
        if (!known) {
            char list[EDDY_ERROR_MESSAGE_MAX / 2];
            size_t k = 0;
            list[0] = '\0';
            for (size_t i = 0; valid[i]; ++i) {
                int n = snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", valid[i]);
                if (n < 0 || (size_t)n >= sizeof list - k) break;
                k += (size_t)n;
            }
            rc = fail(c, mp, m, AT_KEY, "unknown key, expected one of: %s", list);
            break;
        }
        /* The first duplicate found is the key's second occurrence. */
        int duplicate = 0;
        if (seen.keys) {
            duplicate = name_index_add(&seen, name, at) != at;
        } else {
            for (const cJSON *o = obj->child; o != m && !duplicate; o = o->next)
                duplicate = o->string && strcmp(o->string, name) == 0;
        }
        if (duplicate) {
            int line = 0, col = 0;
            node_position(c->s, mp, m, AT_KEY, 1, &line, &col);
            char pos[48] = "";
            if (line > 0) snprintf(pos, sizeof pos, ":%d:%d", line, col);
            rc = eddy_error_set(c->err, EDDY_ERR_INVALID_ARGUMENT, "%s%s: %s: duplicate key, expected each key once",
                                scene_file(c->s), pos, mp);
            break;
        }
    }
    name_index_free(&seen);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Typed getters                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

typedef struct numspec {
    double lo, hi;
    int lo_open, hi_open;
    int integer;
} numspec;

static const numspec NS_POS = {0, INFINITY, 1, 0, 0};
static const numspec NS_NONNEG = {0, INFINITY, 0, 0, 0};
static const numspec NS_UNIT = {0, 1, 0, 0, 0};
static const numspec NS_INT_NONNEG = {0, INT_MAX, 0, 0, 1};

static void numspec_text(const numspec *ns, char *out, size_t size)
{
    const char *what = ns->integer ? "an integer" : "a number";
    char lo[32], hi[32];
    fmt_number(lo, sizeof lo, ns->lo);
    fmt_number(hi, sizeof hi, ns->hi);
    int has_lo = isfinite(ns->lo) && ns->lo > -UNBOUNDED, has_hi = isfinite(ns->hi) && ns->hi < UNBOUNDED;
    int lo_open = ns->lo_open;
    if (has_lo && !ns->integer && ns->lo > 0 && ns->lo <= TINY) {
        fmt_number(lo, sizeof lo, 0.0); /* a table's "> 0" */
        lo_open = 1;
    }
    if (ns->integer && ns->hi == INT_MAX) has_hi = 0;
    if (has_lo && has_hi)
        snprintf(out, size, "%s in %c%s, %s%c", what, lo_open ? '(' : '[', lo, hi,
                 ns->hi_open ? ')' : ']');
    else if (has_lo) snprintf(out, size, "%s %s %s", what, lo_open ? ">" : ">=", lo);
    else if (has_hi) snprintf(out, size, "%s %s %s", what, ns->hi_open ? "<" : "<=", hi);
    else snprintf(out, size, "%s", what);
}

static int numspec_ok(const numspec *ns, double v)
{
    if (!isfinite(v)) return 0;
    if (ns->integer && v != floor(v)) return 0;
    if (ns->lo_open ? !(v > ns->lo) : !(v >= ns->lo)) return 0;
    if (ns->hi_open ? !(v < ns->hi) : !(v <= ns->hi)) return 0;
    return 1;
}

/* Member `key` of obj (NULL when absent). */
static cJSON *member(const cJSON *obj, const char *key)
{
    return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static int check_number(ctx *c, const char *path, const cJSON *v, const numspec *ns, double *out)
{
    if (!cJSON_IsNumber(v) || !numspec_ok(ns, v->valuedouble)) {
        char exp[96];
        numspec_text(ns, exp, sizeof exp);
        return fail_expected(c, path, v, exp);
    }
    *out = v->valuedouble;
    return EDDY_OK;
}

/* Number member; `*present` (may be NULL) tells whether it was given. Absent and not required: def. */
static int get_number(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                      const numspec *ns, double def, double *out, int *present)
{
    const cJSON *v = member(obj, key);
    if (present) *present = v != NULL;
    if (!v) {
        if (required) {
            char exp[96];
            numspec_text(ns, exp, sizeof exp);
            return fail_missing(c, path, obj, key, exp);
        }
        *out = def;
        return EDDY_OK;
    }
    char mp[PATH_BUF];
    path_key(mp, path, key);
    return check_number(c, mp, v, ns, out);
}

static int get_real(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                     const numspec *ns, double def, eddy_real *out, int *present)
{
    double d;
    int rc = get_number(c, obj, path, key, required, ns, def, &d, present);
    if (rc) return rc;
    if (isfinite(d) && (fabs(d) > FLT_MAX || (d != 0.0 && (eddy_real)d == 0.0f))) {
        char mp[PATH_BUF];
        path_key(mp, path, key);
        return fail_expected(c, mp, member(obj, key), "a number within the float range");
    }
    *out = (eddy_real)d;
    return EDDY_OK;
}

/* String member copied into out[size]. `max` characters at most (size - 1 when 0). */
static int get_string(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                      const char *def, char *out, size_t size, int nonempty)
{
    const cJSON *v = member(obj, key);
    char exp[96];
    snprintf(exp, sizeof exp, "a %sstring of at most %zu characters", nonempty ? "non-empty " : "",
             size - 1);
    if (!v) {
        if (required) return fail_missing(c, path, obj, key, exp);
        if (def) snprintf(out, size, "%s", def);
        return EDDY_OK;
    }
    char mp[PATH_BUF];
    path_key(mp, path, key);
    if (!cJSON_IsString(v) || !v->valuestring || strlen(v->valuestring) >= size ||
        (nonempty && !v->valuestring[0]))
        return fail_expected(c, mp, v, exp);
    snprintf(out, size, "%s", v->valuestring);
    return EDDY_OK;
}

/* Optional object member: *out = NULL when absent. */
static int get_object(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                      const char *expected, const cJSON **out)
{
    const cJSON *v = member(obj, key);
    *out = v;
    if (!v) return required ? fail_missing(c, path, obj, key, expected) : EDDY_OK;
    if (!cJSON_IsObject(v)) {
        char mp[PATH_BUF];
        path_key(mp, path, key);
        return fail_expected(c, mp, v, expected);
    }
    return EDDY_OK;
}

/* Vector: an array of `dimensions` numbers, or of 3 in 2D (z ignored and set to 0). */
static int check_vector(ctx *c, const char *path, const cJSON *v, eddy_real out[3])
{
    int d = c->s->dimensions;
    const char *exp = d == 2 ? "an array of 2 (or 3) numbers" : "an array of 3 numbers";
    if (!cJSON_IsArray(v)) return fail_expected(c, path, v, exp);
    int n = cJSON_GetArraySize(v);
    if (!(n == d || n == 3)) return fail_expected(c, path, v, exp);
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++i) {
        char ep[PATH_BUF];
        path_index(ep, path, (size_t)i);
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || fabs(e->valuedouble) > FLT_MAX)
            return fail_expected(c, ep, e, "a finite number");
        out[i] = i < d ? (eddy_real)e->valuedouble : 0.0f;
    }
    for (; i < 3; ++i) out[i] = 0.0f;
    if (d == 2) out[2] = 0.0f;
    return EDDY_OK;
}

static int get_vector(ctx *c, const cJSON *obj, const char *path, const char *key, int required,
                      const eddy_real def[3], eddy_real out[3])
{
    const cJSON *v = member(obj, key);
    if (!v) {
        if (required)
            return fail_missing(c, path, obj, key,
                                c->s->dimensions == 2 ? "an array of 2 (or 3) numbers"
                                                      : "an array of 3 numbers");
        for (int a = 0; a < 3; ++a) out[a] = def ? def[a] : 0.0f;
        if (c->s->dimensions == 2) out[2] = 0.0f;
        return EDDY_OK;
    }
    char mp[PATH_BUF];
    path_key(mp, path, key);
    return check_vector(c, mp, v, out);
}

static const char AXIS[3] = {'x', 'y', 'z'};

/* max > min on every used axis; the error points at `max`. */
static int check_min_max(ctx *c, const cJSON *obj, const char *path, const eddy_real mn[3], const eddy_real mx[3])
{
    for (int a = 0; a < c->s->dimensions; ++a) {
        if (!(mx[a] > mn[a])) {
            char mp[PATH_BUF];
            path_key(mp, path, "max");
            return fail(c, mp, member(obj, "max"), AT_VALUE,
                        "expected max > min on every axis, got max.%c = %g <= min.%c = %g", AXIS[a],
                        (double)mx[a], AXIS[a], (double)mn[a]);
        }
    }
    return EDDY_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Lattices (shared by counting and filling, so both always agree)                                   */
/* ------------------------------------------------------------------------------------------------ */

typedef struct lattice {
    int dims;
    uint64_t n[3];
    double origin[3]; /* sim units */
    double spacing;   /* sim units */
    int sphere;
    double center[3], r2;
} lattice;

/* Returns 0, or -1 when the lattice is too large to count. */
static int lattice_setup(const eddy_scene *s, const eddy_scene_fluid *f, double particle_dist,
                         lattice *L)
{
    memset(L, 0, sizeof *L);
    const double scale = s->simulation_scale;
    L->dims = s->dimensions;
    L->spacing = particle_dist * (double)f->spacing_factor;
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        if (f->shape == EDDY_FLUID_SPHERE) {
            lo[a] = ((double)f->center[a] - (double)f->radius) * scale;
            hi[a] = ((double)f->center[a] + (double)f->radius) * scale;
            L->center[a] = (double)f->center[a] * scale;
        } else {
            lo[a] = (double)f->min[a] * scale;
            hi[a] = (double)f->max[a] * scale;
        }
    }
    L->sphere = f->shape == EDDY_FLUID_SPHERE;
    L->r2 = ((double)f->radius * scale) * ((double)f->radius * scale);
    if (!(L->spacing > 0) || !isfinite(L->spacing)) return -1;
    double total = 1.0;
    for (int a = 0; a < 3; ++a) {
        L->origin[a] = lo[a];
        if (a >= L->dims) { L->n[a] = 1; L->origin[a] = 0.0; continue; }
        double n = floor((hi[a] - lo[a]) / L->spacing + LATTICE_EPS);
        if (!(n >= 0)) n = 0;
        if (n > 4.0e9) return -1;
        L->n[a] = (uint64_t)n;
        total *= n;
    }
    if (total > 1.0e15) return -1;
    return 0;
}

static uint64_t lattice_cells(const lattice *L)
{
    return L->n[0] * L->n[1] * L->n[2];
}

/* Emits up to `max` points from lattice index *cursor on (x fastest); positions (3 floats each) when
 * pos is not NULL. Returns how many were emitted. */
static size_t lattice_emit(const lattice *L, uint64_t *cursor, eddy_real *pos, size_t max)
{
    const uint64_t total = lattice_cells(L);
    size_t k = 0;
    while (*cursor < total && k < max) {
        uint64_t idx = (*cursor)++;
        uint64_t ix = idx % L->n[0], rest = idx / L->n[0];
        uint64_t iy = rest % L->n[1], iz = rest / L->n[1];
        double p[3] = {L->origin[0] + ((double)ix + 0.5) * L->spacing,
                       L->origin[1] + ((double)iy + 0.5) * L->spacing,
                       L->dims == 3 ? L->origin[2] + ((double)iz + 0.5) * L->spacing : 0.0};
        if (L->sphere) {
            double r2 = 0.0;
            for (int a = 0; a < L->dims; ++a) r2 += (p[a] - L->center[a]) * (p[a] - L->center[a]);
            if (r2 > L->r2) continue;
        }
        if (pos) {
            pos[3 * k + 0] = (eddy_real)p[0];
            pos[3 * k + 1] = (eddy_real)p[1];
            pos[3 * k + 2] = (eddy_real)p[2];
        }
        ++k;
    }
    return k;
}

/* particle_dist as eddy_world_add_material derives it (same float arithmetic). */
static eddy_real material_dist(const eddy_material *m, eddy_real smoothing_radius, int dimensions)
{
    return eddy_rest_spacing(m->particle_mass, m->rest_density, smoothing_radius, dimensions);
}

/* Whether lattice point (ix, iy, iz) is emitted: exactly lattice_emit's test. */
static int lattice_keeps(const lattice *L, uint64_t ix, uint64_t iy, uint64_t iz)
{
    if (!L->sphere) return 1;
    double p[3] = {L->origin[0] + ((double)ix + 0.5) * L->spacing, L->origin[1] + ((double)iy + 0.5) * L->spacing,
                   L->dims == 3 ? L->origin[2] + ((double)iz + 0.5) * L->spacing : 0.0};
    double r2 = 0.0;
    for (int a = 0; a < L->dims; ++a) r2 += (p[a] - L->center[a]) * (p[a] - L->center[a]);
    return !(r2 > L->r2);
}

/* Points lattice_emit keeps in row (iy, iz). Along a row the distance to the centre falls and then
 * rises (rounding keeps it monotone on each side), so the kept points are one run: found from the
 * point nearest the centre, with the circle's chord as the first guess of each end. */
static uint64_t sphere_row_count(const lattice *L, uint64_t iy, uint64_t iz)
{
    const uint64_t n = L->n[0];
    if (n == 0) return 0;
    const double fc = (L->center[0] - L->origin[0]) / L->spacing - 0.5; /* centre in index units */
    double nearest = floor(fc);
    uint64_t start = UINT64_MAX;
    for (int k = -1; k < 3 && start == UINT64_MAX; ++k) { /* the nearest, whatever the rounding of fc */
        double x = nearest + k;
        if (x < 0) x = 0;
        if (x > (double)(n - 1)) x = (double)(n - 1);
        if (lattice_keeps(L, (uint64_t)x, iy, iz)) start = (uint64_t)x;
    }
    if (start == UINT64_MAX) return 0;
    double dy = L->origin[1] + ((double)iy + 0.5) * L->spacing - L->center[1];
    double dz = L->dims == 3 ? L->origin[2] + ((double)iz + 0.5) * L->spacing - L->center[2] : 0.0;
    double chord2 = L->r2 - dy * dy - dz * dz;
    double half = chord2 > 0 ? sqrt(chord2) / L->spacing : 0.0;
    /* right end */
    double guess = floor(fc + half);
    uint64_t hi = guess <= (double)start ? start : guess >= (double)(n - 1) ? n - 1 : (uint64_t)guess;
    while (hi > start && !lattice_keeps(L, hi, iy, iz)) --hi;
    while (hi + 1 < n && lattice_keeps(L, hi + 1, iy, iz)) ++hi;
    /* left end */
    guess = ceil(fc - half);
    uint64_t lo = guess >= (double)start ? start : guess <= 0 ? 0 : (uint64_t)guess;
    while (lo < start && !lattice_keeps(L, lo, iy, iz)) ++lo;
    while (lo > 0 && lattice_keeps(L, lo - 1, iy, iz)) --lo;
    return hi - lo + 1;
}

/*
 * Particles of one fluid block on a lattice of material spacing `dist`, as a double: exact, or, with
 * *at_least set, a lower bound that already exceeds the 2^32 particle cap (counting stops there). A
 * box is a product; a sphere is counted row by row, after a lower bound from its volume has ruled out
 * a count above the cap, so no count ever walks more than about (2^32)^((d-1)/d) rows.
 */
static double fluid_count_at(const eddy_scene *s, const eddy_scene_fluid *f, double dist, int *at_least)
{
    *at_least = 0;
    lattice L;
    if (lattice_setup(s, f, dist, &L)) {
        *at_least = 1;
        return INFINITY;
    }
    double cells = (double)L.n[0] * (double)L.n[1] * (double)L.n[2];
    if (!L.sphere || cells == 0) return cells;
    /* Every point of the ball of radius R - (sqrt(d) / 2 + 1.01) spacing lies in the cell of a kept
     * lattice point (the lattice may stop up to one spacing short of the box's far faces). */
    const int d = L.dims;
    double inner = sqrt(L.r2) / L.spacing - (sqrt((double)d) / 2.0 + 1.01);
    if (inner > 0) {
        double lower = d == 2 ? M_PI * inner * inner : 4.0 / 3.0 * M_PI * inner * inner * inner;
        if (lower > (double)UINT32_MAX) {
            *at_least = 1;
            return floor(lower);
        }
    }
    uint64_t total = 0;
    for (uint64_t iz = 0; iz < L.n[2]; ++iz)
        for (uint64_t iy = 0; iy < L.n[1]; ++iy) total += sphere_row_count(&L, iy, iz);
    return (double)total;
}

static size_t fluid_count(const eddy_scene *s, const eddy_scene_fluid *f)
{
    if (f->material < 0 || (size_t)f->material >= s->material_count) return 0;
    int at_least;
    double n = fluid_count_at(s, f, (double)s->materials[f->material].particle_dist, &at_least);
    return at_least || !(n < (double)SIZE_MAX) ? SIZE_MAX : (size_t)n;
}

size_t eddy_scene_count_particles(const eddy_scene *scene)
{
    if (!scene) return 0;
    size_t total = 0;
    for (size_t i = 0; i < scene->fluid_count; ++i) {
        size_t n = fluid_count(scene, &scene->fluids[i]);
        if (n > SIZE_MAX - total) return SIZE_MAX;
        total += n;
    }
    return total;
}

/* The domain in world units: the `domain` section, else the container widened by one smoothing
 * radius on bounded axes. 2D: z = 0. Returns 0 when there is neither. */
static int effective_domain(const eddy_scene *s, eddy_real lo[3], eddy_real hi[3])
{
    for (int a = 0; a < 3; ++a) lo[a] = hi[a] = 0.0f;
    if (s->has_domain) {
        for (int a = 0; a < s->dimensions; ++a) { lo[a] = s->domain_min[a]; hi[a] = s->domain_max[a]; }
        return 1;
    }
    if (!s->has_container) return 0;
    eddy_real widen = s->smoothing_radius / s->simulation_scale;
    for (int a = 0; a < s->dimensions; ++a) {
        lo[a] = s->container_min[a];
        hi[a] = s->container_max[a];
        if (!s->periodic[a]) { lo[a] -= widen; hi[a] += widen; }
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------------ */
/* Sections                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static const char *const TOP_KEYS[] = {"name",   "description", "solver",    "grid",
                                       "dimensions", "time",    "world",     "container",
                                       "domain", "materials",   "fluids",    "colliders",
                                       "solvers", "grids",      "output",
                                       /* read by host/probes.c, host/render.c, host/checkpoint.c */
                                       "probes", "render",      "checkpoint", NULL};
static const char *const TIME_KEYS[] = {"dt", "end", "output_interval", NULL};
static const char *const WORLD_KEYS[] = {"simulation_scale", "gravity", "smoothing_radius", "threads",
                                         NULL};
static const char *const MINMAX_KEYS[] = {"min", "max", NULL};
static const char *const DOMAIN_KEYS[] = {"min", "max", "periodic", "out_of_domain", NULL};
/* The generic material keys, read when the scene is parsed: the ones every method shares, listed
 * around the keys the solvers declare (eddy_scene_material_params) in messages. */
static const char *const MATERIAL_KEYS_FIRST[] = {"name", "rest_density", "particle_mass",
                                                  "particle_spacing", NULL};
static const char *const MATERIAL_KEYS_CONTACT[] = {"particle_radius", "particle_margin", "restitution",
                                                    "friction", "erp", NULL};
static const char *const FLUID_KEYS[] = {"material", "box", "sphere", "velocity", "spacing_factor", NULL};
static const char *const SPHERE_KEYS[] = {"center", "radius", NULL};
static const char *const PLANE_COLLIDER_KEYS[] = {"type", "point", "normal", "velocity", "moving_until", NULL};
static const char *const BOX_COLLIDER_KEYS[] = {"type", "min", "max", "velocity", "moving_until", NULL};
static const char *const SPHERE_COLLIDER_KEYS[] = {"type", "center", "radius", "velocity", "moving_until", NULL};
static const char *const OUTPUT_KEYS[] = {"dir", "format", "writers", NULL};

static int is_id(const char *s)
{
    if (!*s) return 0;
    for (; *s; ++s)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
    return 1;
}

static int parse_id(ctx *c, const cJSON *root, const char *key, int required, const char *def,
                    char *out)
{
    const cJSON *v = member(root, key);
    const char *exp = "a component id (1 to 63 characters of [a-z0-9_])";
    if (!v) {
        if (required) return fail_missing(c, "", root, key, exp);
        snprintf(out, EDDY_SCENE_ID_MAX, "%s", def);
        return EDDY_OK;
    }
    if (!cJSON_IsString(v) || !v->valuestring || strlen(v->valuestring) >= EDDY_SCENE_ID_MAX ||
        !is_id(v->valuestring))
        return fail_expected(c, key, v, exp);
    snprintf(out, EDDY_SCENE_ID_MAX, "%s", v->valuestring);
    return EDDY_OK;
}

static void default_name(const char *file, char *out)
{
    const char *base = file && *file ? file : "scene";
    const char *slash = strrchr(base, '/');
    if (slash) base = slash + 1;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0) len -= 5;
    if (len == 0) { base = "scene"; len = 5; }
    if (len >= EDDY_SCENE_ID_MAX) len = EDDY_SCENE_ID_MAX - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

static int parse_name(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *v = member(root, "name");
    if (!v) {
        default_name(s->file, s->name);
        return EDDY_OK;
    }
    const char *exp = "a non-empty string of at most 63 characters without '/'";
    if (!cJSON_IsString(v) || !v->valuestring || !v->valuestring[0] ||
        strlen(v->valuestring) >= EDDY_SCENE_ID_MAX || strchr(v->valuestring, '/') ||
        strchr(v->valuestring, '\\'))
        return fail_expected(c, "name", v, exp);
    for (const char *p = v->valuestring; *p; ++p)
        if ((unsigned char)*p < 0x20) return fail_expected(c, "name", v, exp);
    snprintf(s->name, sizeof s->name, "%s", v->valuestring);
    return EDDY_OK;
}

static int parse_time(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *t;
    int rc;
    if ((rc = get_object(c, root, "", "time", 1, "an object {dt, end, output_interval}", &t)) ||
        (rc = check_keys(c, t, "time", TIME_KEYS)) ||
        (rc = get_number(c, t, "time", "dt", 1, &NS_POS, 0, &s->dt, NULL)) ||
        (rc = get_number(c, t, "time", "end", 1, &NS_POS, 0, &s->end_time, NULL)) ||
        (rc = get_number(c, t, "time", "output_interval", 0, &NS_POS, s->end_time / 50.0,
                         &s->output_interval, NULL)))
        return rc;
    return EDDY_OK;
}

static int parse_world(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *w;
    static const eddy_real g_def[3] = {0.0f, -9.81f, 0.0f};
    double threads;
    int rc;
    if ((rc = get_object(c, root, "", "world", 1, "an object {smoothing_radius, ...}", &w)) ||
        (rc = check_keys(c, w, "world", WORLD_KEYS)) ||
        (rc = get_real(c, w, "world", "simulation_scale", 0, &NS_POS, 1.0, &s->simulation_scale, NULL)) ||
        (rc = get_vector(c, w, "world", "gravity", 0, g_def, s->gravity)) ||
        (rc = get_real(c, w, "world", "smoothing_radius", 1, &NS_POS, 0, &s->smoothing_radius, NULL)) ||
        (rc = get_number(c, w, "world", "threads", 0, &NS_INT_NONNEG, 0, &threads, NULL)))
        return rc;
    s->threads = (int)threads;
    return EDDY_OK;
}

static int parse_container(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *o;
    int rc;
    if ((rc = get_object(c, root, "", "container", 0, "an object {min, max}", &o))) return rc;
    if (!o) return EDDY_OK;
    if ((rc = check_keys(c, o, "container", MINMAX_KEYS)) ||
        (rc = get_vector(c, o, "container", "min", 1, NULL, s->container_min)) ||
        (rc = get_vector(c, o, "container", "max", 1, NULL, s->container_max)) ||
        (rc = check_min_max(c, o, "container", s->container_min, s->container_max)))
        return rc;
    s->has_container = 1;
    return EDDY_OK;
}

static int parse_domain(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *o;
    int rc;
    if ((rc = get_object(c, root, "", "domain", 0, "an object {min, max, periodic, out_of_domain}", &o)))
        return rc;
    if (o) {
        if ((rc = check_keys(c, o, "domain", DOMAIN_KEYS))) return rc;
        const cJSON *mn = member(o, "min"), *mx = member(o, "max");
        if (mn || mx) {
            if ((rc = get_vector(c, o, "domain", "min", 1, NULL, s->domain_min)) ||
                (rc = get_vector(c, o, "domain", "max", 1, NULL, s->domain_max)) ||
                (rc = check_min_max(c, o, "domain", s->domain_min, s->domain_max)))
                return rc;
            s->has_domain = 1;
        }
        const cJSON *per = member(o, "periodic");
        if (per) {
            const char *exp = s->dimensions == 2 ? "an array of 2 (or 3) booleans" : "an array of 3 booleans";
            int n = cJSON_IsArray(per) ? cJSON_GetArraySize(per) : -1;
            if (!(n == s->dimensions || n == 3)) return fail_expected(c, "domain.periodic", per, exp);
            int i = 0;
            for (const cJSON *e = per->child; e; e = e->next, ++i) {
                char ep[PATH_BUF];
                path_index(ep, "domain.periodic", (size_t)i);
                if (!cJSON_IsBool(e)) return fail_expected(c, ep, e, "true or false");
                s->periodic[i] = i < s->dimensions && cJSON_IsTrue(e);
            }
        }
        const cJSON *pol = member(o, "out_of_domain");
        if (pol) {
            if (cJSON_IsString(pol) && strcmp(pol->valuestring, "error") == 0)
                s->out_of_domain = EDDY_DOMAIN_ERROR;
            else if (cJSON_IsString(pol) && strcmp(pol->valuestring, "remove") == 0)
                s->out_of_domain = EDDY_DOMAIN_REMOVE;
            else
                return fail_expected(c, "domain.out_of_domain", pol, "\"error\" or \"remove\"");
        }
    }
    if (!s->has_domain && !s->has_container)
        return fail_missing(c, "", root, "container",
                            "an object {min, max} (or a domain with min and max)");
    eddy_real lo[3], hi[3];
    effective_domain(s, lo, hi);
    if (!s->has_domain) {
        memcpy(s->domain_min, lo, sizeof lo);
        memcpy(s->domain_max, hi, sizeof hi);
    }
    return EDDY_OK;
}

/* Relative difference allowed between a given particle_spacing and the spacing its particle mass
 * gives back (eddy_rest_spacing): float rounding of the mass leaves about 1e-7, the ill-conditioned
 * range just below h / spacing = 1 (where the neighbours' kernel weight vanishes) far more. */
#define SPACING_ROUND_TRIP 1e-5

/* h / spacing within (1, EDDY_LATTICE_RATIO_MAX] for a given particle_spacing (dx in simulation
 * units), before any lattice sum is formed; the error names the key and both values. */
static int check_spacing_ratio(ctx *c, const cJSON *o, const char *p, double dx, double h, double scale)
{
    char sp[PATH_BUF];
    path_key(sp, p, "particle_spacing");
    const cJSON *v = member(o, "particle_spacing");
    const double ratio = h / dx;
    if (ratio > EDDY_LATTICE_RATIO_MAX)
        return fail(c, sp, v, AT_VALUE,
                    "expected a spacing of at least world.smoothing_radius / %d = %g (at most %d spacings "
                    "per smoothing radius), got %g (h / spacing = %g)",
                    EDDY_LATTICE_RATIO_MAX, h / EDDY_LATTICE_RATIO_MAX / scale, EDDY_LATTICE_RATIO_MAX,
                    dx / scale, ratio);
    if (!((eddy_real)dx < (eddy_real)h)) /* in the float precision both are stored in */
        return fail(c, sp, v, AT_VALUE,
                    "expected a spacing below world.smoothing_radius = %g (the kernel must reach the nearest "
                    "neighbours for the density sum to fix the particle mass), got %g",
                    h / scale, dx / scale);
    return EDDY_OK;
}

/* The material's particle_dist (already derived from its mass) against what the scene asked: the
 * given spacing dx (> 0), or, for a given mass, a spacing with h / spacing in (1, limit] whose lattice
 * sums to rest density. */
static int check_rest_spacing(ctx *c, const cJSON *o, const char *p, const eddy_material *m, double dx, double h,
                              double scale)
{
    const int d = c->s->dimensions;
    const double dist = (double)m->particle_dist;
    char kp[PATH_BUF];
    if (dx > 0) {
        if (fabs(dist - dx) <= SPACING_ROUND_TRIP * dx) return EDDY_OK;
        path_key(kp, p, "particle_spacing");
        return fail(c, kp, member(o, "particle_spacing"), AT_VALUE,
                    "expected a spacing further below world.smoothing_radius = %g, got %g (h / spacing = %g): "
                    "the neighbours' kernel weight is too small for a particle mass to give this spacing rest "
                    "density (the mass gives %g)",
                    h / scale, dx / scale, h / dx, dist / scale);
    }
    path_key(kp, p, "particle_mass");
    const cJSON *v = member(o, "particle_mass");
    const double plain = pow((double)m->particle_mass / (double)m->rest_density, 1.0 / d);
    if (isnan(dist) || h / dist > EDDY_LATTICE_RATIO_MAX)
        return fail(c, kp, v, AT_VALUE,
                    "expected a mass whose rest spacing is at least world.smoothing_radius / %d = %g (at most %d "
                    "spacings per smoothing radius), got %g (rest spacing about %g, h / spacing about %g)",
                    EDDY_LATTICE_RATIO_MAX, h / EDDY_LATTICE_RATIO_MAX / scale, EDDY_LATTICE_RATIO_MAX,
                    (double)m->particle_mass, plain / scale, h / plain);
    const double rho = eddy_lattice_density((double)m->particle_mass, dist, h, d);
    if (h / dist > 1 && fabs(rho - (double)m->rest_density) <= 1e-4 * (double)m->rest_density) return EDDY_OK;
    return fail(c, kp, v, AT_VALUE,
                "expected a mass whose rest spacing lies below world.smoothing_radius = %g (the kernel must "
                "reach the nearest neighbours for the density sum to give rest_density %g), got %g (rest "
                "spacing about %g)",
                h / scale, (double)m->rest_density, (double)m->particle_mass, dist / scale);
}

static int parse_materials(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *arr = member(root, "materials");
    const char *exp = "a non-empty array of material objects";
    if (!arr) return fail_missing(c, "", root, "materials", exp);
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1) return fail_expected(c, "materials", arr, exp);
    size_t n = (size_t)cJSON_GetArraySize(arr);
    s->materials = calloc(n, sizeof *s->materials);
    if (!s->materials || name_index_init(c->material_names, n))
        return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const int d = s->dimensions;
    const double scale = s->simulation_scale;
    size_t i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        char p[PATH_BUF];
        path_index(p, "materials", i);
        if (!cJSON_IsObject(o)) return fail_expected(c, p, o, "a material object");
        /* Duplicates only: which other keys are valid depends on the registered solvers
         * (eddy_scene_material_params, when the world is built). */
        int rc = check_keys(c, o, p, NULL);
        if (rc) return rc;
        eddy_material *m = &s->materials[i];
        *m = eddy_default_material();
        double rho, mass = 0, spacing = 0, v;
        int has_mass, has_spacing;
        if ((rc = get_string(c, o, p, "name", 1, NULL, m->name, sizeof m->name, 1))) return rc;
        size_t j = name_index_add(c->material_names, m->name, i);
        if (j != i) {
            char np[PATH_BUF];
            path_key(np, p, "name");
            return fail(c, np, member(o, "name"), AT_VALUE,
                        "expected a unique material name, got \"%s\" again (also materials[%zu])", m->name, j);
        }
        if ((rc = get_number(c, o, p, "rest_density", 0, &NS_POS, 1000.0, &rho, NULL)) ||
            (rc = get_number(c, o, p, "particle_mass", 0, &NS_POS, 0, &mass, &has_mass)) ||
            (rc = get_number(c, o, p, "particle_spacing", 0, &NS_POS, 0, &spacing, &has_spacing)))
            return rc;
        if (has_mass && has_spacing) {
            char sp[PATH_BUF];
            path_key(sp, p, "particle_spacing");
            return fail(c, sp, member(o, "particle_spacing"), AT_KEY,
                        "expected exactly one of particle_mass and particle_spacing, got both");
        }
        if (!has_mass && !has_spacing)
            return fail(c, p, o, AT_CONTAINER,
                        "expected exactly one of particle_mass and particle_spacing, got neither");
        m->rest_density = (eddy_real)rho;
        const double h = (double)s->smoothing_radius;
        if (has_spacing && (rc = check_spacing_ratio(c, o, p, spacing * scale, h, scale))) return rc;
        if (has_spacing) {
            /* The mass that gives this spacing exactly rest density under poly6 summation
             * (eddy_lattice_density), so a block starts at rest instead of under a spurious pressure. */
            double dx = spacing * scale, m0 = rho * pow(dx, (double)d);
            double lattice = eddy_lattice_density(m0, dx, h, d);
            mass = lattice > 0 ? m0 * rho / lattice : m0;
        }
        if (!(mass > 0) || !(mass <= FLT_MAX) || !((eddy_real)mass > 0)) {
            char sp[PATH_BUF];
            path_key(sp, p, has_spacing ? "particle_spacing" : "particle_mass");
            return fail(c, sp, member(o, has_spacing ? "particle_spacing" : "particle_mass"), AT_VALUE,
                        "expected a particle mass within the float range, got %g", mass);
        }
        m->particle_mass = (eddy_real)mass;
        /* particle_dist is what eddy_world_add_material will derive from the mass (same float
         * arithmetic), so the scene's particle counts and the world's fill use one spacing. A given
         * spacing must come back from its mass; a given mass must give a spacing in range. */
        m->particle_dist = material_dist(m, s->smoothing_radius, d);
        if ((rc = check_rest_spacing(c, o, p, m, has_spacing ? spacing * scale : 0, h, scale))) return rc;
        double spacing_world = has_spacing ? spacing : (double)m->particle_dist / scale;
        if ((rc = get_real(c, o, p, "particle_radius", 0, &NS_POS, 0.5 * spacing_world,
                            &m->contact.radius, NULL)))
            return rc;
        numspec margin = {0, (double)m->contact.radius, 0, 1, 0};
        const cJSON *mv = member(o, "particle_margin");
        if (mv) {
            char mp[PATH_BUF];
            path_key(mp, p, "particle_margin");
            if (!cJSON_IsNumber(mv) || !numspec_ok(&margin, mv->valuedouble)) {
                char b[64];
                return fail(c, mp, mv, AT_VALUE, "expected a number in [0, particle_radius) = [0, %g), got %s",
                            (double)m->contact.radius, describe(mv, b, sizeof b));
            }
            v = mv->valuedouble;
        } else {
            v = 0.1 * (double)m->contact.radius;
        }
        m->contact.margin = (eddy_real)v;
        if ((rc = get_real(c, o, p, "restitution", 0, &NS_UNIT, 0.0, &m->contact.restitution, NULL)) ||
            (rc = get_real(c, o, p, "friction", 0, &NS_UNIT, 0.0, &m->contact.friction, NULL)) ||
            (rc = get_real(c, o, p, "erp", 0, &NS_UNIT, 0.5, &m->contact.erp, NULL)))
            return rc;
        s->material_count = i + 1;
    }
    return EDDY_OK;
}

static int parse_fluids(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *arr = member(root, "fluids");
    const char *exp = "a non-empty array of fluid block objects";
    if (!arr) return fail_missing(c, "", root, "fluids", exp);
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1) return fail_expected(c, "fluids", arr, exp);
    size_t n = (size_t)cJSON_GetArraySize(arr);
    s->fluids = calloc(n, sizeof *s->fluids);
    if (!s->fluids) return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    eddy_real dlo[3], dhi[3];
    effective_domain(s, dlo, dhi);
    size_t i = 0;
    double total = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        char p[PATH_BUF], q[PATH_BUF];
        path_index(p, "fluids", i);
        if (!cJSON_IsObject(o)) return fail_expected(c, p, o, "a fluid block object");
        int rc = check_keys(c, o, p, FLUID_KEYS);
        if (rc) return rc;
        eddy_scene_fluid *f = &s->fluids[i];
        s->fluid_count = i + 1;
        /* material */
        const cJSON *mv = member(o, "material");
        if (!mv) return fail_missing(c, p, o, "material", "the name of a material");
        f->material = -1;
        if (cJSON_IsString(mv)) {
            size_t k = name_index_find(c->material_names, mv->valuestring);
            if (k < s->material_count) f->material = (int)k;
        }
        if (f->material < 0) {
            char names[EDDY_ERROR_MESSAGE_MAX / 2], b[64];
            size_t k = 0;
            names[0] = '\0';
            for (size_t j = 0; j < s->material_count; ++j) {
                int w = snprintf(names + k, sizeof names - k, "%s\"%s\"", j ? ", " : "",
                                 s->materials[j].name);
                if (w < 0 || (size_t)w >= sizeof names - k) break;
                k += (size_t)w;
            }
            path_key(q, p, "material");
            return fail(c, q, mv, AT_VALUE, "expected the name of a material (%s), got %s", names,
                        describe(mv, b, sizeof b));
        }
        /* shape */
        const cJSON *box = member(o, "box"), *sph = member(o, "sphere");
        if (box && sph) {
            path_key(q, p, "sphere");
            return fail(c, q, sph, AT_KEY, "expected exactly one of box and sphere, got both");
        }
        if (!box && !sph)
            return fail(c, p, o, AT_CONTAINER, "expected exactly one of box and sphere, got neither");
        if (box) {
            path_key(q, p, "box");
            if (!cJSON_IsObject(box)) return fail_expected(c, q, box, "an object {min, max}");
            f->shape = EDDY_FLUID_BOX;
            if ((rc = check_keys(c, box, q, MINMAX_KEYS)) ||
                (rc = get_vector(c, box, q, "min", 1, NULL, f->min)) ||
                (rc = get_vector(c, box, q, "max", 1, NULL, f->max)) ||
                (rc = check_min_max(c, box, q, f->min, f->max)))
                return rc;
        } else {
            path_key(q, p, "sphere");
            if (!cJSON_IsObject(sph)) return fail_expected(c, q, sph, "an object {center, radius}");
            f->shape = EDDY_FLUID_SPHERE;
            if ((rc = check_keys(c, sph, q, SPHERE_KEYS)) ||
                (rc = get_vector(c, sph, q, "center", 1, NULL, f->center)) ||
                (rc = get_real(c, sph, q, "radius", 1, &NS_POS, 0, &f->radius, NULL)))
                return rc;
            for (int a = 0; a < 3; ++a) {
                f->min[a] = a < s->dimensions ? f->center[a] - f->radius : 0.0f;
                f->max[a] = a < s->dimensions ? f->center[a] + f->radius : 0.0f;
            }
        }
        if ((rc = get_vector(c, o, p, "velocity", 0, NULL, f->velocity)) ||
            (rc = get_real(c, o, p, "spacing_factor", 0, &NS_POS, 1.0, &f->spacing_factor, NULL)))
            return rc;
        /* inside the domain (bounded axes), unless escaping particles are removed anyway */
        const cJSON *shape = box ? box : sph;
        path_key(q, p, box ? "box" : "sphere");
        if (s->out_of_domain == EDDY_DOMAIN_ERROR)
            for (int a = 0; a < s->dimensions; ++a)
                if (!s->periodic[a] && (f->min[a] < dlo[a] || f->max[a] > dhi[a]))
                    return fail(c, q, shape, AT_VALUE,
                                "expected a block inside the domain [%g, %g] on axis %c, got [%g, %g]",
                                (double)dlo[a], (double)dhi[a], AXIS[a], (double)f->min[a],
                                (double)f->max[a]);
        int at_least = 0;
        double count = fluid_count_at(s, f, (double)s->materials[f->material].particle_dist, &at_least);
        if (count == 0) {
            return fail(c, q, shape, AT_VALUE,
                        "expected a block at least one particle spacing (%g) wide on every axis, got 0 "
                        "particles",
                        (double)s->materials[f->material].particle_dist * (double)f->spacing_factor /
                            (double)s->simulation_scale);
        }
        total += count;
        if (total > (double)UINT32_MAX) {
            if (isinf(total))
                return fail(c, q, shape, AT_VALUE,
                            "expected at most %u particles in all, got more than 1e15 in this block", UINT32_MAX);
            return fail(c, q, shape, AT_VALUE, "expected at most %u particles in all, got %s%.0f after this block",
                        UINT32_MAX, at_least ? "at least " : "", total);
        }
    }
    return EDDY_OK;
}

static int parse_colliders(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *arr = member(root, "colliders");
    if (!arr) return EDDY_OK;
    if (!cJSON_IsArray(arr)) return fail_expected(c, "colliders", arr, "an array of collider objects");
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n == 0) return EDDY_OK;
    s->colliders = calloc(n, sizeof *s->colliders);
    s->collider_moving_until = calloc(n, sizeof *s->collider_moving_until);
    if (!s->colliders || !s->collider_moving_until) return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    size_t i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        char p[PATH_BUF], q[PATH_BUF];
        path_index(p, "colliders", i);
        if (!cJSON_IsObject(o)) return fail_expected(c, p, o, "a collider object");
        eddy_collider *col = &s->colliders[i];
        *col = eddy_default_collider();
        s->collider_count = i + 1;
        const cJSON *t = member(o, "type");
        const char *texp = "\"plane\", \"box\" or \"sphere\"";
        if (!t) return fail_missing(c, p, o, "type", texp);
        const char *const *keys;
        path_key(q, p, "type");
        if (cJSON_IsString(t) && strcmp(t->valuestring, "plane") == 0) {
            col->shape = EDDY_SHAPE_PLANE;
            keys = PLANE_COLLIDER_KEYS;
        } else if (cJSON_IsString(t) && strcmp(t->valuestring, "box") == 0) {
            col->shape = EDDY_SHAPE_BOX;
            keys = BOX_COLLIDER_KEYS;
        } else if (cJSON_IsString(t) && strcmp(t->valuestring, "sphere") == 0) {
            col->shape = EDDY_SHAPE_SPHERE;
            keys = SPHERE_COLLIDER_KEYS;
        } else {
            return fail_expected(c, q, t, texp);
        }
        int rc = check_keys(c, o, p, keys);
        if (rc) return rc;
        if (col->shape == EDDY_SHAPE_PLANE) {
            if ((rc = get_vector(c, o, p, "point", 1, NULL, col->point)) ||
                (rc = get_vector(c, o, p, "normal", 1, NULL, col->normal)))
                return rc;
            double l2 = 0;
            for (int a = 0; a < s->dimensions; ++a) l2 += (double)col->normal[a] * col->normal[a];
            if (!(l2 > 0)) {
                path_key(q, p, "normal");
                return fail(c, q, member(o, "normal"), AT_VALUE, "expected a non-zero vector, got a zero vector");
            }
        } else if (col->shape == EDDY_SHAPE_BOX) {
            if ((rc = get_vector(c, o, p, "min", 1, NULL, col->min)) ||
                (rc = get_vector(c, o, p, "max", 1, NULL, col->max)) ||
                (rc = check_min_max(c, o, p, col->min, col->max)))
                return rc;
        } else {
            if ((rc = get_vector(c, o, p, "center", 1, NULL, col->center)) ||
                (rc = get_real(c, o, p, "radius", 1, &NS_POS, 0, &col->radius, NULL)))
                return rc;
        }
        if ((rc = get_vector(c, o, p, "velocity", 0, NULL, col->velocity)) ||
            (rc = get_number(c, o, p, "moving_until", 0, &NS_NONNEG, 0.0, &s->collider_moving_until[i], NULL)))
            return rc;
    }
    return EDDY_OK;
}

/* solvers / grids / output.writers: an object of objects; the contents are checked by
 * eddy_scene_component_params, the ids by eddy_scene_check_components. */
static int parse_component_sections(ctx *c, const cJSON *parent, const char *parent_path, const char *key)
{
    const cJSON *o;
    int rc;
    char path[PATH_BUF];
    path_key(path, parent_path, key);
    if ((rc = get_object(c, parent, parent_path, key, 0, "an object {component id: {parameter: value}}", &o)) || !o)
        return rc;
    if ((rc = check_keys(c, o, path, NULL))) return rc;
    for (const cJSON *m = o->child; m; m = m->next) {
        char p[PATH_BUF];
        path_key(p, path, m->string ? m->string : "");
        if (!cJSON_IsObject(m)) return fail_expected(c, p, m, "an object {parameter: value}");
    }
    return EDDY_OK;
}

/* One writer id of output.format (at path / node), appended to scene->formats. */
static int add_format(ctx *c, const char *path, const cJSON *node, const char *tok, size_t len)
{
    eddy_scene *s = c->s;
    char id[EDDY_SCENE_ID_MAX];
    int ok = len > 0 && len < sizeof id;
    if (ok) {
        memcpy(id, tok, len);
        id[len] = '\0';
        ok = is_id(id);
    }
    if (!ok)
        return fail(c, path, node, AT_VALUE, "expected a writer id (1 to 63 characters of [a-z0-9_]), got \"%.*s\"",
                    (int)(len < 40 ? len : 40), tok);
    for (size_t i = 0; i < s->format_count; ++i)
        if (strcmp(s->formats[i], id) == 0)
            return fail(c, path, node, AT_VALUE, "expected each writer once, got \"%s\" again", id);
    if (s->format_count >= EDDY_SCENE_FORMAT_MAX)
        return fail(c, path, node, AT_VALUE, "expected at most %d writers", EDDY_SCENE_FORMAT_MAX);
    snprintf(s->formats[s->format_count++], EDDY_SCENE_ID_MAX, "%s", id);
    return EDDY_OK;
}

static int parse_output(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *o;
    int rc;
    char def_dir[EDDY_SCENE_PATH_MAX];
    snprintf(def_dir, sizeof def_dir, "out/%s", s->name);
    s->format_count = 1;
    snprintf(s->formats[0], EDDY_SCENE_ID_MAX, "vtk");
    snprintf(s->out_dir, sizeof s->out_dir, "%s", def_dir);
    if ((rc = get_object(c, root, "", "output", 0, "an object {dir, format, writers}", &o)) || !o) return rc;
    if ((rc = check_keys(c, o, "output", OUTPUT_KEYS)) ||
        (rc = get_string(c, o, "output", "dir", 0, def_dir, s->out_dir, sizeof s->out_dir, 1)) ||
        (rc = parse_component_sections(c, o, "output", "writers")))
        return rc;
    const cJSON *f = member(o, "format");
    if (!f) return EDDY_OK;
    s->format_count = 0;
    if (cJSON_IsArray(f)) {
        size_t i = 0;
        for (const cJSON *e = f->child; e; e = e->next, ++i) {
            char ep[PATH_BUF];
            path_index(ep, "output.format", i);
            if (!cJSON_IsString(e)) return fail_expected(c, ep, e, "a writer id (\"vtk\", \"csv\", ...)");
            if ((rc = add_format(c, ep, e, e->valuestring, strlen(e->valuestring)))) return rc;
        }
    } else if (cJSON_IsString(f)) {
        const char *p = f->valuestring;
        while (*p) {
            while (*p == ' ' || *p == ',') ++p;
            const char *t = p;
            while (*p && *p != ',') ++p;
            const char *e = p;
            while (e > t && e[-1] == ' ') --e;
            if (e > t && (rc = add_format(c, "output.format", f, t, (size_t)(e - t)))) return rc;
        }
    } else {
        return fail_expected(c, "output.format", f,
                             "an array of writer ids (\"vtk\", \"csv\", ...) or a comma-separated string");
    }
    return EDDY_OK;
}

static int interpret_sections(ctx *c);

/* The sections in order, with the material name index they share. */
static int interpret(ctx *c)
{
    name_index names = {0};
    c->material_names = &names;
    int rc = interpret_sections(c);
    c->material_names = NULL;
    name_index_free(&names);
    return rc;
}

static int interpret_sections(ctx *c)
{
    eddy_scene *s = c->s;
    const cJSON *root = s->root;
    int rc;
    if (!cJSON_IsObject(root)) return fail_expected(c, "", root, "a JSON object at the top level");
    if ((rc = check_keys(c, root, "", TOP_KEYS))) return rc;
    const cJSON *dim = member(root, "dimensions");
    s->dimensions = 3;
    if (dim) {
        if (!cJSON_IsNumber(dim) || !(dim->valuedouble == 2.0 || dim->valuedouble == 3.0))
            return fail_expected(c, "dimensions", dim, "2 or 3");
        s->dimensions = (int)dim->valuedouble;
    }
    const cJSON *desc = member(root, "description");
    if (desc && !cJSON_IsString(desc)) return fail_expected(c, "description", desc, "a string");
    if ((rc = parse_name(c, root)) || (rc = parse_id(c, root, "solver", 1, NULL, s->solver)) ||
        (rc = parse_id(c, root, "grid", 0, "cpu", s->grid)) || (rc = parse_time(c, root)) ||
        (rc = parse_world(c, root)) || (rc = parse_container(c, root)) ||
        (rc = parse_domain(c, root)) || (rc = parse_materials(c, root)) ||
        (rc = parse_fluids(c, root)) || (rc = parse_colliders(c, root)) ||
        (rc = parse_component_sections(c, root, "", "solvers")) ||
        (rc = parse_component_sections(c, root, "", "grids")) || (rc = parse_output(c, root)))
        return rc;
    return EDDY_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Malformed JSON and --set                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* Offset of the opening quote of a string left open at the end of the text, or -1. */
static long open_string_at_end(const char *text)
{
    const char *p = text;
    while (*p) {
        if (*p != '"') { ++p; continue; }
        const char *start = p++;
        while (*p && *p != '"') p += (*p == '\\' && p[1]) ? 2 : 1;
        if (!*p) return (long)(start - text);
        ++p;
    }
    return -1;
}

static int malformed(const eddy_scene *s, const char *text, const char *where, eddy_error *err)
{
    size_t len = strlen(text);
    size_t off = where && where >= text && where <= text + len ? (size_t)(where - text) : len;
    long open = open_string_at_end(text);
    int line, col;
    if (off >= len || (open >= 0 && (long)off > open)) {
        /* Unexpected end: point just after the last non-blank character. */
        size_t e = len;
        while (e > 0 && strchr(" \t\r\n", text[e - 1])) --e;
        offset_linecol(text, e, &line, &col);
        return eddy_error_set(err, EDDY_ERR_PARSE, "%s:%d:%d: malformed JSON: unexpected end of input",
                              scene_file(s), line, col);
    }
    offset_linecol(text, off, &line, &col);
    char ex[32];
    size_t k = 0, i = off;
    while (text[i] && text[i] != '\n' && text[i] != '\r' && k < 20) {
        unsigned char ch = (unsigned char)text[i];
        ex[k++] = ch < 0x20 ? ' ' : (char)ch;
        ++i;
    }
    while (k < sizeof ex - 1 && text[i] && ((unsigned char)text[i] & 0xC0) == 0x80) ex[k++] = text[i++];
    while (k > 0 && ex[k - 1] == ' ') --k;
    ex[k] = '\0';
    return eddy_error_set(err, EDDY_ERR_PARSE, "%s:%d:%d: malformed JSON near '%s'", scene_file(s), line,
                          col, ex);
}

static int apply_set(cJSON *root, const char *set, eddy_error *err)
{
    const char *eq = strchr(set, '=');
    if (!eq) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': expected PATH=VALUE, got no '='", set);
    size_t plen = (size_t)(eq - set);
    if (plen == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': expected PATH=VALUE, got an empty path",
                              set);
    char *path = malloc(plen + 1);
    if (!path) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(path, set, plen);
    path[plen] = '\0';
    int rc = EDDY_OK;
    cJSON *value = NULL;
    if (path_validate(path) < 0) {
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            "--set '%s': expected a key path like a.b[2].c, got '%s'", set, path);
        goto done;
    }
    const char *end = NULL;
    value = cJSON_ParseWithOpts(eq + 1, &end, 1);
    if (!value) value = cJSON_CreateString(eq + 1);
    if (!value) { rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }

    cJSON *node = root;
    const char *p = path;
    path_seg s, next;
    int first = 1;
    char so_far[PATH_BUF] = "";
    path_next(&p, 1, &s);
    for (;;) {
        const char *look = p;
        int more = path_next(&look, 0, &next) == 1;
        char here[PATH_BUF];
        char b[64];
        snprintf(here, sizeof here, "%.*s", (int)(p - path), path); /* the path up to this segment */
        const char *owner = first ? "the top level" : so_far;
        if (s.is_index) {
            if (!cJSON_IsArray(node)) {
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': %s: expected an array, got %s",
                                    set, owner, describe(node, b, sizeof b));
                goto done;
            }
            size_t n = (size_t)cJSON_GetArraySize(node);
            if (s.index >= n) {
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                    "--set '%s': %s: expected an index below %zu (the array has %zu element%s), got %zu",
                                    set, here, n, n, n == 1 ? "" : "s", s.index);
                goto done;
            }
            cJSON *child = cJSON_GetArrayItem(node, (int)s.index);
            if (!more) {
                cJSON_ReplaceItemViaPointer(node, child, value);
                value = NULL;
                break;
            }
            node = child;
        } else {
            if (!cJSON_IsObject(node)) {
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': %s: expected an object, got %s",
                                    set, owner, describe(node, b, sizeof b));
                goto done;
            }
            char *key = malloc(s.len + 1);
            if (!key) { rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }
            memcpy(key, s.key, s.len);
            key[s.len] = '\0';
            cJSON *child = cJSON_GetObjectItemCaseSensitive(node, key);
            if (!more) {
                if (child) cJSON_ReplaceItemInObjectCaseSensitive(node, key, value); /* names it */
                else cJSON_AddItemToObject(node, key, value);
                value = NULL;
                free(key);
                break;
            }
            if (!child) {
                if (next.is_index) {
                    free(key);
                    rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                        "--set '%s': %s: expected an existing array, got nothing", set, here);
                    goto done;
                }
                child = cJSON_CreateObject();
                if (!child) {
                    free(key);
                    rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
                    goto done;
                }
                cJSON_AddItemToObject(node, key, child);
            }
            free(key);
            node = child;
        }
        memcpy(so_far, here, sizeof so_far);
        first = 0;
        s = next;
        p = look;
    }
done:
    cJSON_Delete(value);
    free(path);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Public entry points                                                                               */
/* ------------------------------------------------------------------------------------------------ */

int eddy_scene_has_format(const eddy_scene *scene, const char *id)
{
    for (size_t i = 0; scene && id && i < scene->format_count; ++i)
        if (strcmp(scene->formats[i], id) == 0) return 1;
    return 0;
}

void eddy_scene_free(eddy_scene *scene)
{
    if (!scene) return;
    free(scene->materials);
    free(scene->colliders);
    free(scene->collider_moving_until);
    free(scene->fluids);
    cJSON_Delete(scene->root);
    free(scene->text);
    memset(scene, 0, sizeof *scene);
}

int eddy_scene_parse(const char *text, const char *file, const char *const *sets, size_t set_count,
                     eddy_scene *scene, eddy_error *err)
{
    if (!scene) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_parse: scene is NULL");
    memset(scene, 0, sizeof *scene);
    if (file) snprintf(scene->file, sizeof scene->file, "%s", file);
    if (!text) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: no scene text", scene_file(scene));
    if ((unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF)
        text += 3; /* UTF-8 byte order mark */
    scene->text = strdup(text);
    if (!scene->text) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const char *end = NULL;
    scene->root = cJSON_ParseWithOpts(scene->text, &end, 1);
    int rc;
    if (!scene->root) {
        rc = malformed(scene, scene->text, end ? end : cJSON_GetErrorPtr(), err);
        eddy_scene_free(scene);
        return rc;
    }
    ctx c = {scene, err, NULL};
    if (!cJSON_IsObject(scene->root)) {
        rc = fail_expected(&c, "", scene->root, "a JSON object at the top level");
        eddy_scene_free(scene);
        return rc;
    }
    for (size_t i = 0; i < set_count; ++i) {
        if (!sets || !sets[i]) continue;
        if ((rc = apply_set(scene->root, sets[i], err))) {
            eddy_scene_free(scene);
            return rc;
        }
    }
    if ((rc = interpret(&c))) {
        eddy_scene_free(scene);
        return rc;
    }
    return EDDY_OK;
}

int eddy_scene_load(const char *path, const char *const *sets, size_t set_count, eddy_scene *scene,
                    eddy_error *err)
{
    if (scene) memset(scene, 0, sizeof *scene);
    if (!path) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "no scene file given");
    FILE *f = fopen(path, "rb");
    if (!f) return eddy_error_set(err, EDDY_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return eddy_error_set(err, EDDY_ERR_IO, "cannot read '%s': %s", path, strerror(saved));
    }
    buf[len] = '\0';
    if (strlen(buf) != len) {
        size_t at = strlen(buf);
        int line, col;
        offset_linecol(buf, at, &line, &col);
        free(buf);
        return eddy_error_set(err, EDDY_ERR_PARSE, "%s:%d:%d: malformed JSON: a NUL byte in the text", path,
                              line, col);
    }
    int rc = eddy_scene_parse(buf, path, sets, set_count, scene, err);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Typed parameter values (params.h): component sections and per-material parameters                */
/* ------------------------------------------------------------------------------------------------ */

/* How a value outside its range reads. Component sections keep the wording of eddy_param_check
 * ("solvers.pbf.relaxation: 1.5 is out of range [0, 1]"), materials the scene's own ("materials[0].
 * viscosity: expected a number >= 0, got -1"), as they always did. */
enum { STYLE_COMPONENT = 0, STYLE_MATERIAL = 1 };

/* Entry i of a table of n (stride of its first entry), or NULL. */
static const eddy_param_desc *table_at(const eddy_param_desc *table, size_t n, size_t i)
{
    return table && i < n ? eddy_param_at(table, i) : NULL;
}

/* Index of `id` in a table, or -1. */
static int table_find(const eddy_param_desc *table, size_t n, const char *id)
{
    for (size_t i = 0; id && i < n; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        if (d && d->id && strcmp(d->id, id) == 0) return (int)i;
    }
    return -1;
}

static numspec desc_numspec(const eddy_param_desc *d)
{
    numspec ns = {d->min, d->max, 0, 0, d->type == EDDY_PARAM_INT};
    return ns;
}

/* "\"a\", \"b\"" */
static void choices_text(const eddy_param_desc *d, char *out, size_t size)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t n = 0; d->choices && d->choices[n]; ++n) {
        int w = snprintf(out + k, size - k, "%s\"%s\"", n ? ", " : "", d->choices[n]);
        if (w < 0 || (size_t)w >= size - k) break;
        k += (size_t)w;
    }
}

/* What a value of `d` must be, after "expected ". */
static void desc_expected(const eddy_param_desc *d, char *out, size_t size)
{
    numspec ns = desc_numspec(d);
    switch (d->type) {
    case EDDY_PARAM_REAL:
    case EDDY_PARAM_INT: numspec_text(&ns, out, size); return;
    case EDDY_PARAM_BOOL: snprintf(out, size, "true or false"); return;
    case EDDY_PARAM_ENUM: {
        char list[EDDY_ERROR_MESSAGE_MAX / 2];
        choices_text(d, list, sizeof list);
        snprintf(out, size, "one of %s", list);
        return;
    }
    case EDDY_PARAM_STRING: snprintf(out, size, "a string of at most %.0f characters", d->max); return;
    case EDDY_PARAM_VECTOR: {
        char each[96];
        numspec_text(&ns, each, sizeof each); /* "a number in [lo, hi]" */
        snprintf(out, size, "an array of 1 to 3 numbers%s", each + strlen("a number"));
        return;
    }
    }
    snprintf(out, size, "a value of an unknown parameter type %d", (int)d->type);
}

/* `x` (at path, node v) is outside [min, max]. */
static int range_error(ctx *c, const eddy_param_desc *d, const char *path, const cJSON *v, double x, int style,
                       const char *expected)
{
    /* A range with an end the tables cannot write ("no bound", "> 0") reads as the scene's own. */
    const int plain = d->min > -UNBOUNDED && d->max < UNBOUNDED && !(d->min > 0 && d->min <= TINY);
    if (style == STYLE_MATERIAL || !plain) return fail_expected(c, path, v, expected);
    const char *unit = d->unit ? d->unit : "";
    return fail(c, path, v, AT_VALUE, "%g is out of range [%g, %g]%s%s", x, d->min, d->max, *unit ? " " : "", unit);
}

/*
 * Reads the JSON value v (at `path`) as a value of descriptor d. null asks for the derived value of a
 * DERIVED parameter (unset: is_set 0, NAN), as leaving it out does.
 */
static int read_value(ctx *c, const eddy_param_desc *d, const char *path, const cJSON *v, int style,
                      eddy_param_value *out)
{
    char exp[EDDY_ERROR_MESSAGE_MAX / 2];
    desc_expected(d, exp, sizeof exp);
    eddy_param_value r;
    memset(&r, 0, sizeof r);
    r.is_set = 1;
    r.count = 1;
    if (cJSON_IsNull(v) && (d->flags & EDDY_PARAM_DERIVED)) {
        r.is_set = 0;
        r.number = NAN;
        *out = r;
        return EDDY_OK;
    }
    switch (d->type) {
    case EDDY_PARAM_REAL:
    case EDDY_PARAM_INT: {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return fail_expected(c, path, v, exp);
        const double x = v->valuedouble;
        if (d->type == EDDY_PARAM_INT && x != floor(x)) {
            if (style == STYLE_COMPONENT) return fail(c, path, v, AT_VALUE, "expected an integer, got %g", x);
            return fail_expected(c, path, v, exp);
        }
        if (!(x >= d->min && x <= d->max)) return range_error(c, d, path, v, x, style, exp);
        if (d->type == EDDY_PARAM_INT && !(fabs(x) < 9.2e18)) return fail_expected(c, path, v, exp);
        r.number = x;
        r.integer = fabs(x) < 9.2e18 ? (int64_t)x : 0;
        r.vector[0] = x;
        break;
    }
    case EDDY_PARAM_BOOL:
        if (!cJSON_IsBool(v)) return fail_expected(c, path, v, exp);
        r.integer = cJSON_IsTrue(v) ? 1 : 0;
        r.number = r.vector[0] = (double)r.integer;
        break;
    case EDDY_PARAM_ENUM: {
        int found = -1;
        for (size_t n = 0; d->choices && d->choices[n]; ++n)
            if (cJSON_IsString(v) && v->valuestring && strcmp(v->valuestring, d->choices[n]) == 0) found = (int)n;
        if (found < 0) return fail_expected(c, path, v, exp);
        r.integer = found;
        r.number = r.vector[0] = (double)found;
        r.string = d->choices[found];
        break;
    }
    case EDDY_PARAM_STRING:
        if (!cJSON_IsString(v) || !v->valuestring || (double)strlen(v->valuestring) > d->max)
            return fail_expected(c, path, v, exp);
        r.string = v->valuestring;
        break;
    case EDDY_PARAM_VECTOR: {
        int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
        if (n < 1 || n > 3) return fail_expected(c, path, v, exp);
        numspec ns = desc_numspec(d);
        char each[96];
        numspec_text(&ns, each, sizeof each);
        int i = 0;
        for (const cJSON *e = v->child; e; e = e->next, ++i) {
            char ep[PATH_BUF];
            path_index(ep, path, (size_t)i);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) return fail_expected(c, ep, e, each);
            const double x = e->valuedouble;
            if (!(x >= d->min && x <= d->max)) return range_error(c, d, ep, e, x, style, each);
            r.vector[i] = x;
        }
        r.count = n;
        r.number = r.vector[0];
        break;
    }
    default:
        return fail(c, path, v, AT_VALUE, "parameter has an unknown type %d", (int)d->type);
    }
    *out = r;
    return EDDY_OK;
}

/* The core's own check of a value read above (a second opinion: it must agree), its error prefixed
 * with the value's position. */
static int core_check(ctx *c, const eddy_param_desc *d, const eddy_param_value *v, const char *context,
                      const char *path, const cJSON *node)
{
    if (!v->is_set) return EDDY_OK;
    int rc = eddy_param_check(d, v, context, c->err);
    if (rc) {
        int line = 0, col = 0;
        node_position(c->s, path, node, AT_VALUE, 0, &line, &col);
        if (line > 0) eddy_error_prefix(c->err, "%s:%d:%d: ", scene_file(c->s), line, col);
        else eddy_error_prefix(c->err, "%s: ", scene_file(c->s));
    }
    return rc;
}

/* The scene section of a component's kind ("solvers", "grids", "output.writers"), or NULL; *kind
 * its short name for messages. */
static const char *component_section(const eddy_component *component, const char **kind)
{
    const char *i = component->interface_id ? component->interface_id : "";
    if (strcmp(i, EDDY_INTERFACE_SOLVER) == 0) { if (kind) *kind = "solver"; return "solvers"; }
    if (strcmp(i, EDDY_INTERFACE_GRID) == 0) { if (kind) *kind = "grid"; return "grids"; }
    if (strcmp(i, EDDY_INTERFACE_WRITER) == 0) { if (kind) *kind = "writer"; return "output.writers"; }
    if (kind) *kind = i;
    return NULL;
}

static int listed(const char *const *keys, const char *key)
{
    for (size_t i = 0; keys && keys[i]; ++i)
        if (strcmp(keys[i], key) == 0) return 1;
    return 0;
}

int eddy_scene_param_values(const eddy_scene *scene, const cJSON *obj, const char *path,
                            const eddy_param_desc *table, size_t count, const char *const *host_keys,
                            eddy_param_value *values, eddy_error *err)
{
    if (!scene || (count && (!table || !values)))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_param_values: bad arguments");
    if (!path) path = "";
    for (size_t i = 0; i < count; ++i) values[i] = eddy_param_default(eddy_param_at(table, i));
    ctx c = {(eddy_scene *)scene, err, NULL};
    int rc;
    if (obj && !cJSON_IsObject(obj)) return fail_expected(&c, path, obj, "an object {parameter: value}");
    if (obj) {
        size_t nh = 0;
        while (host_keys && host_keys[nh]) ++nh;
        const char **valid = calloc(nh + count + 1, sizeof *valid);
        if (!valid) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < nh; ++i) valid[i] = host_keys[i];
        for (size_t i = 0; i < count; ++i) valid[nh + i] = eddy_param_at(table, i)->id;
        rc = check_keys(&c, obj, path, valid);
        free(valid);
        if (rc) return rc;
        for (const cJSON *m = obj->child; m; m = m->next) {
            if (listed(host_keys, m->string)) continue;
            int i = table_find(table, count, m->string);
            const eddy_param_desc *d = eddy_param_at(table, (size_t)i);
            char kp[PATH_BUF];
            path_key(kp, path, d->id);
            eddy_param_value v;
            if ((rc = read_value(&c, d, kp, m, STYLE_COMPONENT, &v)) || (rc = core_check(&c, d, &v, path, kp, m)))
                return rc;
            values[i] = v;
        }
    }
    for (size_t i = 0; i < count; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        if ((d->flags & EDDY_PARAM_REQUIRED) && !(obj && member(obj, d->id))) {
            char exp[EDDY_ERROR_MESSAGE_MAX / 2];
            desc_expected(d, exp, sizeof exp);
            return fail_missing(&c, path, obj, d->id, exp);
        }
    }
    return EDDY_OK;
}

int eddy_scene_component_params(const eddy_scene *scene, const eddy_component *component,
                                eddy_param_value *values, eddy_param_values *out, eddy_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!scene || !component || (component->param_count && (!values || !component->params)))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_component_params: bad arguments");
    const char *kind = NULL;
    const char *section = component_section(component, &kind);
    const char *id = component->id ? component->id : "";
    if (!section)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s: component '%s' implements '%s', which has no section in a scene",
                              scene_file(scene), id, kind);
    char path[PATH_BUF];
    snprintf(path, sizeof path, "%s.%s", section, id);
    const cJSON *obj = tree_lookup(scene->root, section);
    obj = cJSON_IsObject(obj) ? member(obj, id) : NULL;
    if (cJSON_IsObject(obj) && component->param_count == 0 && obj->child) {
        ctx c = {(eddy_scene *)scene, err, NULL};
        char kp[PATH_BUF];
        path_key(kp, path, obj->child->string ? obj->child->string : "");
        return fail(&c, kp, obj->child, AT_KEY, "unknown key, expected none: %s '%s' has no parameters", kind, id);
    }
    int rc = eddy_scene_param_values(scene, obj, path, component->params, component->param_count, NULL, values, err);
    if (rc) return rc;
    if (out) {
        out->size = sizeof *out;
        out->desc = component->params;
        out->count = component->param_count;
        out->values = values;
    }
    return EDDY_OK;
}

/* The registered ids of an interface as "a, b, c" (quoted: "\"a\", \"b\" or \"c\""), registry order. */
static size_t registered_ids(const eddy_registry *reg, const char *interface_id, int quoted, char *out, size_t size)
{
    size_t n = 0, total = 0, len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_component *comp = eddy_registry_at(reg, i)->component;
        if (comp->interface_id && strcmp(comp->interface_id, interface_id) == 0) ++total;
    }
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_component *comp = eddy_registry_at(reg, i)->component;
        if (!comp->interface_id || strcmp(comp->interface_id, interface_id) != 0) continue;
        const char *sep = n == 0 ? "" : !quoted ? ", " : n + 1 == total ? " or " : ", ";
        int w = snprintf(out + len, size - len, quoted ? "%s\"%s\"" : "%s%s", sep, comp->id);
        if (w < 0 || (size_t)w >= size - len) break;
        len += (size_t)w;
        ++n;
    }
    return total;
}

int eddy_scene_check_components(const eddy_scene *scene, const eddy_registry *reg, eddy_error *err)
{
    if (!scene) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_check_components: scene is NULL");
    if (!reg) return EDDY_OK;
    static const struct {
        const char *section, *interface_id, *kind;
    } KINDS[] = {{"solvers", EDDY_INTERFACE_SOLVER, "solver"},
                 {"grids", EDDY_INTERFACE_GRID, "grid"},
                 {"output.writers", EDDY_INTERFACE_WRITER, "writer"}};
    ctx c = {(eddy_scene *)scene, err, NULL};
    char list[EDDY_ERROR_MESSAGE_MAX / 2], kp[PATH_BUF];
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; ++k) {
        const cJSON *sec = tree_lookup(scene->root, KINDS[k].section);
        if (!cJSON_IsObject(sec)) continue;
        for (const cJSON *m = sec->child; m; m = m->next) {
            const char *id = m->string ? m->string : "";
            if (eddy_registry_find(reg, id, KINDS[k].interface_id)) continue;
            size_t n = registered_ids(reg, KINDS[k].interface_id, 0, list, sizeof list);
            path_key(kp, KINDS[k].section, id);
            return fail(&c, kp, m, AT_KEY, "unknown %s '%s', expected one of the registered %ss: %s", KINDS[k].kind,
                        id, KINDS[k].kind, n ? list : "none");
        }
    }
    /* output.format: writer ids (only when writers are registered at all: a registry without the
     * host's built-in writers cannot tell). */
    if (registered_ids(reg, EDDY_INTERFACE_WRITER, 1, list, sizeof list) == 0) return EDDY_OK;
    const cJSON *f = tree_lookup(scene->root, "output.format");
    for (size_t i = 0; i < scene->format_count; ++i) {
        if (eddy_registry_find(reg, scene->formats[i], EDDY_INTERFACE_WRITER)) continue;
        const cJSON *node = f;
        snprintf(kp, sizeof kp, "output.format");
        if (cJSON_IsArray(f)) {
            node = cJSON_GetArrayItem(f, (int)i);
            path_index(kp, "output.format", i);
        }
        return fail(&c, kp, node, AT_VALUE, "expected %s, got \"%s\"", list, scene->formats[i]);
    }
    return EDDY_OK;
}

/* A generic material key (read by parse_materials). */
static int generic_material_key(const char *key)
{
    for (size_t i = 0; MATERIAL_KEYS_FIRST[i]; ++i)
        if (strcmp(MATERIAL_KEYS_FIRST[i], key) == 0) return 1;
    for (size_t i = 0; MATERIAL_KEYS_CONTACT[i]; ++i)
        if (strcmp(MATERIAL_KEYS_CONTACT[i], key) == 0) return 1;
    return 0;
}

/* Calls fn(key, user) for every material key a solver declares: the running solver's first, then
 * every registered solver's in registry order (a key may come more than once). Stops when fn returns
 * non-zero and returns that. */
static int each_declared_key(const eddy_registry *reg, const eddy_component *solver,
                             int (*fn)(const char *key, void *user), void *user)
{
    size_t n = reg ? eddy_registry_count(reg) : 0;
    for (size_t k = 0; k <= n; ++k) {
        const eddy_component *comp = solver;
        if (k > 0) {
            comp = eddy_registry_at(reg, k - 1)->component;
            if (!comp->interface_id || strcmp(comp->interface_id, EDDY_INTERFACE_SOLVER) != 0) continue;
        }
        if (!comp) continue;
        for (size_t i = 0; i < comp->material_param_count; ++i) {
            const eddy_param_desc *d = table_at(comp->material_params, comp->material_param_count, i);
            if (!d || !d->id) continue;
            int r = fn(d->id, user);
            if (r) return r;
        }
    }
    return 0;
}

static int key_equals(const char *key, void *user)
{
    return strcmp(key, (const char *)user) == 0;
}

typedef struct key_list {
    char text[EDDY_ERROR_MESSAGE_MAX / 2];
    size_t len;
    const char *seen[256];
    size_t seen_count;
} key_list;

static int key_list_add(const char *key, void *user)
{
    key_list *l = user;
    for (size_t i = 0; i < l->seen_count; ++i)
        if (strcmp(l->seen[i], key) == 0) return 0;
    if (l->seen_count < sizeof l->seen / sizeof l->seen[0]) l->seen[l->seen_count++] = key;
    int w = snprintf(l->text + l->len, sizeof l->text - l->len, "%s%s", l->len ? ", " : "", key);
    if (w > 0 && (size_t)w < sizeof l->text - l->len) l->len += (size_t)w;
    return 0;
}

/* eddy_scene_material_params with the material's object `o` (NULL when the scene was not parsed)
 * already found, so that walking every material stays linear. */
static int material_params_of(const eddy_scene *scene, const eddy_registry *reg, const eddy_component *solver,
                              size_t material, const cJSON *o, eddy_param_value *values, eddy_error *err)
{
    const eddy_param_desc *table = solver ? solver->material_params : NULL;
    const size_t count = table ? solver->material_param_count : 0;
    for (size_t i = 0; values && i < count; ++i) values[i] = eddy_param_default(eddy_param_at(table, i));
    if (!cJSON_IsObject(o)) return EDDY_OK; /* not from a parsed scene: nothing to check */
    ctx c = {(eddy_scene *)scene, err, NULL};
    char p[PATH_BUF];
    path_index(p, "materials", material);
    for (const cJSON *m = o->child; m; m = m->next) {
        const char *key = m->string ? m->string : "";
        if (generic_material_key(key)) continue;
        char kp[PATH_BUF];
        path_key(kp, p, key);
        int i = table_find(table, count, key);
        if (i >= 0) {
            const eddy_param_desc *d = eddy_param_at(table, (size_t)i);
            eddy_param_value v;
            int rc = read_value(&c, d, kp, m, STYLE_MATERIAL, &v);
            if (!rc) rc = core_check(&c, d, &v, p, kp, m);
            if (rc) return rc;
            if (values) values[i] = v;
            continue;
        }
        if (each_declared_key(reg, solver, key_equals, (void *)key)) continue; /* another solver's */
        key_list *l = calloc(1, sizeof *l);
        if (!l) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        for (size_t k = 0; MATERIAL_KEYS_FIRST[k]; ++k) key_list_add(MATERIAL_KEYS_FIRST[k], l);
        each_declared_key(reg, solver, key_list_add, l);
        for (size_t k = 0; MATERIAL_KEYS_CONTACT[k]; ++k) key_list_add(MATERIAL_KEYS_CONTACT[k], l);
        int rc = fail(&c, kp, m, AT_KEY, "unknown key, expected one of: %s", l->text);
        free(l);
        return rc;
    }
    for (size_t i = 0; i < count; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        if ((d->flags & EDDY_PARAM_REQUIRED) && !member(o, d->id)) {
            char exp[EDDY_ERROR_MESSAGE_MAX / 2];
            desc_expected(d, exp, sizeof exp);
            char why[EDDY_ERROR_MESSAGE_MAX / 2 + 64];
            snprintf(why, sizeof why, "%s (solver '%s' needs it)", exp, solver->id ? solver->id : "");
            return fail_missing(&c, p, o, d->id, why);
        }
    }
    return EDDY_OK;
}

int eddy_scene_material_params(const eddy_scene *scene, const eddy_registry *reg,
                               const eddy_component *solver, size_t material, eddy_param_value *values,
                               eddy_error *err)
{
    if (!scene || material >= scene->material_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_material_params: no material %zu", material);
    const cJSON *o = cJSON_GetArrayItem(member(scene->root, "materials"), (int)material);
    return material_params_of(scene, reg, solver, material, o, values, err);
}

int eddy_scene_rescale(eddy_scene *scene, size_t particle_target, eddy_error *err)
{
    if (!scene) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_rescale: scene is NULL");
    if (particle_target == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: particle target must be > 0",
                              scene_file(scene));
    size_t current = eddy_scene_count_particles(scene);
    if (current == 0 || current == SIZE_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: cannot rescale a scene with %s particles",
                              scene_file(scene), current ? "too many" : "no");
    const int d = scene->dimensions;
    const double f = pow((double)current / (double)particle_target, 1.0 / (double)d);
    const double fd = pow(f, (double)d);
    scene->smoothing_radius = (eddy_real)((double)scene->smoothing_radius * f);
    for (size_t i = 0; i < scene->material_count; ++i) {
        eddy_material *m = &scene->materials[i];
        m->particle_mass = (eddy_real)((double)m->particle_mass * fd);
        /* as the world will derive it (the mass and h scale together: the same h / spacing) */
        m->particle_dist = material_dist(m, scene->smoothing_radius, d);
        m->contact.radius = (eddy_real)((double)m->contact.radius * f);
        m->contact.margin = (eddy_real)((double)m->contact.margin * f);
    }
    scene->dt *= f;
    if (!scene->has_domain) effective_domain(scene, scene->domain_min, scene->domain_max);
    size_t now = eddy_scene_count_particles(scene);
    if (now == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s: rescaled to %zu particles, the fluid blocks hold none", scene_file(scene),
                              particle_target);
    return EDDY_OK;
}

int eddy_scene_build_world(const eddy_scene *scene, const eddy_scene_build *with, eddy_world **out,
                           eddy_error *err)
{
    if (!out) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_build_world: out is NULL");
    *out = NULL;
    if (!scene) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_build_world: scene is NULL");
    static const eddy_scene_build nothing = {0};
    if (!with) with = &nothing;
    const char *file = scene_file(scene);
    const eddy_real scale = scene->simulation_scale;
    const int d = scene->dimensions;
    const eddy_component *solver = with->solver;
    const eddy_grid_backend_vtable *backend = NULL;
    if (with->grid) {
        const char *kind = NULL;
        if (!component_section(with->grid, &kind) || strcmp(kind, "grid") != 0)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: component '%s' is not a grid (it implements '%s')",
                                  file, with->grid->id ? with->grid->id : "", with->grid->interface_id ? with->grid->interface_id : "");
        backend = (const eddy_grid_backend_vtable *)with->grid->vtable;
    }
    int rc = eddy_scene_check_components(scene, with->registry, err);
    if (rc) return rc;
    eddy_world *w = NULL;
    eddy_real *pos = NULL, *vel = NULL;
    eddy_param_value *values = NULL;
    if ((rc = eddy_world_create(d, &w, err))) return eddy_error_prefix(err, "%s: ", file);
    eddy_world_set_host(w, with->host);
    w->smoothing_radius = scene->smoothing_radius;
    w->simulation_scale = scale;
    for (int a = 0; a < 3; ++a) w->gravity[a] = a < d ? scene->gravity[a] : 0.0f;

    /* Materials: the generic members from the scene, the running solver's table values from
     * eddy_scene_material_params (the world copies them). */
    const size_t mcount = solver && solver->material_params ? solver->material_param_count : 0;
    values = calloc(mcount + 1, sizeof *values);
    if (!values) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", file);
        goto fail;
    }
    const cJSON *mnode = NULL;
    const cJSON *marr = member(scene->root, "materials");
    if (cJSON_IsArray(marr)) mnode = marr->child;
    for (size_t i = 0; i < scene->material_count; ++i, mnode = mnode ? mnode->next : NULL) {
        if ((rc = material_params_of(scene, with->registry, solver, i, mnode, values, err))) goto fail;
        eddy_material m = scene->materials[i];
        m.size = sizeof m;
        m.contact.radius *= scale;
        m.contact.margin *= scale;
        m.params.size = sizeof m.params;
        m.params.desc = mcount ? solver->material_params : NULL;
        m.params.count = mcount;
        m.params.values = mcount ? values : NULL;
        if ((rc = eddy_world_add_material(w, &m, err))) goto fail_prefix;
    }
    if (scene->has_container) {
        eddy_real mn[3], mx[3];
        for (int a = 0; a < 3; ++a) {
            mn[a] = a < d ? scene->container_min[a] * scale : 0.0f;
            mx[a] = a < d ? scene->container_max[a] * scale : 0.0f;
        }
        if ((rc = eddy_world_set_container(w, mn, mx, scene->periodic, err))) goto fail_prefix;
    }
    for (size_t i = 0; i < scene->collider_count; ++i) {
        eddy_collider c = scene->colliders[i];
        for (int a = 0; a < 3; ++a) {
            c.point[a] *= scale;
            c.min[a] *= scale;
            c.max[a] *= scale;
            c.center[a] *= scale;
            c.velocity[a] *= scale;
        }
        c.radius *= scale;
        if ((rc = eddy_world_add_collider(w, &c, err))) {
            eddy_error_prefix(err, "%s: colliders[%zu]: ", file, i);
            goto fail;
        }
    }

    /* Fluid blocks, in block order, each in lattice order (x fastest). */
    /* Counted with the spacings the world derived, which the fill below uses too. */
    double counted = 0;
    for (size_t i = 0; i < scene->fluid_count; ++i) {
        const eddy_scene_fluid *f = &scene->fluids[i];
        int at_least = 0;
        if (f->material >= 0 && (size_t)f->material < w->material_count)
            counted += fluid_count_at(scene, f, (double)w->materials[f->material].particle_dist, &at_least);
        if (at_least || counted > (double)UINT32_MAX) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "%s: fluids[%zu]: expected at most %u particles in all, got %s%.0f after this block",
                                file, i, UINT32_MAX, at_least ? "at least " : "", counted);
            goto fail;
        }
    }
    const size_t total = (size_t)counted;
    if ((rc = eddy_particles_reserve(&w->particles, total, err))) goto fail_prefix;
    pos = malloc(sizeof *pos * 3 * FILL_CHUNK);
    vel = malloc(sizeof *vel * 3 * FILL_CHUNK);
    if (!pos || !vel) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", file);
        goto fail;
    }
    for (size_t i = 0; i < scene->fluid_count; ++i) {
        const eddy_scene_fluid *f = &scene->fluids[i];
        if (f->material < 0 || (size_t)f->material >= w->material_count) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: fluids[%zu]: material index %d is invalid",
                                file, i, f->material);
            goto fail;
        }
        lattice L;
        if (lattice_setup(scene, f, (double)w->materials[f->material].particle_dist, &L)) {
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: fluids[%zu]: too many particles", file, i);
            goto fail;
        }
        uint64_t cursor = 0;
        size_t ready = 0; /* velocities set for this block (per particle emitted: many small blocks stay cheap) */
        for (;;) {
            size_t n = lattice_emit(&L, &cursor, pos, FILL_CHUNK);
            if (n == 0) break;
            for (; ready < n; ++ready) {
                vel[3 * ready + 0] = f->velocity[0];
                vel[3 * ready + 1] = f->velocity[1];
                vel[3 * ready + 2] = d == 3 ? f->velocity[2] : 0.0f;
            }
            if ((rc = eddy_world_add_particles(w, n, pos, vel, (uint32_t)f->material, err))) {
                eddy_error_prefix(err, "%s: fluids[%zu]: ", file, i);
                goto fail;
            }
        }
    }

    eddy_real lo[3], hi[3];
    if (!effective_domain(scene, lo, hi)) {
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s: the scene has neither a container nor a domain",
                            file);
        goto fail;
    }
    for (int a = 0; a < 3; ++a) {
        lo[a] *= scale;
        hi[a] *= scale;
    }
    if ((rc = eddy_world_init_grid_with(w, lo, hi, scene->periodic, backend, with->grid_params,
                                        scene->out_of_domain, err))) {
        if (with->grid) eddy_error_prefix(err, "%s: grid '%s': ", file, with->grid->id ? with->grid->id : "");
        else eddy_error_prefix(err, "%s: ", file);
        goto fail;
    }
    free(values);
    free(pos);
    free(vel);
    *out = w;
    return EDDY_OK;

fail_prefix:
    eddy_error_prefix(err, "%s: ", file);
fail:
    free(values);
    free(pos);
    free(vel);
    eddy_world_destroy(w);
    return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Sections other host modules read (scene.h)                                                        */
/* ------------------------------------------------------------------------------------------------ */

const cJSON *eddy_scene_section(const eddy_scene *scene, const char *key)
{
    return scene && scene->root ? member(scene->root, key) : NULL;
}

int eddy_scene_fail_at(const eddy_scene *scene, eddy_error *err, const char *path, const cJSON *node,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(scene, err, path, node, AT_VALUE, 0, fmt, ap);
    va_end(ap);
    return rc;
}

int eddy_scene_fail_expected(const eddy_scene *scene, eddy_error *err, const char *path,
                             const cJSON *node, const char *expected)
{
    ctx c = {(eddy_scene *)scene, err, NULL};
    return fail_expected(&c, path, node, expected);
}

int eddy_scene_check_keys(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *const *valid)
{
    ctx c = {(eddy_scene *)scene, err, NULL};
    return check_keys(&c, obj, path, valid);
}

int eddy_scene_get_number(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, double lo, double hi, double def, double *out,
                          int *present)
{
    ctx c = {(eddy_scene *)scene, err, NULL};
    numspec ns = {lo, hi, 0, 0, 0};
    return get_number(&c, obj, path, key, required, &ns, def, out, present);
}

int eddy_scene_get_string(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, const char *def, char *out, size_t size)
{
    ctx c = {(eddy_scene *)scene, err, NULL};
    return get_string(&c, obj, path, key, required, def, out, size, 1);
}

int eddy_scene_get_vector(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, const eddy_real def[3], eddy_real out[3])
{
    ctx c = {(eddy_scene *)scene, err, NULL};
    return get_vector(&c, obj, path, key, required, def, out);
}
