/*
 * host/observe/probe_force.c — the built-in "force" and "moment" probes (probe_force.h): the force the
 * liquid's pressure exerts on one container wall or one collider, F = -∮ p n dA over its wetted surface,
 * and its moment about a point, M = ∮ (x - about) x (-p n) dA. Both are the same sum over the same
 * samples, fits and covered fractions; only the factor of -p dA at a sample differs (lever()), so a
 * moment divided by the force on the same surface is the centre of pressure of those very samples.
 *
 * Why a surface integral of the pressure field and not the momentum the wall's mirror ghosts give the
 * fluid: the probe is the same for every solver, reads only the frame (the particles' "pressure"
 * field), and needs no plugin to report its boundary terms. Why a linear moving-least-squares fit and
 * not the Shepard average the "pressure" probe takes: at a wall the particles lie on one side only, so
 * a Shepard average stands for the pressure at the centroid of their weights, about 0.3 h inside the
 * liquid, and under a hydrostatic column it reads rho g 0.3 h low; the linear fit reproduces any linear
 * field exactly (Belytschko et al. 1996, moving least squares of order one), so the hydrostatic floor
 * force is the weight of the column to within the solver's own pressure error.
 */
#include "probe_force.h"

#include "probe_params.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Samples per smoothing radius along each direction of a surface. */
#define SAMPLES_PER_H 4
/* The fit's radius R, in smoothing radii. At rest the solvers' pressure alternates from one particle
 * layer to the next near a wall (a user trial: 876 / 972 / 807 / 850 Pa up from a floor), and a line fitted
 * to the two layers within one smoothing radius extended that step to the wall: floors read 4-16% low,
 * a submerged disc's buoyancy came out with the wrong sign. Over the six layers within 3 h, weighted
 * (1 - r^2 / R^2), the same tanks read within 3% (tait) and 0.3% (sph_mueller), the disc within 1.2%; a
 * line through alternating layers still leaves about half their amplitude at the wall. */
#define FIT_RADIUS 3.0
/* A sphere (a circle in 2D) is measured at every one of its samples; past this many the probe is
 * refused at create(), where a flat face measures only its wetted part. */
#define SPHERE_SAMPLES_MAX 4000000.0

struct eddy_probe {
    int dimensions;
    int moment;          /* 0: the force; 1: its moment about `about` */
    float about[3];      /* world units, as the scene gives it (0 beyond the dimensions) */
    int axis, sign;      /* the component reported: sign * F[axis] (sign * M[axis]) */
    size_t collider;     /* index into world->boundaries.colliders */
    int one_material;    /* 0: every particle counts; 1: only those of `material` */
    uint32_t material;
    char unit[8];
};

/* ------------------------------------------------------------------------------------------------ */
/* Parameters                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

static const char *const WALLS[] = {"-x", "+x", "-y", "+y", "-z", "+z", NULL};

/* The surface the pressure acts on, the same two keys for the force and its moment. */
#define SURFACE_WALL_DESC                                                                                       \
    {.size = sizeof(eddy_param_desc), .id = "wall", .type = EDDY_PARAM_ENUM, .flags = EDDY_PARAM_DERIVED,       \
     .def = 0, .unit = "",                                                                                      \
     .doc = "The container's wall the pressure acts on: \"-y\" is its side at container.min[1] (the floor "      \
            "where gravity points along -y), \"+x\" its side at container.max[0]. Give this or `collider`.",     \
     .choices = WALLS}
#define SURFACE_COLLIDER_DESC                                                                                   \
    {.size = sizeof(eddy_param_desc), .id = "collider", .type = EDDY_PARAM_INT, .flags = EDDY_PARAM_DERIVED,    \
     .def = 0, .min = 0, .max = 1e9, .unit = "",                                                                \
     .doc = "Index of the collider the pressure acts on in the scene's `colliders` array (0: the first). Give "   \
            "this or `wall`."}

static const eddy_param_desc FORCE_PARAMS[] = {
    EDDY_PROBE_AXIS_DESC("Component of the force on the surface that is reported: x, y, z, or -x, -y, -z "
                         "(the weight on a floor, with gravity along -y, is \"-y\")."),
    SURFACE_WALL_DESC,
    SURFACE_COLLIDER_DESC,
    EDDY_PROBE_MATERIAL_DESC,
};

/* The surface keys as the force's, `about` and an axis that a 2D scene may leave out: there the moment
 * has only its z component, so the key could only ever say "z" (or "-z"). */
