/*
 * host/scene/scene_sections.c — the helpers other host modules read their own top-level sections
 * with ("probes", "render", "checkpoint"), so that every scene error reads the same.
 *
 * Depends on: scene_errors.c, scene_values.c.
 */
#include "scene_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cJSON *eddy_scene_section(const eddy_scene *scene, const char *key)
{
    return scene && scene->root ? scene_member(scene->root, key) : NULL;
}

int eddy_scene_fail_at(const eddy_scene *scene, eddy_error *err, const char *path, const cJSON *node,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = scene_vfail(scene, err, path, node, AT_VALUE, fmt, ap);
    va_end(ap);
    return rc;
}

int eddy_scene_fail_expected(const eddy_scene *scene, eddy_error *err, const char *path,
                             const cJSON *node, const char *expected)
{
    ctx c = scene_ctx(scene, err);
    return scene_fail_expected(&c, path, node, expected);
}

int eddy_scene_check_keys(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *const *valid)
{
    ctx c = scene_ctx(scene, err);
    return scene_check_keys(&c, obj, path, valid);
}

int eddy_scene_get_number(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, double lo, double hi, double def, double *out,
                          int *present)
{
    ctx c = scene_ctx(scene, err);
    numspec ns = {lo, hi, 0, 0, 0};
    return scene_get_number(&c, obj, path, key, required, &ns, def, out, present);
}

int eddy_scene_get_string(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, const char *def, char *out, size_t size)
{
    ctx c = scene_ctx(scene, err);
    return scene_get_string(&c, obj, path, key, required, def, out, size, 1);
}

int eddy_scene_get_vector(const eddy_scene *scene, eddy_error *err, const cJSON *obj, const char *path,
                          const char *key, int required, const eddy_real def[3], eddy_real out[3])
{
    ctx c = scene_ctx(scene, err);
    return scene_get_vector_z_free(&c, obj, path, key, required, def, out);
}

int eddy_scene_check_written(const eddy_scene *scene,
                             int (*check)(void *user, const eddy_scene *view, eddy_error *err), void *user,
                             eddy_error *err)
{
    const eddy_scene *view = scene ? scene->written : NULL;
    if (!view || !view->replaced || !check) return EDDY_OK;
    eddy_error e;
    eddy_error_clear(&e);
    view->replaced->verdict = -1; /* (an error with no place in the text, out of memory, stands) */
    const int rc = check(user, view, &e);
    if (!rc || view->replaced->verdict == 0) return EDDY_OK;
    if (err) *err = e;
    return rc;
}
