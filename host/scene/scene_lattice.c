/*
 * host/scene/scene_lattice.c — the lattices the fluid blocks are filled on, shared by counting (the
 * scene's particle counts, the 2^32 cap) and filling (scene_build.c), so both always agree.
 *
 * Depends on: scene.h (the fluid blocks), the core's eddy_rest_spacing.
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LATTICE_EPS 1e-4   /* per-axis count n = floor(extent / spacing + LATTICE_EPS) */

/* Returns 0, or -1 when the lattice is too large to count. */
int scene_lattice_setup(const eddy_scene *s, const eddy_scene_fluid *f, double particle_dist,
                        lattice *L)
{
    memset(L, 0, sizeof *L);
    const double scale = s->simulation_scale;
    L->dims = s->dimensions;
    L->spacing = particle_dist * (double)f->spacing_factor;
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        if (f->shape == EDDY_FLUID_SPHERE) {
            lo[a] = ((double)f->center[a] - (double)f->radius) * scale;
            hi[a] = ((double)f->center[a] + (double)f->radius) * scale;
            L->center[a] = (double)f->center[a] * scale;
        } else {
            lo[a] = (double)f->min[a] * scale;
            hi[a] = (double)f->max[a] * scale;
        }
    }
    L->sphere = f->shape == EDDY_FLUID_SPHERE;
    L->r2 = ((double)f->radius * scale) * ((double)f->radius * scale);
    if (!(L->spacing > 0) || !isfinite(L->spacing)) return -1;
    double total = 1.0;
    for (int a = 0; a < 3; ++a) {
        L->origin[a] = lo[a];
        if (a >= L->dims) { L->n[a] = 1; L->origin[a] = 0.0; continue; }
        double n = floor((hi[a] - lo[a]) / L->spacing + LATTICE_EPS);
        if (!(n >= 0)) n = 0;
        if (n > 4.0e9) return -1;
        L->n[a] = (uint64_t)n;
        total *= n;
    }
    if (total > 1.0e15) return -1;
    return 0;
}

static uint64_t lattice_cells(const lattice *L)
{
    return L->n[0] * L->n[1] * L->n[2];
}

/* Position of lattice point (ix, iy, iz), sim units; z = 0 in 2D. */
static void lattice_point(const lattice *L, uint64_t ix, uint64_t iy, uint64_t iz, double p[3])
{
    p[0] = L->origin[0] + ((double)ix + 0.5) * L->spacing;
    p[1] = L->origin[1] + ((double)iy + 0.5) * L->spacing;
    p[2] = L->dims == 3 ? L->origin[2] + ((double)iz + 0.5) * L->spacing : 0.0;
}

/* Whether a lattice point is filled: every point of a box, the points of a sphere within its radius. */
static int lattice_inside(const lattice *L, const double p[3])
{
    if (!L->sphere) return 1;
    double r2 = 0.0;
    for (int a = 0; a < L->dims; ++a) r2 += (p[a] - L->center[a]) * (p[a] - L->center[a]);
    return !(r2 > L->r2);
}

/* Emits up to `max` points from lattice index *cursor on (x fastest); positions (3 floats each) when
 * pos is not NULL. Returns how many were emitted. */
size_t scene_lattice_emit(const lattice *L, uint64_t *cursor, eddy_real *pos, size_t max)
{
    const uint64_t total = lattice_cells(L);
    size_t k = 0;
    while (*cursor < total && k < max) {
        uint64_t idx = (*cursor)++;
        uint64_t ix = idx % L->n[0], rest = idx / L->n[0];
        uint64_t iy = rest % L->n[1], iz = rest / L->n[1];
        double p[3];
        lattice_point(L, ix, iy, iz, p);
        if (!lattice_inside(L, p)) continue;
        if (pos) {
            pos[3 * k + 0] = (eddy_real)p[0];
            pos[3 * k + 1] = (eddy_real)p[1];
            pos[3 * k + 2] = (eddy_real)p[2];
        }
        ++k;
    }
    return k;
}

/* ------------------------------------------------------------------------------------------------ */
/* One process's piece of the fill (scene_fill.c): the same points, visited plane by plane.          */

void scene_lattice_point(const lattice *L, uint64_t ix, uint64_t iy, uint64_t iz, eddy_real out[3])
{
    double p[3];
    lattice_point(L, ix, iy, iz, p);
    for (int a = 0; a < 3; ++a) out[a] = (eddy_real)p[a];
}

int scene_lattice_keeps(const lattice *L, uint64_t ix, uint64_t iy, uint64_t iz)
{
    double p[3];
    lattice_point(L, ix, iy, iz, p);
    return lattice_inside(L, p);
}

eddy_real scene_lattice_coord(const lattice *L, int axis, uint64_t i)
{
    eddy_real p[3];
    scene_lattice_point(L, axis == 0 ? i : 0, axis == 1 ? i : 0, axis == 2 ? i : 0, p);
    return p[axis];
}

void scene_lattice_plane_counts(const lattice *L, int axis, uint64_t *counts)
{
    const uint64_t planes = L->n[axis];
    if (!L->sphere) {
        /* A box: every plane holds the product of the other two counts. */
        const uint64_t per = L->n[0] * L->n[1] * L->n[2] / (planes ? planes : 1);
        for (uint64_t i = 0; i < planes; ++i) counts[i] = per;
        return;
    }
    /* A sphere: every point through scene_lattice_emit's own test, so the counts are the fill's. */
    for (uint64_t i = 0; i < planes; ++i) counts[i] = 0;
    for (uint64_t iz = 0; iz < L->n[2]; ++iz)
        for (uint64_t iy = 0; iy < L->n[1]; ++iy)
            for (uint64_t ix = 0; ix < L->n[0]; ++ix)
                if (scene_lattice_keeps(L, ix, iy, iz)) counts[axis == 0 ? ix : axis == 1 ? iy : iz]++;
}