static const eddy_param_desc MOMENT_PARAMS[] = {
    EDDY_PROBE_POINT_DESC("about", "The point the moment is taken about (world units): [x, y] in 2D, [x, y, z] in "
                                   "3D. M / F, F a force probe's on the same surface, is the arm of the centre of "
                                   "pressure about it (a wall's about its foot: the height of that centre)."),
    {.size = sizeof(eddy_param_desc), .id = "axis", .type = EDDY_PARAM_ENUM, .flags = EDDY_PARAM_DERIVED,
     .def = 0, .unit = "",
     .doc = "Component of the moment vector M = integral of (x - about) x (-p n) dA over the surface that is "
            "reported: x, y, z, or -x, -y, -z (right-handed: \"z\" is counterclockwise seen from +z). Required "
            "in 3D; in 2D the moment has only a z component: \"z\" (the default) or \"-z\".",
     .choices = eddy_probe_axes},
    SURFACE_WALL_DESC,
    SURFACE_COLLIDER_DESC,
    EDDY_PROBE_MATERIAL_DESC,
};

/* The moment's `about` and `axis`. In 2D only z exists: "x" or "y" would be the component of a vector
 * that is 0 there by construction, which a scene asking for it cannot have meant. */
static int read_moment_keys(const eddy_probe_setup *s, eddy_probe *pr, eddy_error *err)
{
    int rc = eddy_probe_read_point(s, "about", pr->dimensions, pr->about, err);
    if (rc) return rc;
    const eddy_param_value *v = eddy_param_find_value(s->params, "axis");
    const char *t = v && v->is_set && v->string ? v->string : NULL;
    if (pr->dimensions == 3) {
        if (!t)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s.axis: missing, expected \"x\", \"y\", \"z\", \"-x\", \"-y\" or \"-z\" in "
                                  "3D: the component of the moment vector reported (only a 2D moment defaults "
                                  "to \"z\")",
                                  eddy_probe_context(s));
        return eddy_probe_read_axis(s, "axis", 3, &pr->axis, &pr->sign, err);
    }
    pr->axis = 2;
    pr->sign = 1;
    /* (read as a 3D axis, the one parser of signs and "+z"; anything but z refused in 2D's words) */
    if (t && (eddy_probe_read_axis(s, "axis", 3, &pr->axis, &pr->sign, err) || pr->axis != 2))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s.axis: expected \"z\" or \"-z\" (\"+z\" is \"z\"), got \"%s\": in 2D the pressure "
                              "forces and their lever arms lie in the x-y plane, so the moment has only a z "
                              "component",
                              eddy_probe_context(s), t);
    return EDDY_OK;
}

/* The index into w->boundaries.colliders of the container's wall `name` ("-x" ... "+z"). */
static int find_wall(const eddy_probe_setup *s, const char *name, eddy_probe *pr, eddy_error *err)
{
    const eddy_boundaries *b = &s->world->boundaries;
    const int axis = name[1] - 'x', side = name[0] == '+' ? -1 : 1; /* a wall's normal points inward */
    if (axis >= pr->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s.wall: expected %s, got \"%s\"",
                              eddy_probe_context(s),
                              pr->dimensions == 2 ? "\"-x\", \"+x\", \"-y\" or \"+y\""
                                                  : "\"-x\", \"+x\", \"-y\", \"+y\", \"-z\" or \"+z\"",
                              name);
    if (!b->has_container)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s.wall: the scene has no container, so no wall \"%s\"; name a collider instead",
                              eddy_probe_context(s), name);
    for (size_t c = 0; c < b->collider_count; ++c) {
        const eddy_collider *col = &b->colliders[c];
        if (col->is_container_wall && col->normal[axis] * side > 0) {
            pr->collider = c;
            return EDDY_OK;
        }
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                          "%s.wall: the container has no wall \"%s\": its %c axis is periodic", eddy_probe_context(s),
                          name, 'x' + axis);
}

/* The world index of the scene's colliders[index]: they follow the container's walls. */
static int find_collider(const eddy_probe_setup *s, int64_t index, eddy_probe *pr, eddy_error *err)
{
    const eddy_boundaries *b = &s->world->boundaries;
    size_t walls = 0;
    while (walls < b->collider_count && b->colliders[walls].is_container_wall) ++walls;
    const size_t count = b->collider_count - walls;
    if (index < 0 || (uint64_t)index >= count) {
        if (count == 0)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s.collider: got %lld, but the scene has no colliders%s", eddy_probe_context(s),
                                  (long long)index, b->has_container ? " (for a container wall give `wall`)" : "");
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "%s.collider: expected an index into the scene's %zu collider%s (0 to %zu), got %lld",
                              eddy_probe_context(s), count, count == 1 ? "" : "s", count - 1, (long long)index);
    }
    pr->collider = walls + (size_t)index;
    return EDDY_OK;
}

