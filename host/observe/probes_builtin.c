#include "probes_builtin.h"

#include "exact_sum.h"
#include "probe_force.h"
#include "probe_params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KIND_FRONT, KIND_HEIGHT, KIND_PRESSURE, KIND_DENSITY };

struct eddy_probe {
    int kind;
    int dimensions;
    int axis, sign;            /* front, height: axis index and +1 / -1 */
    double max_gap;            /* world units; 0: the smoothing radius */
    double width;              /* height: half-width of the column, world units; 0: smoothing radius */
    float at[3];               /* height: base point; pressure: the point (world units) */
    float min[3], max[3];      /* density: the box (world units) */
    int one_material;          /* 0: every particle counts; 1: only those of `material` */
    uint32_t material;         /* index into the world's material table */
};

/* ------------------------------------------------------------------------------------------------ */
/* Parameter tables                                                                                  */
/* ------------------------------------------------------------------------------------------------ */

#define MAX_GAP_DESC \
    EDDY_PARAM_DERIVED_REAL_DESC("max_gap", 1e-30, 1e30, "m", \
                                 "Largest distance between consecutive particle coordinates along the " \
                                 "axis that still counts as connected liquid; default: the smoothing radius.")

static const eddy_param_desc FRONT_PARAMS[] = {
    EDDY_PROBE_AXIS_DESC("Direction the front advances along: x, y, z, or -x, -y, -z for the negative direction."),
    MAX_GAP_DESC,
    EDDY_PROBE_MATERIAL_DESC,
};

static const eddy_param_desc HEIGHT_PARAMS[] = {
    EDDY_PROBE_AXIS_DESC("The up direction the height is measured along: x, y, z, or -x, -y, -z."),
    EDDY_PROBE_POINT_DESC("at", "Base point of the column: its coordinate on `axis` is where the height counts from."),
    EDDY_PARAM_DERIVED_REAL_DESC("width", 1e-30, 1e30, "m",
                                 "Half-width of the column around `at` on every other axis; default: "
                                 "the smoothing radius."),
    MAX_GAP_DESC,
    EDDY_PROBE_MATERIAL_DESC,
};

static const eddy_param_desc PRESSURE_PARAMS[] = {
    EDDY_PROBE_POINT_DESC("point", "Where the pressure field is interpolated."),
    EDDY_PROBE_MATERIAL_DESC,
};

static const eddy_param_desc DENSITY_PARAMS[] = {
    EDDY_PROBE_POINT_DESC("min", "Lower corner of the box the density is averaged over (inclusive)."),
    EDDY_PROBE_POINT_DESC("max", "Upper corner of the box (inclusive); above `min` on every axis."),
    EDDY_PROBE_MATERIAL_DESC,
};

