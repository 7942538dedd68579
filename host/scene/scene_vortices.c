/*
 * host/scene/scene_vortices.c — the schema of `vortices` (initial vortices: 2D Gaussian vortices, 3D
 * thin rings) and the vorticity they put on the particles a scene seeds (scene_vortices.h).
 *
 * The vorticity goes on the particles of the fluid blocks, wherever they are, rather than on particles
 * of its own: vortices then superpose with each other and with the rest of the scene (walls, other
 * materials, the blocks' velocities), and a vortex is resolved as finely as the fluid it lies in. The
 * validation's ring (drive/validate_vortex.c) keeps its own particles: it needs every meridian section
 * to carry exactly G, which a Cartesian lattice does not give.
 *
 * Depends on: scene_values.c, scene_errors.c, scene_lattice.c (the blocks' particle counts and
 * spacings), the core's world API.
 */
#include "scene_internal.h"
#include "scene_vortices.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { VORTEX_GAUSSIAN = 0, VORTEX_RING = 1 };

/* One vortex in simulation units; the axis has unit length. */
typedef struct vortex {
    int kind;
    double center[3], axis[3];
    double circulation, core, radius;
} vortex;

static const char *const GAUSSIAN_KEYS[] = {"kind", "center", "circulation", "core_radius", NULL};
static const char *const RING_KEYS[] = {"kind", "center", "axis", "radius", "circulation", "core_radius", NULL};
static const char *const ANY_VORTEX_KEYS[] = {"kind",   "center",      "axis", "radius",
                                              "circulation", "core_radius", NULL};
static const numspec NS_ANY = {-INFINITY, INFINITY, 0, 0, 0};

double eddy_scene_gaussian_vorticity(double G, double a, double r2)
{
    /* The validation's Lamb–Oseen and pair cases were written as this expression; keeping its exact
     * order of operations keeps their figures bit for bit. */
    return G / (M_PI * a * a) * exp(-r2 / (a * a));
}

/* Reads vortices[i] (the object o) into *v. */
static int read_vortex(ctx *c, const cJSON *o, size_t i, vortex *v)
{
    const eddy_scene *s = c->s;
    const int d = s->dimensions;
    char p[PATH_BUF], q[PATH_BUF];
    scene_path_index(p, "vortices", i);
    if (!cJSON_IsObject(o)) return scene_fail_expected(c, p, o, "a vortex object");
    memset(v, 0, sizeof *v);
    const cJSON *k = scene_member(o, "kind");
    const char *kexp = d == 2 ? "\"gaussian\" (a 2D scene's vortex)" : "\"ring\" (a 3D scene's vortex)";
    if (!k) {
        /* "knd" or "type" is a misspelled key, better named as such than as a missing kind. */
        int rc = scene_check_keys(c, o, p, ANY_VORTEX_KEYS);
        return rc ? rc : scene_fail_missing(c, p, o, "kind", kexp);
    }
    scene_path_key(q, p, "kind");
    if (cJSON_IsString(k) && strcmp(k->valuestring, "gaussian") == 0) v->kind = VORTEX_GAUSSIAN;
    else if (cJSON_IsString(k) && strcmp(k->valuestring, "ring") == 0) v->kind = VORTEX_RING;
    else return scene_fail_expected(c, q, k, kexp);
    /* A 2D vortex is a line vortex along z; in 3D it would need an axis and a length, and a ring cut by
     * the x-y plane is a pair of opposite 2D vortices, which the user can state as such. */
    if (v->kind == VORTEX_GAUSSIAN && d != 2)
        return scene_fail(c, q, k, AT_VALUE,
                          "\"gaussian\" is a 2D vortex (vorticity along z, normal to the x-y plane) and this scene "
                          "is 3D; a 3D scene takes \"ring\"");
    if (v->kind == VORTEX_RING && d != 3)
        return scene_fail(c, q, k, AT_VALUE,
                          "\"ring\" is a 3D vortex and this scene is 2D; a 2D scene takes \"gaussian\" (a ring's "
                          "section is a pair of opposite Gaussian vortices)");
    int rc = scene_check_keys(c, o, p, v->kind == VORTEX_RING ? RING_KEYS : GAUSSIAN_KEYS);
    if (rc) return rc;
    eddy_real center[3], axis[3] = {0, 0, 0};
    double radius = 0;
    if ((rc = scene_get_vector(c, o, p, "center", 1, NULL, center)) ||
        (rc = scene_get_number(c, o, p, "circulation", 1, &NS_ANY, 0, &v->circulation, NULL)) ||
        (rc = scene_get_number(c, o, p, "core_radius", 1, &NS_POS, 0, &v->core, NULL)))
        return rc;
    if (v->kind == VORTEX_RING) {
        if ((rc = scene_get_direction(c, o, p, "axis", 1, NULL, axis)) ||
            (rc = scene_get_number(c, o, p, "radius", 1, &NS_POS, 0, &radius, NULL)))
            return rc;
        double l2 = 0;
        for (int a = 0; a < 3; ++a) l2 += (double)axis[a] * axis[a];
        if (!(l2 > 0)) {
            scene_path_key(q, p, "axis");
            return scene_fail(c, q, scene_member(o, "axis"), AT_VALUE,
                              "expected a non-zero vector (the ring's axis), got a zero vector");
        }
        /* The core is sampled at its distance to the ring's circle, which is the thin-ring vorticity
         * only while the core stays clear of the axis; at a >= R it would cross it. */
        if (!(v->core < radius)) {
            char shown[32];
            scene_fmt_number(shown, sizeof shown, radius);
            scene_path_key(q, p, "core_radius");
            return scene_fail(c, q, scene_member(o, "core_radius"), AT_VALUE,
                              "expected a core_radius below the ring's radius %s (a thin ring), got %.15g", shown,
                              v->core);
        }
        for (int a = 0; a < 3; ++a) v->axis[a] = (double)axis[a] / sqrt(l2);
    }
    const double scale = s->simulation_scale;
    for (int a = 0; a < 3; ++a) v->center[a] = a < d ? (double)center[a] * scale : 0.0;
    v->core *= scale;
    v->radius = radius * scale;
    /* The field is single precision: a peak it cannot hold would start the run with infinities. */
    const double peak = fabs(v->circulation) / (M_PI * v->core * v->core);
    if (!(peak <= FLT_MAX)) {
        scene_path_key(q, p, "circulation");
        return scene_fail(c, q, scene_member(o, "circulation"), AT_VALUE,
                          "the peak vorticity |circulation| / (pi core_radius^2) = %g 1/s (simulation units) "
                          "exceeds the float range (3.4e+38): use a smaller circulation or a larger core_radius",
                          peak);
    }
    return EDDY_OK;
}

