/*
 * host/scene/scene_errors.c — every scene error reads "FILE[:LINE:COL]: PATH: message": the helpers
 * that format them, describe the value that was found ("got ..."), and refuse unknown and duplicated
 * keys of an object (with a string index so that n keys cost O(n)).
 *
 * Depends on: scene_document.c (positions), scene_path.c (path building).
 */
#include "scene_internal.h"

#include "fnv1a.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POSITION_MAX 48

/* ":LINE:COL" of `node` at `path` (scene_node_position), or "" when it has no place in the text. On the
 * file as written, also whether the error points into a value an override replaces (the verdict,
 * scene_internal.h): every error with a place passes here. */
static void position_text(const eddy_scene *s, const char *path, const cJSON *node, int where, int occurrence,
                          char pos[POSITION_MAX])
{
    eddy_scene_replaced *r = s->replaced;
    if (r) {
        r->verdict = 0;
        for (size_t i = 0; i < r->count && !r->verdict; ++i) r->verdict = scene_tree_holds(r->nodes[i], node);
    }
    int line = 0, col = 0;
    scene_node_position(s, path, node, where, occurrence, &line, &col);
    pos[0] = '\0';
    if (line > 0) snprintf(pos, POSITION_MAX, ":%d:%d", line, col);
}

/*
 * Every scene error: "FILE[:LINE:COL]: [SHOWN: ]message". The position is that of `node` at `path`
 * (scene_node_position); `shown` is the path the message names (NULL: none), which is not always the
 * one pointed at (a missing key names its own path at its parent's position).
 */
static int vreport(const eddy_scene *s, eddy_error *err, const char *path, const cJSON *node, int where,
                   int occurrence, const char *shown, const char *fmt, va_list ap)
{
    char msg[EDDY_ERROR_MESSAGE_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    char pos[POSITION_MAX];
    position_text(s, path, node, where, occurrence, pos);
    /* A value an override put in was never in the file: naming the file sent the reader to look for
     * it there. */
    const char *set = scene_set_origin(s, node);
    if (set)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': %s%s%s", set, shown ? shown : "",
                              shown ? ": " : "", msg);
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s%s: %s%s%s", scene_file(s), pos, shown ? shown : "",
                          shown ? ": " : "", msg);
}

static int report(const eddy_scene *s, eddy_error *err, const char *path, const cJSON *node, int where,
                  int occurrence, const char *shown, const char *fmt, ...) EDDY_PRINTF(8, 9);
static int report(const eddy_scene *s, eddy_error *err, const char *path, const cJSON *node, int where,
                  int occurrence, const char *shown, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vreport(s, err, path, node, where, occurrence, shown, fmt, ap);
    va_end(ap);
    return rc;
}

/* "FILE[:LINE:COL]: [PATH: ]message" at `node` (at `path`); an empty path is not named. */
int scene_vfail(const eddy_scene *s, eddy_error *err, const char *path, const cJSON *node, int where,
                const char *fmt, va_list ap)
{
    return vreport(s, err, path, node, where, 0, path && *path ? path : NULL, fmt, ap);
}

/* "FILE[:LINE:COL]: " before an error another module set (the core's parameter check), at the value
 * `node` at `path`. */
void scene_prefix_position(const eddy_scene *s, eddy_error *err, const char *path, const cJSON *node)
{
    char pos[POSITION_MAX];
    position_text(s, path, node, AT_VALUE, 0, pos);
    const char *set = scene_set_origin(s, node);
    if (set) eddy_error_prefix(err, "--set '%s': ", set);
    else eddy_error_prefix(err, "%s%s: ", scene_file(s), pos);
}

int scene_fail(ctx *c, const char *path, const cJSON *node, int where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = scene_vfail(c->s, c->err, path, node, where, fmt, ap);
    va_end(ap);
    return rc;
}

/* The value the latest override put in that holds `obj` or lies inside it, or NULL. */
static const cJSON *override_within(const eddy_scene *s, const cJSON *obj)
{
    for (size_t i = s->set_origin_count; obj && i-- > 0;)
        if (scene_tree_holds(s->set_origins[i].node, obj) || scene_tree_holds(obj, s->set_origins[i].node))
            return s->set_origins[i].node;
    return NULL;
}

/* An error of a pair of values is the override's when one changed either: it had no place in the file to
 * point at (a collider moved by --set was named after the file, without a line). */