/* ------------------------------------------------------------------------------------------------ */
/* Creating                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static int probe_create(int kind, const eddy_probe_setup *s, eddy_probe **out, eddy_error *err)
{
    *out = NULL;
    eddy_probe *pr = calloc(1, sizeof *pr);
    if (!pr) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    pr->kind = kind;
    pr->dimensions = s->world->dimensions;
    int rc = eddy_probe_read_material(s, &pr->one_material, &pr->material, err);
    const int d = pr->dimensions;
    switch (rc ? -1 : kind) {
    case KIND_FRONT:
        if (!(rc = eddy_probe_read_axis(s, "axis", d, &pr->axis, &pr->sign, err)))
            rc = eddy_probe_read_positive(s, "max_gap", &pr->max_gap, err);
        break;
    case KIND_HEIGHT:
        if (!(rc = eddy_probe_read_axis(s, "axis", d, &pr->axis, &pr->sign, err)) &&
            !(rc = eddy_probe_read_point(s, "at", d, pr->at, err)) &&
            !(rc = eddy_probe_read_positive(s, "width", &pr->width, err)))
            rc = eddy_probe_read_positive(s, "max_gap", &pr->max_gap, err);
        break;
    case KIND_PRESSURE:
        rc = eddy_probe_read_point(s, "point", d, pr->at, err);
        break;
    case KIND_DENSITY:
        if (!(rc = eddy_probe_read_point(s, "min", d, pr->min, err)) &&
            !(rc = eddy_probe_read_point(s, "max", d, pr->max, err))) {
            for (int a = 0; a < d && !rc; ++a)
                if (!(pr->max[a] > pr->min[a]))
                    rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                        "%s.max: expected max > min on every axis, got max.%c = %g <= min.%c = %g",
                                        eddy_probe_context(s), 'x' + a, (double)pr->max[a], 'x' + a, (double)pr->min[a]);
        }
        break;
    }
    if (rc) {
        free(pr);
        return rc;
    }
    *out = pr;
    return EDDY_OK;
}

static int front_create(const eddy_probe_setup *s, eddy_probe **out, eddy_error *err)
{
    return probe_create(KIND_FRONT, s, out, err);
}
static int height_create(const eddy_probe_setup *s, eddy_probe **out, eddy_error *err)
{
    return probe_create(KIND_HEIGHT, s, out, err);
}
static int pressure_create(const eddy_probe_setup *s, eddy_probe **out, eddy_error *err)
{
    return probe_create(KIND_PRESSURE, s, out, err);
}
static int density_create(const eddy_probe_setup *s, eddy_probe **out, eddy_error *err)
{
    return probe_create(KIND_DENSITY, s, out, err);
}

static void probe_destroy(eddy_probe *pr)
{
    free(pr);
}

static const char *probe_unit(const eddy_probe *pr)
{
    switch (pr->kind) {
    case KIND_PRESSURE: return "Pa";
    case KIND_DENSITY: return "kg/m^3"; /* 2D too: masses are per unit depth (world.h) */
    default: return "m";
    }
}

/* ------------------------------------------------------------------------------------------------ */
/* Measuring                                                                                         */
/* ------------------------------------------------------------------------------------------------ */

static const float *coord(const eddy_particles *p, int axis)
{
    return axis == 0 ? p->x : axis == 1 ? p->y : p->z;
}

/* Whether particle i is one the probe measures (its material, when it names one). */
static int counts(const eddy_probe *pr, const eddy_particles *p, size_t i)
{
    return !pr->one_material || p->material[i] == pr->material;
}

/*
 * "front" and "height": the connected reach along u = sign * x[axis] (sim units), walking from `start`
 * through particles no more than `gap` apart. Only particles with finite u >= start that pass the
 * column filter take part. The walk visits occupied bins of width `gap` in order: within a bin
 * consecutive coordinates are less than `gap` apart, so only the steps between bins (the previous
 * reach to the next bin's minimum) can break the chain. A connected particle lies at most k * gap
 * beyond start after k particles, so the bins below total + 1 (total: the particles of the whole run)
 * hold every particle the walk can reach.
 *
 * A bin is its index, its smallest and largest u, and the particle at the largest (ties to the
 * smaller id) with its material: what the walk reads. Bins of the same index combine by min, max and
 * the smaller id, which neither rounds nor depends on order, so bins made from any split of the
 * particles (each process its owned ones, docs/mpi.md) and merged are the bins of the whole set, and
 * the walk over them gives one process's value bit for bit. One process goes the same way with one
 * part: start, bins, merge, walk. O(n) per part where the occupied bins span a range of at most
 * about twice their particle count (a bulk of liquid), else O(n log n) (sorting them).
 */
typedef struct column {
    int use;              /* filter by |x_b - c_b| <= half_width on every axis b != axis */
    double c[3], half_width;
} column;

/* The walk's gap (sim units): max_gap, or the smoothing radius. */
static double walk_gap(const eddy_probe *pr, const eddy_world *w)
{
    return pr->max_gap > 0 ? pr->max_gap * w->simulation_scale : (double)w->smoothing_radius;
}

static column walk_column(const eddy_probe *pr, const eddy_world *w)
{
    const double scale = w->simulation_scale;
    if (pr->kind != KIND_HEIGHT) return (column){0, {0, 0, 0}, 0};
    return (column){1, {pr->at[0] * scale, pr->at[1] * scale, pr->at[2] * scale},
                    (pr->width > 0 ? pr->width * scale : (double)w->smoothing_radius)};
}

