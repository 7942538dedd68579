/*
 * host/scene/scene_set.c — the --set overrides: "dotted.path=value" written into the parsed tree before
 * it is interpreted (the only place the tree changes after parsing). Its errors name the override, not
 * a file position: the value is not in the file.
 *
 * Depends on: scene_path.c (segments), scene_errors.c (scene_describe).
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The key path of "PATH=VALUE" into *path as a new string (free() it), or the error. */
static int set_path(const char *set, char **path, eddy_error *err)
{
    *path = NULL;
    const size_t bad = scene_utf8_invalid_at(set);
    if (bad != SIZE_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%.*s': expected UTF-8 text, got the byte 0x%02X next",
                              (int)(bad < 200 ? bad : 200), set, (unsigned)(unsigned char)set[bad]);
    const char *eq = strchr(set, '=');
    if (!eq) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': expected PATH=VALUE, got no '='", set);
    /* (only a value read as JSON decodes its escapes: one that is not is taken as the text it is) */
    cJSON *json = scene_nul_escape_at(eq + 1) != SIZE_MAX ? cJSON_ParseWithOpts(eq + 1, NULL, 1) : NULL;
    cJSON_Delete(json);
    if (json)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "--set '%s': a string holds the escape \\u0000 (a NUL character), which no key, name "
                              "or path can contain", set);
    size_t plen = (size_t)(eq - set);
    if (plen == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': expected PATH=VALUE, got an empty path",
                              set);
    char *p = malloc(plen + 1);
    if (!p) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(p, set, plen);
    p[plen] = '\0';
    if (scene_path_validate(p) < 0) {
        const int rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "--set '%s': expected a key path like a.b[2].c, got '%s'", set, p);
        free(p);
        return rc;
    }
    *path = p;
    return EDDY_OK;
}

int eddy_scene_check_set(const char *set, eddy_error *err)
{
    char *path;
    const int rc = set_path(set, &path, err);
    free(path);
    return rc;
}

/* The VALUE of "PATH=VALUE" (text, after the '='): parsed as JSON, else taken as a string. NULL when out
 * of memory. */
static cJSON *set_value(const char *text)
{
    cJSON *value = cJSON_ParseWithOpts(text, NULL, 1);
    return value ? value : cJSON_CreateString(text);
}

/* Whether a and b are the same JSON value, numbers compared exactly (cJSON_Compare allows a relative
 * difference of DBL_EPSILON, and a bound such as cfl <= 1 is not that forgiving). */
static int same_json(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) return a->valuedouble == b->valuedouble;
    const int objects = cJSON_IsObject(a) && cJSON_IsObject(b);
    if (objects || (cJSON_IsArray(a) && cJSON_IsArray(b))) {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if ((objects && (!x->string || !y->string || strcmp(x->string, y->string) != 0)) || !same_json(x, y))
                return 0;
        return !x && !y;
    }
    return cJSON_Compare(a, b, 1) != 0;
}

int scene_set_effect(const cJSON *root, const char *set, const cJSON **node)
{
    *node = NULL;
    char *path;
    eddy_error ignored;
    if (set_path(set, &path, &ignored)) return SET_FAILS;
    const cJSON *at = root;
    const char *p = path;
    path_seg s;
    int effect = SET_FAILS, in_way = 0;
    for (int first = 1; !in_way && scene_path_next(&p, first, &s) == 1; first = 0) {
        if (s.is_index) {
            if (cJSON_IsArray(at) && s.index < (size_t)cJSON_GetArraySize(at)) {
                at = cJSON_GetArrayItem(at, (int)s.index);
                continue;
            }
            /* (an index past an array's end has nothing of the tree in its way: --set says it) */
            if (cJSON_IsArray(at)) goto done;
            in_way = 1;
            continue;
        }
        if (!cJSON_IsObject(at)) {
            in_way = 1;
            continue;
        }
        const cJSON *child = at->child;
        while (child && !(child->string && strlen(child->string) == s.len && memcmp(child->string, s.key, s.len) == 0))
            child = child->next;
        if (!child) {
            effect = SET_ADDS;
            goto done;
        }
        at = child;
    }
    /* `at` is the value the override replaces, or the one in its way; the value the tree has already
     * is written again without a change. */
    cJSON *value = in_way ? NULL : set_value(set + strlen(path) + 1);
    if (value && same_json(at, value)) {
        effect = SET_SAME;
    } else if (value || in_way) {
        effect = SET_REPLACES;
        *node = at;
    }
    cJSON_Delete(value);
done:
    free(path);
    return effect;
}

const char *scene_set_origin(const eddy_scene *s, const cJSON *node)
{
    /* The latest first: an override may set a key inside the value an earlier one put in. */
    for (size_t i = s->set_origin_count; node && i-- > 0;)
        if (scene_tree_holds(s->set_origins[i].node, node)) return s->set_origins[i].set;
    return NULL;
}