int scene_fail_object(ctx *c, const char *path, const cJSON *obj, const cJSON *also, const char *fmt, ...)
{
    const cJSON *set = override_within(c->s, obj);
    if (!set) set = override_within(c->s, also);
    va_list ap;
    va_start(ap, fmt);
    int rc = scene_vfail(c->s, c->err, path, set ? set : obj, AT_CONTAINER, fmt, ap);
    va_end(ap);
    return rc;
}

void scene_fmt_number(char *out, size_t size, double v)
{
    snprintf(out, size, "%.15g", v);
}


/* (scene_internal.h) A terminal may take U+009B for an escape sequence's start, as it takes ESC. */
size_t scene_terminal_safe(char *out, const char *in, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = (unsigned char)in[i];
        if (c == 0xC2 && i + 1 < n && (unsigned char)in[i + 1] >= 0x80 && (unsigned char)in[i + 1] <= 0x9F) {
            out[k++] = ' ';
            ++i;
        } else {
            out[k++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
        }
    }
    return k;
}

/* Describes a JSON value for "got ..." */
const char *scene_describe(const cJSON *v, char *buf, size_t size)
{
    if (!v) return "nothing";
    if (cJSON_IsNumber(v)) { scene_fmt_number(buf, size, v->valuedouble); return buf; }
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
        k += scene_terminal_safe(buf + k, str, cut);
        if (cut < len && k + 5 <= size) { memcpy(buf + k, "...", 3); k += 3; }
        buf[k++] = '"';
        buf[k] = '\0';
        return buf;
    }
    return "an unknown value";
}

/* A key as messages show it: at most KEY_SHOWN characters ("..." after them), control characters
 * as spaces (a key is the scene's text, and a terminal would obey an escape sequence). */
#define KEY_SHOWN 40

static void shown_key(char *out, size_t size, const char *key)
{
    /* An empty key showed as nothing at all ("materials[0].: unknown key"). */
    if (!*key) {
        snprintf(out, size, "\"\"");
        return;
    }
    size_t len = strlen(key), cut = len > KEY_SHOWN + 3 ? KEY_SHOWN : len, k;
    if (cut > size - 4) cut = size - 4; /* (room for "..." and the NUL) */
    while (cut > 0 && cut < len && ((unsigned char)key[cut] & 0xC0) == 0x80) --cut; /* whole UTF-8 */
    k = scene_terminal_safe(out, key, cut);
    if (cut < len && k + 4 <= size) { memcpy(out + k, "...", 3); k += 3; }
    out[k] = '\0';
}

int scene_fail_key(ctx *c, const char *parent, const cJSON *member, int occurrence, const char *fmt, ...)
{
    const char *key = member && member->string ? member->string : "";
    /* Located by the whole key (a path of any length), shown with the key cut: a key of 100 000
     * characters filled the message, and what was wrong with it never showed. */
    size_t need = strlen(parent) + strlen(key) + 2;
    char *where = malloc(need);
    if (!where) return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    snprintf(where, need, "%s%s%s", parent, *parent ? "." : "", key);
    char cut[KEY_SHOWN + 8], shown[PATH_BUF];
    shown_key(cut, sizeof cut, key);
    scene_path_key(shown, parent, cut);
    va_list ap;
    va_start(ap, fmt);
    int rc = vreport(c->s, c->err, where, member, AT_KEY, occurrence, shown, fmt, ap);
    va_end(ap);
    free(where);
    return rc;
}

const char *scene_key_text(const char *key, char *buf, size_t size)
{
    shown_key(buf, size, key ? key : "");
    return buf;
}

const char *scene_token_text(const char *text, size_t len, char *buf, size_t size)
{
    /* Enough of the token for shown_key to cut it after KEY_SHOWN bytes and mark the cut. */
    char head[4 * KEY_SHOWN + 8];
    if (len > sizeof head - 1) len = sizeof head - 1;
    memcpy(head, text, len);
    head[len] = '\0';
    if (len == 0) buf[0] = '\0';
    else shown_key(buf, size, head);
    return buf;
}

/* (scene.h) The scene reader's rules for its text, for readers of other files. */
const char *eddy_scene_key_text(const char *key, char *buf, size_t size)
{
    return scene_key_text(key, buf, size);
}

const char *eddy_scene_token_text(const char *text, size_t len, char *buf, size_t size)
{
    return scene_token_text(text, len, buf, size);
}