int eddy_builtin_probe_walks(const eddy_component *c)
{
    const eddy_probe_vtable *v = c ? c->vtable : NULL;
    return v && (v->create == front_create || v->create == height_create);
}

double eddy_builtin_walk_start(const eddy_probe *pr, const eddy_frame *fr)
{
    const eddy_world *w = fr->world;
    if (pr->kind == KIND_HEIGHT) return pr->sign * (double)pr->at[pr->axis] * w->simulation_scale;
    /* front: from the rearmost particle */
    const float *u_arr = coord(&w->particles, pr->axis);
    double start = INFINITY;
    for (size_t o = 0; o < fr->count; ++o) {
        const size_t i = fr->order[o];
        double u = pr->sign * (double)u_arr[i];
        if (isfinite(u) && u < start && counts(pr, &w->particles, i)) start = u;
    }
    return start;
}

/* b into a: the smaller minimum (-0 before +0, so that the bits do not depend on the order either),
 * the larger maximum with its particle, ties to the smaller id. */
static void bin_combine(eddy_probe_bin *a, const eddy_probe_bin *b)
{
    if (b->min < a->min || (b->min == a->min && signbit(b->min) && !signbit(a->min))) a->min = b->min;
    if (b->max > a->max || (b->max == a->max && b->top_id < a->top_id)) {
        a->max = b->max;
        a->top_id = b->top_id;
        a->top_material = b->top_material;
    }
}

static int bin_order(const void *pa, const void *pb)
{
    const int64_t a = ((const eddy_probe_bin *)pa)->k, b = ((const eddy_probe_bin *)pb)->k;
    return (a > b) - (a < b);
}

int eddy_probe_bins_merge(eddy_probe_bin *bins, size_t *count, eddy_error *err)
{
    const size_t n = *count;
    if (n < 2) return EDDY_OK;
    int64_t lo = bins[0].k, hi = bins[0].k;
    for (size_t j = 1; j < n; ++j) {
        if (bins[j].k < lo) lo = bins[j].k;
        if (bins[j].k > hi) hi = bins[j].k;
    }
    size_t m = 0;
    if ((uint64_t)(hi - lo) <= 2 * (uint64_t)n) {
        /* A bulk: one slot per index of the range, in order, without sorting. */
        const size_t range = (size_t)(hi - lo) + 1;
        size_t *slot = malloc(range * sizeof *slot);
        eddy_probe_bin *out = malloc(n * sizeof *out);
        if (!slot || !out) {
            free(slot);
            free(out);
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory merging probe bins (%zu)", n);
        }
        for (size_t s = 0; s < range; ++s) slot[s] = SIZE_MAX;
        for (size_t j = 0; j < n; ++j) {
            size_t *s = &slot[bins[j].k - lo];
            if (*s == SIZE_MAX) *s = j;
            else bin_combine(&bins[*s], &bins[j]);
        }
        for (size_t s = 0; s < range; ++s)
            if (slot[s] != SIZE_MAX) out[m++] = bins[slot[s]];
        memcpy(bins, out, m * sizeof *out);
        free(slot);
        free(out);
    } else {
        qsort(bins, n, sizeof *bins, bin_order);
        for (size_t j = 1; j < n; ++j) {
            if (bins[j].k == bins[m].k) bin_combine(&bins[m], &bins[j]);
            else bins[++m] = bins[j];
        }
        ++m;
    }
    *count = m;
    return EDDY_OK;
}

/* The walk's view of the frame's particles, for walk_bin_of. */
typedef struct walk_view {
    const eddy_probe *pr;
    const eddy_particles *p;
    const float *u;
    int axis, sign, dimensions;
    double start, gap, nb;
    column col;
} walk_view;

/* Particle i's bin index, or -1 when it takes no part: of another material than the probe's, u not
 * finite or below start, outside the column, or at or beyond bin nb. */