/* The number of samples of a sphere (a circle in 2D) of radius r at spacing ds. */
static double sphere_samples(int dimensions, double r, double ds)
{
    return ceil(dimensions == 2 ? 2 * M_PI * r / ds : 4 * M_PI * r * r / (ds * ds));
}

static int surface_create(const eddy_probe_setup *s, int moment, eddy_probe **out, eddy_error *err)
{
    *out = NULL;
    eddy_probe *pr = calloc(1, sizeof *pr);
    if (!pr) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    pr->dimensions = s->world->dimensions;
    pr->moment = moment;
    snprintf(pr->unit, sizeof pr->unit, "%s",
             moment ? (pr->dimensions == 2 ? "N m/m" : "N m") : (pr->dimensions == 2 ? "N/m" : "N"));
    const eddy_param_value *wall = eddy_param_find_value(s->params, "wall");
    const eddy_param_value *col = eddy_param_find_value(s->params, "collider");
    const int has_wall = wall && wall->is_set && wall->string, has_col = col && col->is_set;
    int rc = eddy_probe_read_material(s, &pr->one_material, &pr->material, err);
    if (!rc)
        rc = moment ? read_moment_keys(s, pr, err)
                    : eddy_probe_read_axis(s, "axis", pr->dimensions, &pr->axis, &pr->sign, err);
    if (!rc && has_wall == has_col)
        rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                            has_wall ? "%s: expected `wall` or `collider`, got both"
                                     : "%s: expected the surface the %s: `wall` (a container side, "
                                       "\"-y\" for the floor) or `collider` (an index into the scene's colliders)",
                            eddy_probe_context(s), moment ? "moment is taken of" : "force acts on");
    if (!rc) rc = has_wall ? find_wall(s, wall->string, pr, err) : find_collider(s, col->integer, pr, err);
    if (!rc) {
        const eddy_collider *c = &s->world->boundaries.colliders[pr->collider];
        const double ds = (double)s->world->smoothing_radius / SAMPLES_PER_H;
        const double n = c->shape == EDDY_SHAPE_SPHERE ? sphere_samples(pr->dimensions, c->radius, ds) : 0;
        if (n > SPHERE_SAMPLES_MAX)
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "%s.collider: a sphere of radius %g is %.3g samples at a quarter of the smoothing "
                                "radius apart; the %s probe measures spheres of up to %.0f",
                                eddy_probe_context(s), (double)c->radius / s->world->simulation_scale, n,
                                moment ? "moment" : "force", SPHERE_SAMPLES_MAX);
    }
    if (rc) {
        free(pr);
        return rc;
    }
    *out = pr;
    return EDDY_OK;
}

static int force_create(const eddy_probe_setup *s, eddy_probe **out, eddy_error *err)
{
    return surface_create(s, 0, out, err);
}

static int moment_create(const eddy_probe_setup *s, eddy_probe **out, eddy_error *err)
{
    return surface_create(s, 1, out, err);
}

static void force_destroy(eddy_probe *pr)
{
    free(pr);
}

static const char *force_unit(const eddy_probe *pr)
{
    return pr->unit;
}

/* ------------------------------------------------------------------------------------------------ */
/* The liquid near the surface                                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* A particle within R of the surface (the fit's radius, `h` below), in a cell of side R; k is its rank
 * in id order, so that sorting by (cell, k) orders the particles the same whatever order storage holds
 * them in. */
typedef struct near_particle {
    int32_t cell[3];
    uint32_t k;
    double x[3], pressure, volume;
} near_particle;