size_t eddy_scene_terminal_safe(char *out, const char *in, size_t n)
{
    return scene_terminal_safe(out, in, n);
}

/* "PATH: expected EXP, got DESC" at the value. */
int scene_fail_expected(ctx *c, const char *path, const cJSON *v, const char *expected)
{
    char b[128];
    return scene_fail(c, path, v, AT_VALUE, "expected %s, got %s", expected, scene_describe(v, b, sizeof b));
}

/* "PARENT.KEY: missing required key, expected EXP" at the parent object. */
int scene_fail_missing(ctx *c, const char *parent_path, const cJSON *parent, const char *key,
                       const char *expected)
{
    char path[PATH_BUF];
    scene_path_key(path, parent_path, key);
    return report(c->s, c->err, parent_path, parent, AT_CONTAINER, 0, path, "missing required key, expected %s",
                  expected);
}

/* Appends sep + item to out[size] at *len; -1 when it did not fit (out then ends with what did). */
int scene_list_add(char *out, size_t size, size_t *len, const char *sep, int quoted, const char *item)
{
    int w = snprintf(out + *len, size - *len, quoted ? "%s\"%s\"" : "%s%s", sep, item);
    if (w < 0 || (size_t)w >= size - *len) return -1;
    *len += (size_t)w;
    return 0;
}

int scene_listed(const char *const *keys, const char *key)
{
    for (size_t i = 0; keys && keys[i]; ++i)
        if (strcmp(keys[i], key) == 0) return 1;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* A string index (open addressing), so that finding duplicates among n keys or names costs O(n)      */
/* ------------------------------------------------------------------------------------------------ */

static uint64_t name_hash(const char *s)
{
    return eddy_fnv1a(EDDY_FNV1A_OFFSET, s, strlen(s));
}

/* Room for n names. Returns 0, or -1 when out of memory. */
int scene_name_index_init(name_index *ix, size_t n)
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

void scene_name_index_free(name_index *ix)
{
    free(ix->keys);
    free(ix->values);
    memset(ix, 0, sizeof *ix);
}

/* The value stored under `key`, or SIZE_MAX. */
size_t scene_name_index_find(const name_index *ix, const char *key)
{
    if (!ix->keys) return SIZE_MAX;
    for (size_t i = (size_t)name_hash(key) & ix->mask;; i = (i + 1) & ix->mask) {
        if (!ix->keys[i]) return SIZE_MAX;
        if (strcmp(ix->keys[i], key) == 0) return ix->values[i];
    }
}

/* Stores key -> value unless key is there already; returns the value stored under key (the earlier
 * one for a duplicate). At most the n of name_index_init names. */
size_t scene_name_index_add(name_index *ix, const char *key, size_t value)
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
int scene_check_keys(ctx *c, const cJSON *obj, const char *path, const char *const *valid)
{
    size_t members = 0;
    for (const cJSON *m = obj->child; m; m = m->next) ++members;
    name_index seen = {0};
    if (members > DUPLICATE_SCAN_MAX && scene_name_index_init(&seen, members))
        return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    int rc = EDDY_OK;
    size_t at = 0;
    for (const cJSON *m = obj->child; m; m = m->next, ++at) {
        const char *name = m->string ? m->string : "";
        if (valid && !scene_listed(valid, name)) {
            char list[EDDY_ERROR_MESSAGE_MAX / 2];
            size_t k = 0;
            list[0] = '\0';
            for (size_t i = 0; valid[i]; ++i)
                if (scene_list_add(list, sizeof list, &k, i ? ", " : "", 0, valid[i])) break;
            rc = scene_fail_key(c, path, m, 0, "unknown key, expected one of: %s", list);
            break;
        }
        /* The first duplicate found is the key's second occurrence. */
        int duplicate = 0;
        if (seen.keys) {
            duplicate = scene_name_index_add(&seen, name, at) != at;
        } else {
            for (const cJSON *o = obj->child; o != m && !duplicate; o = o->next)
                duplicate = o->string && strcmp(o->string, name) == 0;
        }
        if (duplicate) {
            /* At the second occurrence, which the tree (first occurrence only) does not hold. */
            rc = scene_fail_key(c, path, m, 1, "duplicate key, expected each key once");
            break;
        }
    }
    scene_name_index_free(&seen);
    return rc;
}