int scene_parse_vortices(ctx *c, const cJSON *root)
{
    const cJSON *arr = scene_member(root, "vortices");
    if (!arr) return EDDY_OK;
    if (!cJSON_IsArray(arr)) return scene_fail_expected(c, "vortices", arr, "an array of vortex objects");
    size_t i = 0;
    int rc = EDDY_OK;
    for (const cJSON *o = arr->child; o && !rc; o = o->next, ++i) {
        vortex v;
        rc = read_vortex(c, o, i, &v);
    }
    return rc;
}

size_t eddy_scene_vortex_count(const eddy_scene *scene)
{
    const cJSON *arr = scene ? scene_member(scene->root, "vortices") : NULL;
    return cJSON_IsArray(arr) ? (size_t)cJSON_GetArraySize(arr) : 0;
}

/* The vorticity of v at x (simulation units), added to w[3]. */
static void add_vortex(const vortex *v, const double x[3], double w[3])
{
    const double dx[3] = {x[0] - v->center[0], x[1] - v->center[1], x[2] - v->center[2]};
    if (v->kind == VORTEX_GAUSSIAN) {
        w[2] += eddy_scene_gaussian_vorticity(v->circulation, v->core, dx[0] * dx[0] + dx[1] * dx[1]);
        return;
    }
    const double *n = v->axis;
    const double z = dx[0] * n[0] + dx[1] * n[1] + dx[2] * n[2];
    const double r[3] = {dx[0] - z * n[0], dx[1] - z * n[1], dx[2] - z * n[2]};
    const double rho = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    /* On the axis the azimuth is undefined; the core (a < R) puts at most exp(-R^2 / a^2) of the peak
     * there, and a point has no area. */
    if (!(rho > 0)) return;
    const double om = eddy_scene_gaussian_vorticity(v->circulation, v->core, (rho - v->radius) * (rho - v->radius) + z * z);
    /* Along n x r / |r|: with G > 0 the fluid goes through the ring along +n, and the ring follows. */
    w[0] += om * (n[1] * r[2] - n[2] * r[1]) / rho;
    w[1] += om * (n[2] * r[0] - n[0] * r[2]) / rho;
    w[2] += om * (n[0] * r[1] - n[1] * r[0]) / rho;
}

