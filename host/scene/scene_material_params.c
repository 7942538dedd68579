/*
 * host/scene/scene_material_params.c — the per-material parameters of the running solver: a key of
 * materials[i] is valid when it is generic or declared by any registered solver's material table;
 * the running solver's keys are read and checked, the others' accepted and ignored.
 *
 * Depends on: scene_params.c, scene_errors.c, the core's registry.
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generic material keys, read when the scene is parsed: the ones every method shares, listed
 * around the keys the solvers declare (eddy_scene_material_params) in messages. */
static const char *const MATERIAL_KEYS_FIRST[] = {"name", "rest_density", "particle_mass",
                                                  "particle_spacing", NULL};
static const char *const MATERIAL_KEYS_CONTACT[] = {"particle_radius", "particle_margin", "restitution",
                                                    "friction", "erp", NULL};

/* A generic material key (read by scene_parse_materials). */
static int generic_material_key(const char *key)
{
    return scene_listed(MATERIAL_KEYS_FIRST, key) || scene_listed(MATERIAL_KEYS_CONTACT, key);
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
            const eddy_param_desc *d = scene_table_at(comp->material_params, comp->material_param_count, i);
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
    scene_list_add(l->text, sizeof l->text, &l->len, l->len ? ", " : "", 0, key); /* what fits */
    return 0;
}

/* eddy_scene_material_params with the material's object `o` (NULL when the scene was not parsed)
 * already found, so that walking every material stays linear. */
int scene_material_params_of(const eddy_scene *scene, const eddy_registry *reg, const eddy_component *solver,
                             size_t material, const cJSON *o, eddy_param_value *values, eddy_error *err)
{
    const eddy_param_desc *table = solver ? solver->material_params : NULL;
    const size_t count = table ? solver->material_param_count : 0;
    for (size_t i = 0; values && i < count; ++i) values[i] = eddy_param_default(eddy_param_at(table, i));
    if (!cJSON_IsObject(o)) return EDDY_OK; /* not from a parsed scene: nothing to check */
    ctx c = scene_ctx(scene, err);
    char p[PATH_BUF];
    scene_path_index(p, "materials", material);
    for (const cJSON *m = o->child; m; m = m->next) {
        const char *key = m->string ? m->string : "";
        if (generic_material_key(key)) continue;
        char kp[PATH_BUF];
        scene_path_key(kp, p, key);
        int i = scene_table_find(table, count, key);
        if (i >= 0) {
            const eddy_param_desc *d = eddy_param_at(table, (size_t)i);
            eddy_param_value v;
            int rc = scene_read_value(&c, d, kp, m, STYLE_MATERIAL, &v);
            if (!rc) rc = scene_core_check(&c, d, &v, p, kp, m);
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
        int rc = scene_fail_key(&c, p, m, 0, "unknown key, expected one of: %s", l->text);
        free(l);
        return rc;
    }
    for (size_t i = 0; i < count; ++i) {
        const eddy_param_desc *d = eddy_param_at(table, i);
        if ((d->flags & EDDY_PARAM_REQUIRED) && !scene_member(o, d->id)) {
            char exp[EDDY_ERROR_MESSAGE_MAX / 2];
            scene_desc_expected(d, exp, sizeof exp);
            char why[EDDY_ERROR_MESSAGE_MAX / 2 + 64];
            snprintf(why, sizeof why, "%s (solver '%s' needs it)", exp, solver->id ? solver->id : "");
            return scene_fail_missing(&c, p, o, d->id, why);
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
    const cJSON *o = cJSON_GetArrayItem(scene_member(scene->root, "materials"), (int)material);
    return scene_material_params_of(scene, reg, solver, material, o, values, err);
}

int eddy_scene_set_has_effect(const eddy_scene *scene, const eddy_registry *reg, const eddy_component *solver,
                              const char *set, char *why, size_t n)
{
    const char *eq = strchr(set, '=');
    char path[512];
    const size_t len = eq ? (size_t)(eq - set) : strlen(set);
    if (!solver || len >= sizeof path) return 1;
    memcpy(path, set, len);
    path[len] = '\0';
    const char *p = path;
    path_seg a, b, c;
    if (scene_path_next(&p, 1, &a) != 1 || a.is_index || scene_path_next(&p, 0, &b) != 1) return 1;
    const int c_rc = scene_path_next(&p, 0, &c);
    if (!b.is_index && ((a.len == 7 && strncmp(a.key, "solvers", 7) == 0) ||
                        (a.len == 5 && strncmp(a.key, "grids", 5) == 0))) {
        const int solvers = a.len == 7;
        const char *mine = solvers ? (solver->id ? solver->id : "") : scene->grid;
        if (strlen(mine) == b.len && strncmp(mine, b.key, b.len) == 0) return 1;
        snprintf(why, n, "the run's %s is '%s'", solvers ? "solver" : "grid", mine);
        return 0;
    }
    if (a.len == 9 && strncmp(a.key, "materials", 9) == 0 && b.is_index && c_rc == 1 && !c.is_index) {
        char key[128];
        if (c.len >= sizeof key) return 1;
        memcpy(key, c.key, c.len);
        key[c.len] = '\0';
        /* (a key no solver declares is the scene's error, said by the scene's own check) */
        if (generic_material_key(key) || each_declared_key(NULL, solver, key_equals, key) ||
            !each_declared_key(reg, NULL, key_equals, key))
            return 1;
        snprintf(why, n, "solver '%s' does not read it", solver->id ? solver->id : "");
        return 0;
    }
    return 1;
}
