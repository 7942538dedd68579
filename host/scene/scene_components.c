/*
 * host/scene/scene_components.c — the component sections of a scene (solvers.<id>, grids.<id>,
 * output.writers.<id>): their values for a component's table, and whether the ids and the output
 * formats the scene names are registered.
 *
 * Depends on: scene_params.c, scene_errors.c, the core's registry.
 */
#include "scene_internal.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The component kinds a scene has sections for. */
static const struct component_kind {
    const char *section, *interface_id, *kind;
} KINDS[] = {{"solvers", EDDY_INTERFACE_SOLVER, "solver"},
             {"grids", EDDY_INTERFACE_GRID, "grid"},
             {"output.writers", EDDY_INTERFACE_WRITER, "writer"}};

/* The scene section of a component's kind ("solvers", "grids", "output.writers"), or NULL; *kind
 * its short name for messages (the interface id when it has no section). */
const char *scene_component_section(const eddy_component *component, const char **kind)
{
    const char *i = component->interface_id ? component->interface_id : "";
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; ++k) {
        if (strcmp(i, KINDS[k].interface_id) != 0) continue;
        if (kind) *kind = KINDS[k].kind;
        return KINDS[k].section;
    }
    if (kind) *kind = i;
    return NULL;
}

/* The values of the component's section in `scene` (eddy_scene_component_params). */
static int section_values(const eddy_scene *scene, const eddy_component *component, eddy_param_value *values,
                          eddy_param_values *out, eddy_error *err)
{
    const char *kind = NULL;
    const char *section = scene_component_section(component, &kind);
    const char *id = component->id ? component->id : "";
    if (!section)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s: component '%s' implements '%s', which has no section in a scene",
                              scene_file(scene), id, kind);
    char path[PATH_BUF];
    snprintf(path, sizeof path, "%s.%s", section, id);
    const cJSON *obj = scene_tree_lookup(scene->root, section);
    obj = cJSON_IsObject(obj) ? scene_member(obj, id) : NULL;
    if (cJSON_IsObject(obj) && component->param_count == 0 && obj->child) {
        ctx c = scene_ctx(scene, err);
        return scene_fail_key(&c, path, obj->child, 0, "unknown key, expected none: %s '%s' has no parameters", kind,
                              id);
    }
    int rc =
        eddy_scene_param_values(scene, obj, path, component->params, component->param_count, NULL, values, err);
    if (rc) return rc;
    if (out) {
        out->size = sizeof *out;
        out->desc = component->params;
        out->count = component->param_count;
        out->values = values;
    }
    return EDDY_OK;
}

/* section_values on the file as written (eddy_scene_check_written), whose values are not kept. */
static int written_section(void *component, const eddy_scene *view, eddy_error *err)
{
    const eddy_component *c = component;
    eddy_param_value *scratch = calloc(c->param_count + 1, sizeof *scratch);
    if (!scratch) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const int rc = section_values(view, c, scratch, NULL, err);
    free(scratch);
    return rc;
}

int eddy_scene_component_params(const eddy_scene *scene, const eddy_component *component,
                                eddy_param_value *values, eddy_param_values *out, eddy_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!scene || !component || (component->param_count && (!values || !component->params)))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_component_params: bad arguments");
    const int rc = eddy_scene_check_written(scene, written_section, (void *)component, err);
    return rc ? rc : section_values(scene, component, values, out, err);
}

/* Optimal string alignment distance (Damerau-Levenshtein without edits of an edited substring): a swap
 * of two neighbours ("sph_muelelr") costs 1, as a typist makes it. SIZE_MAX past ID_NEAR_MAX characters,
 * never near: no registered id is that long in practice, and three rows on the stack stay small. The
 * transposition looks two rows back, hence three rows rather than two. */
#define ID_NEAR_MAX 63
static size_t id_distance(const char *a, const char *b)
{
    const size_t n = strlen(a), m = strlen(b);
    if (n > ID_NEAR_MAX || m > ID_NEAR_MAX) return SIZE_MAX;
    size_t rows[3][ID_NEAR_MAX + 1];
    size_t *back2 = rows[0], *back = rows[1], *row = rows[2];
    for (size_t j = 0; j <= m; ++j) back[j] = j;
    for (size_t i = 1; i <= n; ++i) {
        row[0] = i;
        for (size_t j = 1; j <= m; ++j) {
            size_t best = back[j - 1] + (a[i - 1] != b[j - 1]);
            if (back[j] + 1 < best) best = back[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && back2[j - 2] + 1 < best)
                best = back2[j - 2] + 1;
            row[j] = best;
        }
        size_t *t = back2;
        back2 = back, back = row, row = t;
    }
    return back[m];
}

const char *eddy_scene_registry_ids(const eddy_registry *reg, const char *interface_id, char *buf, size_t size)
{
    if (!size) return buf;
    buf[0] = '\0';
    size_t len = 0;
    /* Sorted, as the core's list: each pass takes the least id above the last one written (ids are
     * unique), which needs no allocation and leaves the registry as it is. */
    for (const char *last = NULL;;) {
        const char *next = NULL;
        for (size_t i = 0; reg && i < eddy_registry_count(reg); ++i) {
            const eddy_component *c = eddy_registry_at(reg, i)->component;
            if (!c->id || (interface_id && (!c->interface_id || strcmp(c->interface_id, interface_id) != 0)))
                continue;
            if ((!last || strcmp(c->id, last) > 0) && (!next || strcmp(c->id, next) < 0)) next = c->id;
        }
        if (!next) break;
        last = next;
        const int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", next);
        if (w < 0 || (size_t)w >= size - len) {
            if (size > 4) memcpy(buf + size - 4, "...", 4);
            break;
        }
        len += (size_t)w;
    }
    return buf;
}

