/*
 * host/scene/scene_colliders.c — the schema of `colliders`: planes, boxes and spheres, optionally
 * moving with a velocity until a time.
 *
 * Depends on: scene_values.c, scene_errors.c.
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PLANE_COLLIDER_KEYS[] = {"type", "point", "normal", "velocity", "moving_until", NULL};
static const char *const BOX_COLLIDER_KEYS[] = {"type", "min", "max", "velocity", "moving_until", NULL};
static const char *const SPHERE_COLLIDER_KEYS[] = {"type", "center", "radius", "velocity", "moving_until", NULL};

int scene_parse_colliders(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *arr = scene_member(root, "colliders");
    if (!arr) return EDDY_OK;
    if (!cJSON_IsArray(arr)) return scene_fail_expected(c, "colliders", arr, "an array of collider objects");
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n == 0) return EDDY_OK;
    s->colliders = calloc(n, sizeof *s->colliders);
    s->collider_moving_until = calloc(n, sizeof *s->collider_moving_until);
    if (!s->colliders || !s->collider_moving_until)
        return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    size_t i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        char p[PATH_BUF], q[PATH_BUF];
        scene_path_index(p, "colliders", i);
        if (!cJSON_IsObject(o)) return scene_fail_expected(c, p, o, "a collider object");
        eddy_collider *col = &s->colliders[i];
        *col = eddy_default_collider();
        s->collider_count = i + 1;
        const cJSON *t = scene_member(o, "type");
        const char *texp = "\"plane\", \"box\" or \"sphere\"";
        if (!t) return scene_fail_missing(c, p, o, "type", texp);
        const char *const *keys;
        scene_path_key(q, p, "type");
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
            return scene_fail_expected(c, q, t, texp);
        }
        int rc = scene_check_keys(c, o, p, keys);
        if (rc) return rc;
        if (col->shape == EDDY_SHAPE_PLANE) {
            if ((rc = scene_get_vector(c, o, p, "point", 1, NULL, col->point)) ||
                (rc = scene_get_vector(c, o, p, "normal", 1, NULL, col->normal)))
                return rc;
            double l2 = 0;
            for (int a = 0; a < s->dimensions; ++a) l2 += (double)col->normal[a] * col->normal[a];
            if (!(l2 > 0)) {
                scene_path_key(q, p, "normal");
                return scene_fail(c, q, scene_member(o, "normal"), AT_VALUE,
                                  "expected a non-zero vector, got a zero vector");
            }
        } else if (col->shape == EDDY_SHAPE_BOX) {
            if ((rc = scene_get_vector(c, o, p, "min", 1, NULL, col->min)) ||
                (rc = scene_get_vector(c, o, p, "max", 1, NULL, col->max)) ||
                (rc = scene_check_min_max(c, o, p, col->min, col->max)))
                return rc;
        } else {
            if ((rc = scene_get_vector(c, o, p, "center", 1, NULL, col->center)) ||
                (rc = scene_get_real(c, o, p, "radius", 1, &NS_POS, 0, &col->radius, NULL)))
                return rc;
        }
        if ((rc = scene_get_vector(c, o, p, "velocity", 0, NULL, col->velocity)) ||
            (rc = scene_get_number(c, o, p, "moving_until", 0, &NS_NONNEG, 0.0, &s->collider_moving_until[i], NULL)))
            return rc;
    }
    return EDDY_OK;
}