static int64_t walk_bin_of(const walk_view *v, size_t i, double *u_out)
{
    if (!counts(v->pr, v->p, i)) return -1;
    const double u = v->sign * (double)v->u[i];
    if (!isfinite(u) || u < v->start) return -1;
    if (v->col.use)
        for (int a = 0; a < v->dimensions && a < 3; ++a) {
            if (a == v->axis) continue;
            double d = (double)coord(v->p, a)[i] - v->col.c[a];
            if (!(fabs(d) <= v->col.half_width)) return -1;
        }
    const double k = floor((u - v->start) / v->gap);
    if (!(k < v->nb)) return -1;
    *u_out = u;
    return (int64_t)k;
}

int eddy_builtin_walk_bins(const eddy_probe *pr, const eddy_frame *fr, double start, uint64_t total,
                           eddy_probe_bin **bins, size_t *count, eddy_error *err)
{
    *bins = NULL;
    *count = 0;
    if (!isfinite(start)) return EDDY_OK; /* a front over no finite coordinate: no walk */
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const walk_view v = {pr, p, coord(p, pr->axis), pr->axis, pr->sign, w->dimensions, start, walk_gap(pr, w),
                         (double)(total + 1), walk_column(pr, w)};
    /* First the range of the indices: a bulk of liquid fills one slot per index directly, without a
     * record per particle. */
    int64_t lo = INT64_MAX, hi = -1;
    size_t n = 0;
    double u;
    for (size_t o = 0; o < fr->count; ++o) {
        const int64_t k = walk_bin_of(&v, fr->order[o], &u);
        if (k < 0) continue;
        if (k < lo) lo = k;
        if (k > hi) hi = k;
        ++n;
    }
    if (n == 0) return EDDY_OK;
    const int dense = (uint64_t)(hi - lo) <= 2 * (uint64_t)n;
    const size_t slots = dense ? (size_t)(hi - lo) + 1 : n;
    eddy_probe_bin *b = malloc(slots * sizeof *b);
    if (!b) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring probes (%zu particles)",
                                  fr->count);
    for (size_t s = 0; dense && s < slots; ++s) b[s].k = -1;
    size_t m = 0;
    for (size_t o = 0; o < fr->count; ++o) {
        const size_t i = fr->order[o];
        const int64_t k = walk_bin_of(&v, i, &u);
        if (k < 0) continue;
        const eddy_probe_bin one = {.k = k, .min = (float)u, .max = (float)u, .top_id = p->id[i],
                                    .top_material = p->material[i]};
        if (!dense) b[m++] = one;
        else if (b[k - lo].k < 0) b[k - lo] = one;
        else bin_combine(&b[k - lo], &one);
    }
    if (dense) {
        for (size_t s = 0; s < slots; ++s)
            if (b[s].k >= 0) b[m++] = b[s];
    } else {
        int rc = eddy_probe_bins_merge(b, &m, err);
        if (rc) {
            free(b);
            return rc;
        }
    }
    *bins = b;
    *count = m;
    return EDDY_OK;
}

double eddy_builtin_walk_finish(const eddy_probe *pr, const eddy_world *w, double start, const eddy_probe_bin *bins,
                                size_t count)
{
    if (!isfinite(start)) return pr->kind == KIND_FRONT ? NAN : 0.0;
    const double gap = walk_gap(pr, w), scale = w->simulation_scale;
    double reach = start;
    const eddy_probe_bin *top = NULL;
    for (size_t j = 0; j < count; ++j) {
        if ((double)bins[j].min - reach > gap) break;
        reach = bins[j].max;
        top = &bins[j];
    }
    /* The edge of the last connected particle's volume: half its material's rest spacing beyond it. */
    const double half = top ? 0.5 * (double)w->materials[top->top_material].particle_dist : 0.0;
    if (pr->kind == KIND_FRONT) /* (+ 0.0: an edge at 0 along -x reads 0, not -0) */
        return top ? pr->sign * (reach + half) / scale + 0.0 : NAN;
    return top ? (reach + half - start) / scale : 0.0;
}

void eddy_probe_bin_pack(const eddy_probe_bin *b, int64_t *words)
{
    uint32_t lo, hi;
    memcpy(&lo, &b->min, sizeof lo);
    memcpy(&hi, &b->max, sizeof hi);
    words[0] = b->k;
    words[1] = (int64_t)((uint64_t)lo | (uint64_t)hi << 32);
    words[2] = (int64_t)b->top_id;
    words[3] = (int64_t)b->top_material;
}

