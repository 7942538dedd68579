/*
 * host/scene/scene_fluids.c — the schema of `fluids`: blocks (box or sphere) of a named material,
 * inside the domain and the container's walls, at least one particle wide, and at most 2^32 particles in
 * all.
 *
 * Depends on: scene_values.c, scene_errors.c, scene_lattice.c (counts), scene_world.c (the domain),
 * scene_colliders.c (the depth a wall reaches into a block).
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const FLUID_KEYS[] = {"material", "box", "sphere", "velocity", "spacing_factor", NULL};
static const char *const SPHERE_KEYS[] = {"center", "radius", NULL};

/* The first container wall (non-periodic axes, min before max) a block reaches past by more than half
 * its fill spacing. */
typedef struct wall_crossing {
    int axis, side;               /* side 1: container.max */
    double wall, depth, spacing;  /* world units */
} wall_crossing;

/*
 * Inside the container's walls, which act as plane colliders do (eddy_world_set_container): a block past
 * one, though inside the domain that widens the container by h, started its particles outside the wall,
 * and the wall's response threw them back at tens of m/s. The same margin as a collider's, by the same
 * measure. Periodic axes have no walls.
 */
static int container_wall_crossed(const eddy_scene *s, const eddy_scene_fluid *f, wall_crossing *out)
{
    const double spacing = (double)s->materials[f->material].particle_dist * (double)f->spacing_factor /
                           (double)s->simulation_scale;
    for (int a = 0; a < s->dimensions; ++a) {
        if (s->periodic[a]) continue;
        for (int side = 0; side < 2; ++side) {
            eddy_collider wall = eddy_default_collider();
            wall.shape = EDDY_SHAPE_PLANE;
            for (int b = 0; b < 3; ++b) wall.point[b] = wall.normal[b] = 0.0f;
            wall.point[a] = side ? s->container_max[a] : s->container_min[a];
            wall.normal[a] = side ? -1.0f : 1.0f;
            const double depth = scene_overlap_depth(f, &wall, s->dimensions);
            if (depth > 0.5 * spacing) {
                *out = (wall_crossing){a, side, (double)wall.point[a], depth, spacing};
                return 1;
            }
        }
    }
    return 0;
}