static int near_order(const void *pa, const void *pb)
{
    const near_particle *a = pa, *b = pb;
    for (int d = 0; d < 3; ++d)
        if (a->cell[d] != b->cell[d]) return a->cell[d] < b->cell[d] ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

static int32_t cell_of(double x, double h)
{
    const double c = floor(x / h);
    return c < -1e9 ? -1000000000 : c > 1e9 ? 1000000000 : (int32_t)c;
}

typedef struct liquid {
    near_particle *p;
    size_t count;
    double h;            /* the fit's radius, FIT_RADIUS smoothing radii (sim units) */
    double step;         /* the samples' spacing, a quarter of the smoothing radius (sim units) */
    int dimensions;
} liquid;

/* The particles the probe counts within R of the collider (either side: one pushed into the solid
 * still carries its pressure), sorted by cell. */
static int gather_liquid(const eddy_probe *pr, const eddy_frame *fr, const eddy_collider *col, liquid *out,
                         eddy_error *err)
{
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const double h = FIT_RADIUS * (double)w->smoothing_radius;
    const int d = w->dimensions;
    size_t cap = 0, n = 0;
    near_particle *list = NULL;
    for (size_t o = 0; o < fr->count; ++o) {
        const size_t i = fr->order[o];
        if (pr->one_material && p->material[i] != pr->material) continue;
        const eddy_real x[3] = {p->x[i], p->y[i], d == 3 ? p->z[i] : 0.0f};
        const double dist = (double)eddy_collider_distance(col, d, x, NULL);
        if (!(fabs(dist) < h)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            near_particle *grown = realloc(list, cap * sizeof *grown);
            if (!grown) {
                free(list);
                return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY,
                                      "out of memory measuring a force (%zu particles near the surface)", n);
            }
            list = grown;
        }
        near_particle *q = &list[n++];
        double rho = p->density[i];
        if (!(rho > 0) || !isfinite(rho)) rho = w->materials[p->material[i]].rest_density;
        *q = (near_particle){.k = (uint32_t)o, .x = {x[0], x[1], x[2]}, .pressure = p->pressure[i],
                             .volume = (double)p->mass[i] / rho};
        for (int a = 0; a < 3; ++a) q->cell[a] = a < d ? cell_of(q->x[a], h) : 0;
    }
    if (n > 1) qsort(list, n, sizeof *list, near_order);
    *out = (liquid){list, n, h, (double)w->smoothing_radius / SAMPLES_PER_H, d};
    return EDDY_OK;
}