void eddy_probe_bin_unpack(eddy_probe_bin *b, const int64_t *words)
{
    const uint64_t mm = (uint64_t)words[1];
    const uint32_t lo = (uint32_t)mm, hi = (uint32_t)(mm >> 32);
    b->k = words[0];
    memcpy(&b->min, &lo, sizeof lo);
    memcpy(&b->max, &hi, sizeof hi);
    b->top_id = (uint64_t)words[2];
    b->top_material = (uint32_t)words[3];
}

/* Pressure: the Shepard numerator and denominator as exact sums (exact_sum.h), so that the value is
 * the same from any split of the particles between processes. */
static void partial_pressure(const eddy_probe *pr, const eddy_frame *fr, eddy_probe_partial *out)
{
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const double scale = w->simulation_scale;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const double h2 = (double)w->smoothing_radius * w->smoothing_radius;
    const double c[3] = {pr->at[0] * scale, pr->at[1] * scale, w->dimensions == 3 ? pr->at[2] * scale : 0.0};
    for (size_t o = 0; o < fr->count; ++o) {
        size_t i = fr->order[o];
        if (!counts(pr, p, i)) continue;
        double dx = p->x[i] - c[0], dy = p->y[i] - c[1], dz = w->dimensions == 3 ? p->z[i] - c[2] : 0.0;
        double r2 = dx * dx + dy * dy + dz * dz;
        if (!(r2 < h2)) continue;
        double rho = p->density[i];
        if (!(rho > 0) || !isfinite(rho)) rho = w->materials[p->material[i]].rest_density;
        double vw = (double)p->mass[i] / rho * (double)eddy_poly6(&k, (float)r2);
        eddy_xsum_add(&out->sum[0], vw * (double)p->pressure[i]);
        eddy_xsum_add(&out->sum[1], vw);
        out->count++;
    }
}

/* Density: the sum of the densities inside the box and their count. */
static void partial_density(const eddy_probe *pr, const eddy_frame *fr, eddy_probe_partial *out)
{
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const double scale = w->simulation_scale;
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        lo[a] = pr->min[a] * scale;
        hi[a] = pr->max[a] * scale;
    }
    for (size_t o = 0; o < fr->count; ++o) {
        size_t i = fr->order[o];
        if (!counts(pr, p, i)) continue;
        double x[3] = {p->x[i], p->y[i], p->z[i]};
        int inside = 1;
        for (int a = 0; a < w->dimensions && inside; ++a) inside = x[a] >= lo[a] && x[a] <= hi[a];
        if (!inside) continue;
        eddy_xsum_add(&out->sum[0], (double)p->density[i]);
        out->count++;
    }
}

int eddy_builtin_probe_partial(const eddy_probe *pr, const eddy_frame *fr, eddy_probe_partial *out, eddy_error *err)
{
    memset(out, 0, sizeof *out);
    eddy_xsum_init(&out->sum[0]);
    eddy_xsum_init(&out->sum[1]);
    if (fr->world->dimensions != pr->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "probe created for a %dD world measures a %dD one",
                              pr->dimensions, fr->world->dimensions);
    if (pr->kind == KIND_PRESSURE) partial_pressure(pr, fr, out);
    else if (pr->kind == KIND_DENSITY) partial_density(pr, fr, out);
    else return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "probe: a \"%s\" probe is not a sum over particles",
                               pr->kind == KIND_FRONT ? "front" : "height");
    return EDDY_OK;
}

double eddy_builtin_probe_finish(const eddy_probe *pr, const eddy_probe_partial *in)
{
    if (pr->kind == KIND_PRESSURE) {
        const double num = eddy_xsum_round(&in->sum[0]), den = eddy_xsum_round(&in->sum[1]);
        return den > 0 ? num / den : NAN;
    }
    return in->count ? eddy_xsum_round(&in->sum[0]) / (double)in->count : NAN;
}