int scene_parse_fluids(ctx *c, const cJSON *root)
{
    eddy_scene *s = c->s;
    const cJSON *arr = scene_member(root, "fluids");
    const char *exp = "a non-empty array of fluid block objects";
    if (!arr) return scene_fail_missing(c, "", root, "fluids", exp);
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1) return scene_fail_expected(c, "fluids", arr, exp);
    size_t n = (size_t)cJSON_GetArraySize(arr);
    s->fluids = calloc(n, sizeof *s->fluids);
    if (!s->fluids) return eddy_error_set(c->err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    eddy_real dlo[3], dhi[3];
    scene_effective_domain(s, dlo, dhi);
    size_t i = 0;
    double total = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        char p[PATH_BUF], q[PATH_BUF];
        scene_path_index(p, "fluids", i);
        if (!cJSON_IsObject(o)) return scene_fail_expected(c, p, o, "a fluid block object");
        int rc = scene_check_keys(c, o, p, FLUID_KEYS);
        if (rc) return rc;
        eddy_scene_fluid *f = &s->fluids[i];
        s->fluid_count = i + 1;
        /* material */
        const cJSON *mv = scene_member(o, "material");
        if (!mv) return scene_fail_missing(c, p, o, "material", "the name of a material");
        f->material = -1;
        if (cJSON_IsString(mv)) {
            size_t k = scene_name_index_find(c->material_names, mv->valuestring);
            if (k < s->material_count) f->material = (int)k;
        }
        if (f->material < 0) {
            char names[EDDY_ERROR_MESSAGE_MAX / 2], b[64], shown[64];
            size_t k = 0;
            names[0] = '\0';
            for (size_t j = 0; j < s->material_count; ++j)
                if (scene_list_add(names, sizeof names, &k, j ? ", " : "", 1,
                                   scene_key_text(s->materials[j].name, shown, sizeof shown)))
                    break;
            scene_path_key(q, p, "material");
            return scene_fail(c, q, mv, AT_VALUE, "expected the name of a material (%s), got %s", names,
                              scene_describe(mv, b, sizeof b));
        }
        /* shape */
        const cJSON *box = scene_member(o, "box"), *sph = scene_member(o, "sphere");
        if (box && sph) {
            scene_path_key(q, p, "sphere");
            return scene_fail(c, q, sph, AT_KEY, "expected exactly one of box and sphere, got both");
        }
        if (!box && !sph)
            return scene_fail(c, p, o, AT_CONTAINER, "expected exactly one of box and sphere, got neither");
        if (box) {
            scene_path_key(q, p, "box");
            if (!cJSON_IsObject(box)) return scene_fail_expected(c, q, box, "an object {min, max}");
            f->shape = EDDY_FLUID_BOX;
            if ((rc = scene_check_keys(c, box, q, MINMAX_KEYS)) ||
                (rc = scene_get_vector(c, box, q, "min", 1, NULL, f->min)) ||
                (rc = scene_get_vector(c, box, q, "max", 1, NULL, f->max)) ||
                (rc = scene_check_min_max(c, box, q, f->min, f->max)))
                return rc;
        } else {
            scene_path_key(q, p, "sphere");
            if (!cJSON_IsObject(sph)) return scene_fail_expected(c, q, sph, "an object {center, radius}");
            f->shape = EDDY_FLUID_SPHERE;
            if ((rc = scene_check_keys(c, sph, q, SPHERE_KEYS)) ||
                (rc = scene_get_vector(c, sph, q, "center", 1, NULL, f->center)) ||
                (rc = scene_get_real(c, sph, q, "radius", 1, &NS_POS, 0, &f->radius, NULL)))
                return rc;
            for (int a = 0; a < 3; ++a) {
                f->min[a] = a < s->dimensions ? f->center[a] - f->radius : 0.0f;
                f->max[a] = a < s->dimensions ? f->center[a] + f->radius : 0.0f;
            }
        }
        if ((rc = scene_get_direction(c, o, p, "velocity", 0, NULL, f->velocity)) ||
            (rc = scene_get_real(c, o, p, "spacing_factor", 0, &NS_POS, 1.0, &f->spacing_factor, NULL)))
            return rc;
        /* A speed whose square overflows a float (the world's speed figure, world.c) leaves no stable time
         * step. It was refused at the first step, after the output folder's previous run was cleared. */
        const float v2 = f->velocity[0] * f->velocity[0] + f->velocity[1] * f->velocity[1] +
                         f->velocity[2] * f->velocity[2];
        if (isinf(v2)) {
            char sv[PATH_BUF];
            scene_path_key(sv, p, "velocity");
            const double speed = sqrt((double)f->velocity[0] * f->velocity[0] +
                                      (double)f->velocity[1] * f->velocity[1] +
                                      (double)f->velocity[2] * f->velocity[2]);
            return scene_fail(c, sv, scene_member(o, "velocity"), AT_VALUE,
                              "expected a speed below 1.8446743525e19 (sim units/s; its square must fit single precision, "
                              "or no time step is stable), got %.8g",
                              speed);
        }
        /* The materials' limit of EDDY_LATTICE_RATIO_MAX spacings per smoothing radius holds for the fill
         * too: a factor of 0.01 gave 125 000 neighbours a particle, a density pass of minutes a step. */
        const double fill = (double)s->materials[f->material].particle_dist * (double)f->spacing_factor;
        if ((double)s->smoothing_radius / fill > EDDY_LATTICE_RATIO_MAX) {
            char sf[PATH_BUF];
            scene_path_key(sf, p, "spacing_factor");
            return scene_fail(c, sf, scene_member(o, "spacing_factor"), AT_VALUE,
                              "expected at least %g, a fill spacing of world.smoothing_radius / %d = %g (at most %d "
                              "spacings per smoothing radius), got %g (spacing %g)",
                              (double)s->smoothing_radius / EDDY_LATTICE_RATIO_MAX /
                                  (double)s->materials[f->material].particle_dist,
                              EDDY_LATTICE_RATIO_MAX,
                              (double)s->smoothing_radius / EDDY_LATTICE_RATIO_MAX / (double)s->simulation_scale,
                              EDDY_LATTICE_RATIO_MAX, (double)f->spacing_factor, fill / (double)s->simulation_scale);
        }
        /* inside the domain (bounded axes), unless escaping particles are removed anyway */
        const cJSON *shape = box ? box : sph;
        scene_path_key(q, p, box ? "box" : "sphere");
        wall_crossing past;
        const int past_wall = s->has_container && container_wall_crossed(s, f, &past);
        /* A block past a container wall is told so below, whatever domain it leaves too: the domain that
         * widens the container by h is not a bound the scene wrote, and naming it ("inside the domain
         * [-0.01, 0.31]") sent the reader looking for a "domain" key. */
        if (s->out_of_domain == EDDY_DOMAIN_ERROR && !past_wall)
            for (int a = 0; a < s->dimensions; ++a)
                if (!s->periodic[a] && (f->min[a] < dlo[a] || f->max[a] > dhi[a]))
                    return scene_fail_object(c, q, shape,
                                             scene_member(root, s->has_domain ? "domain" : "container"),
                                             "expected a block inside the domain [%g, %g] on axis %c, got [%g, %g]",
                                             (double)dlo[a], (double)dhi[a], AXIS[a], (double)f->min[a],
                                             (double)f->max[a]);
        int at_least = 0;
        double count = scene_fluid_count_at(s, f, (double)s->materials[f->material].particle_dist, &at_least);
        if (count == 0) {
            return scene_fail(c, q, shape, AT_VALUE,
                              "expected a block at least one particle spacing (%g) wide on every axis, got 0 "
                              "particles",
                              (double)s->materials[f->material].particle_dist * (double)f->spacing_factor /
                                  (double)s->simulation_scale);
        }
        total += count;
        if (total > (double)UINT32_MAX) {
            if (isinf(total))
                return scene_fail(c, q, shape, AT_VALUE,
                                  "expected at most %u particles in all, got more than 1e15 in this block",
                                  UINT32_MAX);
            return scene_fail(c, q, shape, AT_VALUE,
                              "expected at most %u particles in all, got %s%.0f after this block",
                              UINT32_MAX, at_least ? "at least " : "", total);
        }
        /* After the counts, so that a block too large to fill is told so whatever it crosses. */
        if (past_wall)
            return scene_fail_object(
                c, q, shape, scene_member(root, "container"),
                "expected a block inside the container's walls, got one that reaches %g past its wall "
                "at %c = %g (container.%s), more than half its particle spacing of %g: particles would "
                "start outside the container",
                past.depth, AXIS[past.axis], past.wall, past.side ? "max" : "min", past.spacing);
    }
    return EDDY_OK;
}