/* The first particle of `cell` or later in the sorted list. */
static size_t lower_bound(const liquid *l, const int32_t cell[3])
{
    size_t lo = 0, hi = l->count;
    const near_particle key = {.cell = {cell[0], cell[1], cell[2]}, .k = 0};
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (near_order(&l->p[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* ------------------------------------------------------------------------------------------------ */
/* The pressure on the surface                                                                       */
/* ------------------------------------------------------------------------------------------------ */

/* Solves the n x n system a x = b (n <= 4) by elimination with partial pivoting, in place; 0 where a
 * pivot falls below tol (the particles do not span the dimensions: a line of them in 2D). */
static int solve(int n, double a[4][4], double b[4], double tol)
{
    for (int c = 0; c < n; ++c) {
        int piv = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(a[r][c]) > fabs(a[piv][c])) piv = r;
        if (!(fabs(a[piv][c]) > tol)) return 0;
        if (piv != c) {
            for (int k = 0; k < n; ++k) {
                const double t = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = t;
            }
            const double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (int r = c + 1; r < n; ++r) {
            const double f = a[r][c] / a[c][c];
            for (int k = c; k < n; ++k) a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        double s = b[r];
        for (int k = r + 1; k < n; ++k) s -= a[r][k] * b[k];
        b[r] = s / a[r][r];
    }
    return 1;
}

/*
 * The pressure at surface point s, whose outward normal (out of the solid, into the liquid) is n: the
 * value at s of the linear least-squares fit p(x) = c0 + c . (x - s) to the particles within R of s on
 * the liquid's side of the tangent plane, weighted by V_j (1 - r^2 / R^2) (FIT_RADIUS: why so wide and so
 * even); Shepard's weighted mean where they do not span the dimensions. A one-sided fit extrapolates, so the value is
 * kept within the particles' range widened by that range on both sides (which a linear field over a
 * stencil deeper than the distance to the surface never leaves, and a noisy splash cannot pass), and of
 * no other sign than some particle's: above a free surface the fit of a hydrostatic column goes on
 * falling below 0, a tension no particle carries, which would take rho g h^2 / 2 off a side wall. 0
 * where no particle is near: a dry surface, under the ambient (gauge) pressure the solvers' fields are
 * relative to.
 */
static double surface_pressure(const liquid *l, const double s[3], const double n[3])
{
    const int d = l->dimensions, m = d + 1;
    const double h = l->h, h2 = h * h;
    double a[4][4] = {{0}}, b[4] = {0}, pmin = INFINITY, pmax = -INFINITY;
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int ax = 0; ax < d; ++ax) {
        lo[ax] = cell_of(s[ax] - h, h);
        hi[ax] = cell_of(s[ax] + h, h);
    }
    size_t found = 0;
    int32_t c[3];
    for (c[0] = lo[0]; c[0] <= hi[0]; ++c[0])
        for (c[1] = lo[1]; c[1] <= hi[1]; ++c[1])
            for (c[2] = lo[2]; c[2] <= hi[2]; ++c[2])
                for (size_t j = lower_bound(l, c); j < l->count; ++j) {
                    const near_particle *q = &l->p[j];
                    if (q->cell[0] != c[0] || q->cell[1] != c[1] || q->cell[2] != c[2]) break;
                    double xi[3] = {0, 0, 0}, r2 = 0, side = 0;
                    for (int ax = 0; ax < d; ++ax) {
                        const double dx = q->x[ax] - s[ax];
                        xi[ax] = dx / h;
                        r2 += dx * dx;
                        side += dx * n[ax];
                    }
                    if (!(r2 < h2) || side < 0) continue;
                    const double u = 1.0 - r2 / h2, wgt = q->volume * u;
                    const double basis[4] = {1.0, xi[0], xi[1], xi[2]};
                    for (int r = 0; r < m; ++r) {
                        for (int k = 0; k < m; ++k) a[r][k] += wgt * basis[r] * basis[k];
                        b[r] += wgt * basis[r] * q->pressure;
                    }
                    if (q->pressure < pmin) pmin = q->pressure;
                    if (q->pressure > pmax) pmax = q->pressure;
                    ++found;
                }
    if (found == 0 || !(a[0][0] > 0)) return 0.0;
    const double shepard = b[0] / a[0][0];
    if (!isfinite(shepard)) return shepard; /* a NaN pressure: the run's, reported, not hidden */
    if (!solve(m, a, b, 1e-8 * a[0][0])) return shepard;
    const double spread = pmax - pmin;
    const double lowest = pmin >= 0 ? fmax(pmin - spread, 0.0) : pmin - spread;
    const double highest = pmax <= 0 ? fmin(pmax + spread, 0.0) : pmax + spread;
    return fmin(fmax(b[0], lowest), highest);
}

/* ------------------------------------------------------------------------------------------------ */
/* Samples of the surface                                                                            */
/* ------------------------------------------------------------------------------------------------ */

typedef struct integral {
    const eddy_boundaries *bounds;
    size_t self;         /* the collider measured */
    const liquid *l;
    int axis;
    int moment;          /* 0: the force's terms; 1: the moment's about `about` */
    double about[3];     /* simulation units */
    double sum;          /* sum over samples of -p lever(s, n) dA, simulation units */
} integral;

/* The factor of -p dA at sample s of normal n in the sum's component: n[axis] for the force, the lever
 * arm crossed with n, ((s - about) x n)[axis], for its moment. The force's is the very n[axis] it always
 * multiplied, so its sums keep their bits. */
static double lever(const integral *in, const double s[3], const double n[3])
{
    if (!in->moment) return n[in->axis];
    const double r[3] = {s[0] - in->about[0], s[1] - in->about[1], s[2] - in->about[2]};
    const int a = in->axis, b = (a + 1) % 3, c = (a + 2) % 3;
    return r[b] * n[c] - r[c] * n[b];
}

/* The least signed distance from s to the other solids (+inf without any): below 0, s lies inside one
 * (the container's outside, a box resting on the floor), where no liquid wets the surface but the
 * liquid beside that solid would be extrapolated onto it. */
static double clearance(const integral *in, const double s[3])
{
    const eddy_real x[3] = {(eddy_real)s[0], (eddy_real)s[1], (eddy_real)s[2]};
    double least = INFINITY;
    for (size_t c = 0; c < in->bounds->collider_count; ++c)
        if (c != in->self) {
            const double dist = (double)eddy_collider_distance(&in->bounds->colliders[c], in->l->dimensions, x, NULL);
            if (dist < least) least = dist;
        }
    return least;
}

/* The part of a flat sample's cell (centre s, half-extents half[t] along tangents t[t]) that no other
 * solid covers, 0 to 1. Where a solid's surface crosses the cell, the midpoint alone would count the
 * whole cell or none of it, an error of up to half a cell times the pressure at every such edge (1% of
 * a side wall in tests/observe's tilted plane); SUBCELLS points per tangent then share it. */
#define SUBCELLS 16
static double uncovered_part(const integral *in, const double s[3], int tangents, const double t[2][3],
                             const double half[2])
{
    const double reach = sqrt(half[0] * half[0] + half[1] * half[1]), inside = -1e-4 * in->l->h;
    const double at_centre = clearance(in, s);
    if (at_centre >= reach) return 1.0;
    if (at_centre < -reach) return 0.0;
    int open = 0, all = 0;
    for (int a = 0; a < SUBCELLS; ++a)
        for (int b = 0; b < (tangents == 2 ? SUBCELLS : 1); ++b) {
            const double u[2] = {((a + 0.5) / SUBCELLS * 2 - 1) * half[0],
                                 tangents == 2 ? ((b + 0.5) / SUBCELLS * 2 - 1) * half[1] : 0.0};
            double x[3];
            for (int k = 0; k < 3; ++k) x[k] = s[k] + u[0] * t[0][k] + u[1] * t[1][k];
            open += clearance(in, x) >= inside;
            ++all;
        }
    return (double)open / all;
}

/*
 * A flat piece of surface: origin o, outward normal n, tangents t[0] (t[1] in 3D), and along each
 * tangent `count` samples `step` apart from o (0: unbounded, the plane of a plane collider). Only the
 * samples near a particle near the plane are visited: blocks of SAMPLES_PER_H samples per tangent,
 * those holding such a particle and as many neighbours as reach the fit's radius (a step shortened
 * to divide a face exactly makes a block narrower than h), so that a large face costs its wetted part.
 * Midpoint rule: each sample stands for step[0] * step[1] (step[0] in 2D).
 */
typedef struct flat {
    double o[3], n[3], t[2][3], step[2];
    int64_t count[2];
} flat;

static int block_order(const void *pa, const void *pb)
{
    const int64_t *a = pa, *b = pb;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

static int integrate_flat(integral *in, const flat *f, eddy_error *err)
{
    const liquid *l = in->l;
    const int d = l->dimensions, tangents = d - 1;
    const double h = l->h;
    int reach[2] = {0, 0};
    for (int t = 0; t < tangents; ++t) {
        /* (no further than the face's own blocks: a narrow face's step is tiny, its blocks few) */
        double r = ceil(h / (SAMPLES_PER_H * f->step[t]));
        if (f->count[t]) r = fmin(r, ceil((double)f->count[t] / SAMPLES_PER_H) + 1);
        reach[t] = (int)r;
    }
    const size_t per_particle = (size_t)(2 * reach[0] + 1) * (size_t)(2 * reach[1] + 1);
    int64_t (*blocks)[2] = malloc((l->count * per_particle + 1) * sizeof *blocks);
    if (!blocks) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring a force");
    size_t nb = 0;
    for (size_t j = 0; j < l->count; ++j) {
        double r[3], dn = 0, u[2] = {0, 0};
        for (int ax = 0; ax < 3; ++ax) r[ax] = l->p[j].x[ax] - f->o[ax];
        for (int ax = 0; ax < d; ++ax) dn += r[ax] * f->n[ax];
        if (!(fabs(dn) < h)) continue;
        int64_t b[2] = {0, 0};
        int outside = 0;
        for (int t = 0; t < tangents; ++t) {
            for (int ax = 0; ax < d; ++ax) u[t] += r[ax] * f->t[t][ax];
            const double block = SAMPLES_PER_H * f->step[t];
            if (f->count[t] && (u[t] < -h || u[t] > f->count[t] * f->step[t] + h)) outside = 1;
            const double k = floor(u[t] / block);
            b[t] = k < -4e15 ? (int64_t)-4e15 : k > 4e15 ? (int64_t)4e15 : (int64_t)k;
        }
        if (outside) continue;
        for (int i0 = -reach[0]; i0 <= reach[0]; ++i0)
            for (int i1 = -reach[1]; i1 <= reach[1]; ++i1) {
                blocks[nb][0] = b[0] + i0;
                blocks[nb][1] = b[1] + i1;
                ++nb;
            }
    }
    qsort(blocks, nb, sizeof *blocks, block_order);
    /* The samples of the distinct blocks in order, then their terms in parallel (each its own), summed
     * in that order: the same bits for any number of threads. */
    const size_t per_block = SAMPLES_PER_H * (tangents == 2 ? SAMPLES_PER_H : 1);
    size_t distinct = nb ? 1 : 0;
    for (size_t k = 1; k < nb; ++k)
        if (blocks[k][0] != blocks[distinct - 1][0] || blocks[k][1] != blocks[distinct - 1][1]) {
            blocks[distinct][0] = blocks[k][0];
            blocks[distinct][1] = blocks[k][1];
            ++distinct;
        }
    double *term = malloc((distinct * per_block + 1) * sizeof *term);
    if (!term) {
        free(blocks);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring a force");
    }
    const double area = tangents == 2 ? f->step[0] * f->step[1] : f->step[0];
    const double half[2] = {0.5 * f->step[0], tangents == 2 ? 0.5 * f->step[1] : 0.0};
    const long long total = (long long)(distinct * per_block);
#pragma omp parallel for schedule(dynamic, 64)
    for (long long z = 0; z < total; ++z) {
        const size_t k = (size_t)z / per_block, q = (size_t)z % per_block;
        const int64_t i[2] = {blocks[k][0] * SAMPLES_PER_H + (int64_t)(q / (tangents == 2 ? SAMPLES_PER_H : 1)),
                              blocks[k][1] * SAMPLES_PER_H + (int64_t)(tangents == 2 ? q % SAMPLES_PER_H : 0)};
        term[z] = 0.0;
        int skip = 0;
        for (int t = 0; t < tangents; ++t)
            if (f->count[t] && (i[t] < 0 || i[t] >= f->count[t])) skip = 1;
        if (skip) continue;
        double s[3];
        for (int ax = 0; ax < 3; ++ax) {
            s[ax] = f->o[ax];
            for (int t = 0; t < tangents; ++t) s[ax] += ((double)i[t] + 0.5) * f->step[t] * f->t[t][ax];
        }
        const double p = surface_pressure(l, s, f->n);
        if (p == 0.0) continue;
        const double part = uncovered_part(in, s, tangents, f->t, half);
        if (part > 0) term[z] = -p * lever(in, s, f->n) * area * part;
    }
    for (long long z = 0; z < total; ++z) in->sum += term[z];
    free(term);
    free(blocks);
    return EDDY_OK;
}

/* The axis-aligned rectangle of a box face or a container wall: the side `side` (-1 low, +1 high) of
 * axis a, over [lo, hi] on the other axes, outward normal n_out = side... as the caller gives. */
static flat axis_face(int d, int a, double at, double out_sign, const double lo[3], const double hi[3], double ds)
{
    flat f;
    memset(&f, 0, sizeof f);
    f.o[a] = at;
    f.n[a] = out_sign;
    int t = 0;
    for (int b = 0; b < d; ++b) {
        if (b == a) continue;
        f.o[b] = lo[b];
        f.t[t][b] = 1.0;
        const double len = hi[b] - lo[b];
        f.count[t] = (int64_t)fmax(1.0, ceil(len / ds * (1 - 1e-12)));
        f.step[t] = len / (double)f.count[t];
        ++t;
    }
    return f;
}

/* An orthonormal tangent basis of the plane with unit normal n. */
static void plane_tangents(int d, const double n[3], double t[2][3])
{
    memset(t, 0, 2 * 3 * sizeof(double));
    if (d == 2) {
        t[0][0] = -n[1];
        t[0][1] = n[0];
        return;
    }
    /* Crossed with the axis least aligned with n, then n x t0. */
    int least = 0;
    for (int a = 1; a < 3; ++a)
        if (fabs(n[a]) < fabs(n[least])) least = a;
    double e[3] = {0, 0, 0};
    e[least] = 1.0;
    double c[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2], n[0] * e[1] - n[1] * e[0]};
    const double len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    for (int a = 0; a < 3; ++a) t[0][a] = c[a] / len;
    t[1][0] = n[1] * t[0][2] - n[2] * t[0][1];
    t[1][1] = n[2] * t[0][0] - n[0] * t[0][2];
    t[1][2] = n[0] * t[0][1] - n[1] * t[0][0];
}

static int integrate_collider(integral *in, const eddy_collider *col, eddy_error *err)
{
    const eddy_boundaries *b = in->bounds;
    const int d = in->l->dimensions;
    const double ds = in->l->step;
    if (col->shape == EDDY_SHAPE_PLANE && col->is_container_wall) {
        int a = 0;
        for (int k = 0; k < d; ++k)
            if (col->normal[k] != 0) a = k;
        double lo[3], hi[3];
        for (int k = 0; k < 3; ++k) {
            lo[k] = b->container_min[k];
            hi[k] = b->container_max[k];
        }
        const flat f = axis_face(d, a, col->point[a], col->normal[a] > 0 ? 1.0 : -1.0, lo, hi, ds);
        return integrate_flat(in, &f, err);
    }
    if (col->shape == EDDY_SHAPE_PLANE) {
        flat f;
        memset(&f, 0, sizeof f);
        for (int k = 0; k < 3; ++k) {
            f.o[k] = col->point[k];
            f.n[k] = k < d ? col->normal[k] : 0.0;
        }
        plane_tangents(d, f.n, f.t);
        f.step[0] = f.step[1] = ds;
        return integrate_flat(in, &f, err);
    }
    if (col->shape == EDDY_SHAPE_BOX) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; ++k) {
            lo[k] = col->min[k];
            hi[k] = col->max[k];
        }
        for (int a = 0; a < d; ++a)
            for (int side = 0; side < 2; ++side) {
                const flat f = axis_face(d, a, side ? hi[a] : lo[a], side ? 1.0 : -1.0, lo, hi, ds);
                int rc = integrate_flat(in, &f, err);
                if (rc) return rc;
            }
        return EDDY_OK;
    }
    if (col->shape == EDDY_SHAPE_SPHERE) {
        /* Equal-area samples: a circle's at equal angles; a sphere's on the Fibonacci lattice (equal
         * bands in z, the golden angle apart in longitude). */
        const double r = col->radius, n = sphere_samples(d, r, ds);
        const double area = (d == 2 ? 2 * M_PI * r : 4 * M_PI * r * r) / n;
        const double golden = M_PI * (3.0 - sqrt(5.0));
        const long long count = (long long)n;
        double *term = malloc(((size_t)count + 1) * sizeof *term);
        if (!term) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring a force");
#pragma omp parallel for schedule(dynamic, 64)
        for (long long k = 0; k < count; ++k) {
            double u[3];
            if (d == 2) {
                const double th = 2 * M_PI * ((double)k + 0.5) / n;
                u[0] = cos(th);
                u[1] = sin(th);
                u[2] = 0.0;
            } else {
                const double z = 1.0 - (2.0 * (double)k + 1.0) / n, ring = sqrt(fmax(0.0, 1.0 - z * z));
                u[0] = ring * cos(golden * (double)k);
                u[1] = ring * sin(golden * (double)k);
                u[2] = z;
            }
            const double s[3] = {col->center[0] + r * u[0], col->center[1] + r * u[1],
                                 d == 3 ? col->center[2] + r * u[2] : 0.0};
            /* (a sample of a sphere counts whole or not at all: its cell is not flat) */
            const double p = surface_pressure(in->l, s, u);
            term[k] = p != 0.0 && clearance(in, s) >= -1e-4 * in->l->h ? -p * lever(in, s, u) * area : 0.0;
        }
        for (long long k = 0; k < count; ++k) in->sum += term[k];
        free(term);
        return EDDY_OK;
    }
    return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s probe: collider of unknown shape %d",
                          in->moment ? "moment" : "force", (int)col->shape);
}

static int force_measure(eddy_probe *pr, const eddy_frame *fr, double *value, eddy_error *err)
{
    const eddy_world *w = fr->world;
    if (w->dimensions != pr->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "probe created for a %dD world measures a %dD one",
                              pr->dimensions, w->dimensions);
    if (pr->collider >= w->boundaries.collider_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s probe: the world has %zu colliders, not %zu",
                              pr->moment ? "moment" : "force", w->boundaries.collider_count, pr->collider + 1);
    const eddy_collider *col = &w->boundaries.colliders[pr->collider];
    liquid l;
    int rc = gather_liquid(pr, fr, col, &l, err);
    if (rc) return rc;
    const double scale = (double)w->simulation_scale;
    integral in = {&w->boundaries, pr->collider, &l, pr->axis, pr->moment,
                   {pr->about[0] * scale, pr->about[1] * scale, pr->about[2] * scale}, 0.0};
    rc = integrate_collider(&in, col, err);
    free(l.p);
    if (rc) return rc;
    /* Simulation-unit area to world units: a length scales by simulation_scale, and a moment has one
     * more, its lever arm. */
    const double per_area = pow(scale, w->dimensions - 1 + pr->moment);
    *value = pr->sign * in.sum / per_area + 0.0;
    return EDDY_OK;
}

static const eddy_probe_vtable FORCE_VTABLE = {.size = sizeof(eddy_probe_vtable), .create = force_create,
                                               .measure = force_measure, .unit = force_unit,
                                               .destroy = force_destroy};

const eddy_component eddy_probe_force_component = {
    .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_PROBE, .id = "force", .version = "2.0.0",
    .description = "force of the liquid's pressure on a container wall or a collider (N; N/m in 2D)",
    .params = FORCE_PARAMS, .param_count = sizeof FORCE_PARAMS / sizeof FORCE_PARAMS[0],
    .vtable = &FORCE_VTABLE, .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES};

static const eddy_probe_vtable MOMENT_VTABLE = {.size = sizeof(eddy_probe_vtable), .create = moment_create,
                                                .measure = force_measure, .unit = force_unit,
                                                .destroy = force_destroy};

const eddy_component eddy_probe_moment_component = {
    .size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_PROBE, .id = "moment", .version = "2.0.0",
    .description = "moment of the liquid's pressure on a container wall or a collider about a point (N m; N m/m "
                   "in 2D)",
    .params = MOMENT_PARAMS, .param_count = sizeof MOMENT_PARAMS / sizeof MOMENT_PARAMS[0],
    .vtable = &MOMENT_VTABLE, .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES};