void scene_free_set_origins(eddy_scene *s)
{
    for (size_t i = 0; i < s->set_origin_count; ++i) free(s->set_origins[i].set);
    free(s->set_origins);
    s->set_origins = NULL;
    s->set_origin_count = 0;
}

/* `old` is about to be replaced (and freed): the records of the values in it go, before a pointer to
 * freed memory could match a node allocated later. */
static void forget_origins_in(eddy_scene *s, const cJSON *old)
{
    size_t k = 0;
    for (size_t i = 0; i < s->set_origin_count; ++i) {
        if (scene_tree_holds(old, s->set_origins[i].node)) free(s->set_origins[i].set);
        else s->set_origins[k++] = s->set_origins[i];
    }
    s->set_origin_count = k;
}

/* How many bytes of an override a message quotes: a long value (a whole collider list) pushed the
 * key and what is wrong with it out of the message. */
#define SET_SHOWN_MAX 200

/* The override as a message quotes it: cut to SET_SHOWN_MAX bytes of whole UTF-8 characters ("..."
 * after them), control characters as spaces (a terminal obeys an escape sequence). */
static char *shown_set(const char *set)
{
    size_t len = strlen(set), cut = len > SET_SHOWN_MAX ? SET_SHOWN_MAX : len;
    while (cut > 0 && cut < len && ((unsigned char)set[cut] & 0xC0) == 0x80) --cut;
    char *out = malloc(cut + 4);
    if (!out) return NULL;
    size_t k = scene_terminal_safe(out, set, cut);
    if (cut < len) { memcpy(out + k, "...", 3); k += 3; }
    out[k] = '\0';
    return out;
}

static int remember_origin(eddy_scene *s, const cJSON *node, const char *set, eddy_error *err)
{
    eddy_scene_set_origin *grown = realloc(s->set_origins, (s->set_origin_count + 1) * sizeof *grown);
    if (!grown) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->set_origins = grown;
    char *copy = shown_set(set);
    if (!copy) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    grown[s->set_origin_count].node = node;
    grown[s->set_origin_count].set = copy;
    ++s->set_origin_count;
    return EDDY_OK;
}

/* "PATH=VALUE": the value parsed as JSON, else taken as a string; a path into a missing object creates
 * it, an array index must exist. */
int scene_apply_set(eddy_scene *s, const char *set, eddy_error *err)
{
    char *path;
    int rc = set_path(set, &path, err);
    if (rc) return rc;
    const char *eq = set + strlen(path);
    cJSON *value = set_value(eq + 1);
    const cJSON *placed = NULL; /* the topmost value this override puts in */
    if (!value) { rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }

    cJSON *node = s->root;
    const char *p = path;
    path_seg seg, next;
    int first = 1;
    char so_far[PATH_BUF] = "";
    scene_path_next(&p, 1, &seg);
    for (;;) {
        const char *look = p;
        int more = scene_path_next(&look, 0, &next) == 1;
        char here[PATH_BUF];
        char b[64];
        snprintf(here, sizeof here, "%.*s", (int)(p - path), path); /* the path up to this segment */
        const char *owner = first ? "the top level" : so_far;
        if (seg.is_index) {
            if (!cJSON_IsArray(node)) {
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': %s: expected an array, got %s",
                                    set, owner, scene_describe(node, b, sizeof b));
                goto done;
            }
            size_t n = (size_t)cJSON_GetArraySize(node);
            if (seg.index >= n) {
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                    "--set '%s': %s: expected an index below %zu (the array has %zu element%s), got %zu",
                                    set, here, n, n, n == 1 ? "" : "s", seg.index);
                goto done;
            }
            cJSON *child = cJSON_GetArrayItem(node, (int)seg.index);
            if (!more) {
                forget_origins_in(s, child);
                cJSON_ReplaceItemViaPointer(node, child, value);
                placed = value;
                value = NULL;
                break;
            }
            node = child;
        } else {
            if (!cJSON_IsObject(node)) {
                rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "--set '%s': %s: expected an object, got %s",
                                    set, owner, scene_describe(node, b, sizeof b));
                goto done;
            }
            char *key = malloc(seg.len + 1);
            if (!key) { rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }
            memcpy(key, seg.key, seg.len);
            key[seg.len] = '\0';
            cJSON *child = cJSON_GetObjectItemCaseSensitive(node, key);
            if (!more) {
                if (child) {
                    forget_origins_in(s, child);
                    cJSON_ReplaceItemInObjectCaseSensitive(node, key, value); /* names it */
                } else {
                    cJSON_AddItemToObject(node, key, value);
                }
                if (!placed) placed = value;
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
                if (!placed) placed = child;
            }
            free(key);
            node = child;
        }
        memcpy(so_far, here, sizeof so_far);
        first = 0;
        seg = next;
        p = look;
    }
    rc = remember_origin(s, placed, set, err);
done:
    cJSON_Delete(value);
    free(path);
    return rc;
}