/* Whether `word` stands as a whole word (letters and digits around it end it) in `text`, any case. */
static int has_word(const char *text, const char *word)
{
    const size_t n = strlen(word);
    for (const char *t = text; n && *t; ++t) {
        if (strncasecmp(t, word, n) != 0) continue;
        const int open = t == text || !isalnum((unsigned char)t[-1]), close = !isalnum((unsigned char)t[n]);
        if (open && close) return 1;
    }
    return 0;
}

const char *eddy_scene_nearest_id(const eddy_registry *reg, const char *interface_id, const char *id)
{
    if (!reg || !id) return NULL;
    /* A word for what the user wants rather than a misspelt id ("gpu" for the grid described as "on an
     * NVIDIA GPU", which one edit turned into "cpu"): the one component whose description holds it. */
    const char *described = NULL;
    int described_count = 0;
    for (size_t i = 0; strlen(id) >= 3 && i < eddy_registry_count(reg); ++i) {
        const eddy_component *c = eddy_registry_at(reg, i)->component;
        if (!c->id || (interface_id && (!c->interface_id || strcmp(c->interface_id, interface_id) != 0))) continue;
        if (strcmp(c->id, id) == 0) return NULL;
        if (c->description && has_word(c->description, id) && (!described || strcmp(described, c->id) != 0))
            described = c->id, ++described_count;
    }
    if (described_count == 1) return described;
    /* Two edits turn a 3-letter id into most others of 3 ("cpu" into "csv"): short ids get one, longer two. */
    const size_t len = strlen(id), limit = len <= 3 ? 1 : 2;
    const char *best = NULL;
    size_t best_d = limit + 1;
    int tie = 0;
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_component *c = eddy_registry_at(reg, i)->component;
        if (!c->id || (interface_id && (!c->interface_id || strcmp(c->interface_id, interface_id) != 0))) continue;
        const size_t clen = strlen(c->id);
        if ((clen > len ? clen - len : len - clen) > limit) continue;
        const size_t d = id_distance(id, c->id);
        if (d == 0) continue;
        /* (one id registered for two interfaces is one candidate, not a tie, when any kind is asked) */
        if (d < best_d) best = c->id, best_d = d, tie = 0;
        else if (d == best_d && best && strcmp(best, c->id) != 0) tie = 1;
    }
    return tie ? NULL : best;
}

/* The registered ids of an interface as "a, b, c", sorted as every list of an unknown component's
 * message, or quoted ("\"a\", \"b\" or \"c\""), registry order, as output.format's choices. */
static size_t registered_ids(const eddy_registry *reg, const char *interface_id, int quoted, char *out, size_t size)
{
    size_t n = 0, total = 0, len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_component *comp = eddy_registry_at(reg, i)->component;
        if (comp->interface_id && strcmp(comp->interface_id, interface_id) == 0) ++total;
    }
    if (!quoted) {
        eddy_scene_registry_ids(reg, interface_id, out, size);
        return total;
    }
    for (size_t i = 0; i < eddy_registry_count(reg); ++i) {
        const eddy_component *comp = eddy_registry_at(reg, i)->component;
        if (!comp->interface_id || strcmp(comp->interface_id, interface_id) != 0) continue;
        const char *sep = n == 0 ? "" : !quoted ? ", " : n + 1 == total ? " or " : ", ";
        if (scene_list_add(out, size, &len, sep, quoted, comp->id)) break;
        ++n;
    }
    return total;
}

int eddy_scene_check_components(const eddy_scene *scene, const eddy_registry *reg, eddy_error *err)
{
    if (!scene) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "eddy_scene_check_components: scene is NULL");
    if (!reg) return EDDY_OK;
    ctx c = scene_ctx(scene, err);
    char list[EDDY_ERROR_MESSAGE_MAX / 2], kp[PATH_BUF];
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; ++k) {
        const cJSON *sec = scene_tree_lookup(scene->root, KINDS[k].section);
        if (!cJSON_IsObject(sec)) continue;
        for (const cJSON *m = sec->child; m; m = m->next) {
            const char *id = m->string ? m->string : "";
            if (eddy_registry_find(reg, id, KINDS[k].interface_id)) continue;
            size_t n = registered_ids(reg, KINDS[k].interface_id, 0, list, sizeof list);
            char shown[64];
            const char *near = eddy_scene_nearest_id(reg, KINDS[k].interface_id, id);
            return scene_fail_key(&c, KINDS[k].section, m, 0,
                                  "unknown %s '%s', expected one of the registered %ss: %s%s%s%s", KINDS[k].kind,
                                  scene_key_text(id, shown, sizeof shown), KINDS[k].kind, n ? list : "none",
                                  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        }
    }
    /* output.format: writer ids (only when writers are registered at all: a registry without the
     * host's built-in writers cannot tell). */
    if (registered_ids(reg, EDDY_INTERFACE_WRITER, 1, list, sizeof list) == 0) return EDDY_OK;
    const cJSON *f = scene_tree_lookup(scene->root, "output.format");
    for (size_t i = 0; i < scene->format_count; ++i) {
        if (eddy_registry_find(reg, scene->formats[i], EDDY_INTERFACE_WRITER)) continue;
        const cJSON *node = f;
        snprintf(kp, sizeof kp, "output.format");
        if (cJSON_IsArray(f)) {
            node = cJSON_GetArrayItem(f, (int)i);
            scene_path_index(kp, "output.format", i);
        }
        const char *near = eddy_scene_nearest_id(reg, EDDY_INTERFACE_WRITER, scene->formats[i]);
        return scene_fail(&c, kp, node, AT_VALUE, "expected %s, got \"%s\"%s%s%s", list, scene->formats[i],
                          near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
    }
    return EDDY_OK;
}