void eddy_probe_partial_pack(const eddy_probe_partial *p, int64_t *words)
{
    eddy_xsum_pack(&p->sum[0], words);
    eddy_xsum_pack(&p->sum[1], words + EDDY_XSUM_WORDS);
    words[2 * EDDY_XSUM_WORDS] = p->count;
}

void eddy_probe_partial_unpack(eddy_probe_partial *p, const int64_t *words)
{
    eddy_xsum_unpack(&p->sum[0], words);
    eddy_xsum_unpack(&p->sum[1], words + EDDY_XSUM_WORDS);
    p->count = words[2 * EDDY_XSUM_WORDS];
}

static int probe_measure(eddy_probe *pr, const eddy_frame *fr, double *value, eddy_error *err)
{
    const eddy_world *w = fr->world;
    if (w->dimensions != pr->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "probe created for a %dD world measures a %dD one",
                              pr->dimensions, w->dimensions);
    if (pr->kind == KIND_PRESSURE || pr->kind == KIND_DENSITY) {
        /* One process measures as several do: the partial of every particle, finished. */
        eddy_probe_partial part;
        int rc = eddy_builtin_probe_partial(pr, fr, &part, err);
        if (!rc) *value = eddy_builtin_probe_finish(pr, &part);
        return rc;
    }
    /* One process is one part: its start, its bins, the walk (as several processes merge theirs). */
    const double start = eddy_builtin_walk_start(pr, fr);
    eddy_probe_bin *bins;
    size_t count;
    int rc = eddy_builtin_walk_bins(pr, fr, start, fr->count, &bins, &count, err);
    if (rc) return rc;
    *value = eddy_builtin_walk_finish(pr, w, start, bins, count);
    free(bins);
    return EDDY_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Components                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

#define PROBE_VTABLE(name_, create_) \
    static const eddy_probe_vtable name_ = {.size = sizeof(eddy_probe_vtable), .create = (create_), \
                                            .measure = probe_measure, .unit = probe_unit, .destroy = probe_destroy}
PROBE_VTABLE(FRONT_VTABLE, front_create);
PROBE_VTABLE(HEIGHT_VTABLE, height_create);
PROBE_VTABLE(PRESSURE_VTABLE, pressure_create);
PROBE_VTABLE(DENSITY_VTABLE, density_create);

#define PROBE_COMPONENT(name_, id_, desc_, table_, vtable_) \
    static const eddy_component name_ = {.size = sizeof(eddy_component), .interface_id = EDDY_INTERFACE_PROBE, \
                                         .id = (id_), .version = "2.0.0", .description = (desc_), \
                                         .params = (table_), .param_count = sizeof(table_) / sizeof((table_)[0]), \
                                         .vtable = &(vtable_), .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES}
PROBE_COMPONENT(FRONT, "front", "how far the connected liquid reaches along an axis (m)", FRONT_PARAMS, FRONT_VTABLE);
PROBE_COMPONENT(HEIGHT, "height", "height of the connected liquid column above a base point (m)", HEIGHT_PARAMS,
                HEIGHT_VTABLE);
PROBE_COMPONENT(PRESSURE, "pressure", "pressure Shepard-interpolated at a point (simulation units)", PRESSURE_PARAMS,
                PRESSURE_VTABLE);
PROBE_COMPONENT(DENSITY, "density", "mean density of the particles inside a box (simulation units)", DENSITY_PARAMS,
                DENSITY_VTABLE);

static const eddy_component *const PROBES[] = {&FRONT, &HEIGHT, &PRESSURE, &DENSITY, &eddy_probe_force_component,
                                               &eddy_probe_moment_component};

const eddy_component *const *eddy_builtin_probes(size_t *count)
{
    *count = sizeof PROBES / sizeof PROBES[0];
    return PROBES;
}

int eddy_builtin_probe_reducible(const eddy_component *c)
{
    /* By create function: the registry keeps copies of each component and its vtable, whose functions
     * are still these very ones (a plugin's probe, whatever its id, is measured on gathered particles). */
    const eddy_probe_vtable *v = c ? c->vtable : NULL;
    return v && (v->create == pressure_create || v->create == density_create);
}
