/*
 * host/scene/scene_path.c — the dotted-path engine: key paths ("materials[0].viscosity"), their grammar,
 * building them for messages, and lookups in the parsed tree. --set (scene_set.c) and the locator
 * (scene_document.c) walk the same segments.
 *
 * Depends on: cJSON only.
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the next segment of a path. Returns 1 with a segment, 0 at the end, -1 when malformed.
 * Grammar: KEY ( '.' KEY | '[' DIGITS ']' )*, or starting with '[' DIGITS ']'. Keys are non-empty
 * and contain none of . [ ] */
int scene_path_next(const char **pp, int first, path_seg *seg)
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
int scene_path_validate(const char *path)
{
    path_seg s;
    int n = 0, r;
    const char *p = path;
    while ((r = scene_path_next(&p, n == 0, &s)) == 1) ++n;
    return r < 0 ? -1 : n;
}

/* Appends src to out[PATH_BUF] at *k, truncating. */
static void path_append(char *out, size_t *k, const char *src)
{
    while (*src && *k + 1 < PATH_BUF) out[(*k)++] = *src++;
    out[*k] = '\0';
}

/* out = parent.key (or key at the top level). `out` must not alias the arguments. */
void scene_path_key(char *out, const char *parent, const char *key)
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
void scene_path_index(char *out, const char *parent, size_t i)
{
    char num[32];
    snprintf(num, sizeof num, "[%zu]", i);
    size_t k = 0;
    out[0] = '\0';
    path_append(out, &k, parent);
    path_append(out, &k, num);
}

/* The cJSON node at a path (first occurrence of duplicated keys), or NULL. */
cJSON *scene_tree_lookup(cJSON *root, const char *path)
{
    if (!root || !path) return NULL;
    if (!*path) return root;
    cJSON *node = root;
    path_seg s;
    int r, first = 1;
    const char *p = path;
    while ((r = scene_path_next(&p, first, &s)) == 1) {
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

int scene_tree_holds(const cJSON *root, const cJSON *node)
{
    if (!root || !node) return 0;
    /* Depth first with the way down on the heap: a tree --set nested deep would overflow a recursion. */
    size_t n = 0, cap = 0;
    const cJSON **chain = NULL;
    const cJSON *at = root;
    int found = 0;
    while (at) {
        if (at == node) {
            found = 1;
            break;
        }
        if (at->child) {
            if (n == cap) {
                const size_t ncap = cap ? 2 * cap : 64;
                const cJSON **nc = realloc(chain, ncap * sizeof *nc);
                if (!nc) break;
                chain = nc;
                cap = ncap;
            }
            chain[n++] = at;
            at = at->child;
            continue;
        }
        while (!at->next && n > 0) at = chain[--n];
        at = at == root ? NULL : at->next;
    }
    free(chain);
    return found;
}