/* The lattice cell s^d (simulation units) of the particle with whole-fill id `id`: its fluid block's,
 * found from the blocks' counts (particles are numbered block by block, scene_build.c); the
 * material's rest cell for an id past the fill. */
static double cell_of(const eddy_scene *s, const eddy_world *w, const double *first, uint64_t id, uint32_t material)
{
    const int d = s->dimensions;
    double spacing = material < w->material_count ? (double)w->materials[material].particle_dist : 0.0;
    for (size_t b = 0; b < s->fluid_count; ++b)
        if ((double)id < first[b + 1]) {
            const eddy_scene_fluid *f = &s->fluids[b];
            spacing = (double)w->materials[f->material].particle_dist * (double)f->spacing_factor;
            break;
        }
    return d == 2 ? spacing * spacing : spacing * spacing * spacing;
}

int eddy_scene_apply_vortices(const eddy_scene *scene, eddy_world *w, const char *solver, eddy_error *err)
{
    const cJSON *arr = scene ? scene_member(scene->root, "vortices") : NULL;
    if (!cJSON_IsArray(arr) || !arr->child || !w) return EDDY_OK;
    ctx c = scene_ctx(scene, err);
    const int f = eddy_particles_find_field(&w->particles, "vorticity");
    if (f < 0)
        return scene_fail(&c, "vortices", arr, AT_KEY,
                          "solver '%s' has no \"vorticity\" field to put the vortices on: initial vortices need a "
                          "vortex-particle solver (vpm_hybrid), or remove the key",
                          solver ? solver : "?");
    const size_t nv = (size_t)cJSON_GetArraySize(arr), nb = scene->fluid_count;
    vortex *v = calloc(nv, sizeof *v);
    double *first = calloc(nb + 1, sizeof *first);
    int rc = EDDY_OK;
    if (!v || !first) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    size_t i = 0;
    for (const cJSON *o = arr->child; o && !rc; o = o->next, ++i) rc = read_vortex(&c, o, i, &v[i]);
    if (rc) goto done;
    /* first[b]: the id of block b's first particle, counted as the fill counts (scene_build.c). */
    for (size_t b = 0; b < nb; ++b) {
        const eddy_scene_fluid *fl = &scene->fluids[b];
        int at_least = 0;
        const double count = fl->material >= 0 && (size_t)fl->material < w->material_count
                                 ? scene_fluid_count_at(scene, fl, (double)w->materials[fl->material].particle_dist,
                                                        &at_least)
                                 : 0.0;
        first[b + 1] = first[b] + count;
    }
    eddy_field_view pos = {.size = sizeof pos}, mass = {.size = sizeof mass}, om = {.size = sizeof om};
    if ((rc = eddy_world_map_field(w, EDDY_FIELD_POSITION, EDDY_MAP_READ, &pos, err))) goto done;
    if ((rc = eddy_world_map_field(w, EDDY_FIELD_MASS, EDDY_MAP_READ, &mass, err))) {
        eddy_world_unmap_field(w, &pos);
        goto done;
    }
    if ((rc = eddy_world_map_field(w, f, EDDY_MAP_WRITE, &om, err))) {
        eddy_world_unmap_field(w, &mass);
        eddy_world_unmap_field(w, &pos);
        goto done;
    }
    for (size_t k = 0; k < om.count; ++k) {
        const double x[3] = {pos.data[0][k], pos.data[1][k], pos.data[2][k]};
        double sum[3] = {0, 0, 0};
        for (size_t j = 0; j < nv; ++j) add_vortex(&v[j], x, sum);
        const uint32_t m = om.material[k];
        const double rho0 = m < w->material_count ? (double)w->materials[m].rest_density : 0.0;
        const double V = (double)mass.data[0][k] / rho0;
        /* The particle's circulation is its cell's, omega(x) s^d; the solver reads it as omega m / rho0. The
         * rest spacing makes the poly6 sum rho0, so m / rho0 is not s^d (1.5% less in 2D, 1% in 3D at h = 2
         * spacings), and the formula's omega on every particle would make each vortex that much too strong. */
        const double factor = V > 0 && isfinite(V) ? cell_of(scene, w, first, om.id[k], m) / V : 0.0;
        for (int a = 0; a < 3 && a < om.components; ++a) om.data[a][k] = (eddy_real)(sum[a] * factor);
    }
    eddy_world_unmap_field(w, &om);
    eddy_world_unmap_field(w, &mass);
    eddy_world_unmap_field(w, &pos);
done:
    free(v);
    free(first);
    return rc;
}