/* particle_dist as eddy_world_add_material derives it (same float arithmetic). */
eddy_real scene_material_dist(const eddy_material *m, eddy_real smoothing_radius, int dimensions)
{
    return eddy_rest_spacing(m->particle_mass, m->rest_density, smoothing_radius, dimensions);
}

/* Whether lattice point (ix, iy, iz) is emitted: exactly scene_lattice_emit's test. */
static int lattice_keeps(const lattice *L, uint64_t ix, uint64_t iy, uint64_t iz)
{
    double p[3];
    lattice_point(L, ix, iy, iz, p);
    return lattice_inside(L, p);
}

/* Points scene_lattice_emit keeps in row (iy, iz). Along a row the distance to the centre falls and then
 * rises (rounding keeps it monotone on each side), so the kept points are one run: found from the
 * point nearest the centre, with the circle's chord as the first guess of each end. */
static uint64_t sphere_row_count(const lattice *L, uint64_t iy, uint64_t iz)
{
    const uint64_t n = L->n[0];
    if (n == 0) return 0;
    const double fc = (L->center[0] - L->origin[0]) / L->spacing - 0.5; /* centre in index units */
    double nearest = floor(fc);
    uint64_t start = UINT64_MAX;
    for (int k = -1; k < 3 && start == UINT64_MAX; ++k) { /* the nearest, whatever the rounding of fc */
        double x = nearest + k;
        if (x < 0) x = 0;
        if (x > (double)(n - 1)) x = (double)(n - 1);
        if (lattice_keeps(L, (uint64_t)x, iy, iz)) start = (uint64_t)x;
    }
    if (start == UINT64_MAX) return 0;
    double dy = L->origin[1] + ((double)iy + 0.5) * L->spacing - L->center[1];
    double dz = L->dims == 3 ? L->origin[2] + ((double)iz + 0.5) * L->spacing - L->center[2] : 0.0;
    double chord2 = L->r2 - dy * dy - dz * dz;
    double half = chord2 > 0 ? sqrt(chord2) / L->spacing : 0.0;
    /* right end */
    double guess = floor(fc + half);
    uint64_t hi = guess <= (double)start ? start : guess >= (double)(n - 1) ? n - 1 : (uint64_t)guess;
    while (hi > start && !lattice_keeps(L, hi, iy, iz)) --hi;
    while (hi + 1 < n && lattice_keeps(L, hi + 1, iy, iz)) ++hi;
    /* left end */
    guess = ceil(fc - half);
    uint64_t lo = guess >= (double)start ? start : guess <= 0 ? 0 : (uint64_t)guess;
    while (lo < start && !lattice_keeps(L, lo, iy, iz)) ++lo;
    while (lo > 0 && lattice_keeps(L, lo - 1, iy, iz)) --lo;
    return hi - lo + 1;
}

/*
 * Particles of one fluid block on a lattice of material spacing `dist`, as a double: exact, or, with
 * *at_least set, a lower bound that already exceeds the 2^32 particle cap (counting stops there). A
 * box is a product; a sphere is counted row by row, after a lower bound from its volume has ruled out
 * a count above the cap, so no count ever walks more than about (2^32)^((d-1)/d) rows.
 */
double scene_fluid_count_at(const eddy_scene *s, const eddy_scene_fluid *f, double dist, int *at_least)
{
    *at_least = 0;
    lattice L;
    if (scene_lattice_setup(s, f, dist, &L)) {
        *at_least = 1;
        return INFINITY;
    }
    double cells = (double)L.n[0] * (double)L.n[1] * (double)L.n[2];
    if (!L.sphere || cells == 0) return cells;
    /* Every point of the ball of radius R - (sqrt(d) / 2 + 1.01) spacing lies in the cell of a kept
     * lattice point (the lattice may stop up to one spacing short of the box's far faces). */
    const int d = L.dims;
    double inner = sqrt(L.r2) / L.spacing - (sqrt((double)d) / 2.0 + 1.01);
    if (inner > 0) {
        double lower = d == 2 ? M_PI * inner * inner : 4.0 / 3.0 * M_PI * inner * inner * inner;
        if (lower > (double)UINT32_MAX) {
            *at_least = 1;
            return floor(lower);
        }
    }
    uint64_t total = 0;
    for (uint64_t iz = 0; iz < L.n[2]; ++iz)
        for (uint64_t iy = 0; iy < L.n[1]; ++iy) total += sphere_row_count(&L, iy, iz);
    return (double)total;
}

static size_t fluid_count(const eddy_scene *s, const eddy_scene_fluid *f)
{
    if (f->material < 0 || (size_t)f->material >= s->material_count) return 0;
    int at_least;
    double n = scene_fluid_count_at(s, f, (double)s->materials[f->material].particle_dist, &at_least);
    return at_least || !(n < (double)SIZE_MAX) ? SIZE_MAX : (size_t)n;
}

size_t eddy_scene_count_particles(const eddy_scene *scene)
{
    if (!scene) return 0;
    size_t total = 0;
    for (size_t i = 0; i < scene->fluid_count; ++i) {
        size_t n = fluid_count(scene, &scene->fluids[i]);
        if (n > SIZE_MAX - total) return SIZE_MAX;
        total += n;
    }
    return total;
}
