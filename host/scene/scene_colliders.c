/*
 * host/scene/scene_colliders.c — the schema of `colliders`: planes, boxes and spheres, optionally
 * moving with a velocity until a time.
 *
 * Depends on: scene_values.c, scene_errors.c.
 */
#include "scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PLANE_COLLIDER_KEYS[] = {"type", "point", "normal", "velocity", "moving_until", NULL};
static const char *const BOX_COLLIDER_KEYS[] = {"type", "min", "max", "velocity", "moving_until", NULL};
static const char *const SPHERE_COLLIDER_KEYS[] = {"type", "center", "radius", "velocity", "moving_until", NULL};

/* Squared distance from point p to the box [lo, hi] (0 inside), over d axes. */
static double box_dist2(const double p[3], const eddy_real lo[3], const eddy_real hi[3], int d)
{
    double r2 = 0;
    for (int a = 0; a < d; ++a) {
        const double e = p[a] < lo[a] ? lo[a] - p[a] : p[a] > hi[a] ? p[a] - hi[a] : 0.0;
        r2 += e * e;
    }
    return r2;
}

/* How deep (world units) collider `col` reaches into fluid block f; <= 0 when they do not overlap. */
static double overlap_depth(const eddy_scene_fluid *f, const eddy_collider *col, int d)
{
    double fc[3] = {0, 0, 0}, cc[3] = {0, 0, 0};
    for (int a = 0; a < d; ++a) {
        fc[a] = f->center[a];
        cc[a] = col->center[a];
    }
    const int sphere = f->shape == EDDY_FLUID_SPHERE;
    switch (col->shape) {
    case EDDY_SHAPE_PLANE: {
        double n2 = 0, lowest = 0; /* the block's lowest point along the normal, from the plane */
        for (int a = 0; a < d; ++a) n2 += (double)col->normal[a] * col->normal[a];
        const double len = sqrt(n2);
        for (int a = 0; a < d; ++a) {
            const double n = col->normal[a] / len;
            lowest += sphere ? (fc[a] - col->point[a]) * n : ((n >= 0 ? f->min[a] : f->max[a]) - (double)col->point[a]) * n;
        }
        return sphere ? (double)f->radius - lowest : -lowest;
    }
    case EDDY_SHAPE_BOX:
        if (sphere) return (double)f->radius - sqrt(box_dist2(fc, col->min, col->max, d));
        else {
            double depth = INFINITY;
            for (int a = 0; a < d; ++a)
                depth = fmin(depth, fmin((double)f->max[a], col->max[a]) - fmax((double)f->min[a], col->min[a]));
            return depth;
        }
    case EDDY_SHAPE_SPHERE: {
        double r2 = 0;
        if (sphere)
            for (int a = 0; a < d; ++a) r2 += (fc[a] - cc[a]) * (fc[a] - cc[a]);
        else
            r2 = box_dist2(cc, f->min, f->max, d);
        return (double)col->radius + (sphere ? (double)f->radius : 0.0) - sqrt(r2);
    }
    default: return 0;
    }
}

/* A collider reaching into a fluid block starts particles inside the solid, which the contact response
 * then throws out at the first step: refused, naming both. Up to half a fill spacing is allowed: the
 * lattice keeps that far from a box's faces (and touching blocks are common). */
static int check_clear_of_fluids(ctx *c, const char *path, const cJSON *node, const eddy_collider *col)
{
    const eddy_scene *s = c->s;
    for (size_t k = 0; k < s->fluid_count; ++k) {
        const eddy_scene_fluid *f = &s->fluids[k];
        if (f->material < 0 || (size_t)f->material >= s->material_count) continue;
        const double spacing =
            (double)s->materials[f->material].particle_dist * (double)f->spacing_factor / (double)s->simulation_scale;
        const double depth = overlap_depth(f, col, s->dimensions);
        if (depth > 0.5 * spacing)
            return scene_fail(c, path, node, AT_VALUE,
                              "expected a solid clear of the fluid blocks, got one that reaches %g into fluids[%zu], "
                              "more than half its particle spacing of %g: particles would start inside the solid",
                              depth, k, spacing);
    }
    return EDDY_OK;
}

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
        if (!t) {
            /* "typ" or "Type" is a misspelled key, better named as such than as a missing type. */
            static const char *const ANY_COLLIDER_KEYS[] = {"type",   "point",  "normal",   "min",          "max",
                                                           "center", "radius", "velocity", "moving_until", NULL};
            int rc = scene_check_keys(c, o, p, ANY_COLLIDER_KEYS);
            return rc ? rc : scene_fail_missing(c, p, o, "type", texp);
        }
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
                return s->dimensions == 2 ? scene_fail(c, q, scene_member(o, "normal"), AT_VALUE,
                                                       "expected a non-zero vector, got x = 0 and y = 0 (a 2D scene "
                                                       "ignores z)")
                                          : scene_fail(c, q, scene_member(o, "normal"), AT_VALUE,
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
            (rc = scene_get_number(c, o, p, "moving_until", 0, &NS_NONNEG, 0.0, &s->collider_moving_until[i], NULL)) ||
            (rc = check_clear_of_fluids(c, p, o, col)))
            return rc;
    }
    return EDDY_OK;
}
