#include "probes_builtin.h"

#include "exact_sum.h"

#include <math.h>
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
};

/* ------------------------------------------------------------------------------------------------ */
/* Parameter tables                                                                                  */
/* ------------------------------------------------------------------------------------------------ */

static const char *const AXES[] = {"x", "y", "z", "-x", "-y", "-z", NULL};

#define AXIS_DESC(doc_) \
    {.size = sizeof(eddy_param_desc), .id = "axis", .type = EDDY_PARAM_ENUM, .flags = EDDY_PARAM_REQUIRED, \
     .def = 0, .unit = "", .doc = (doc_), .choices = AXES}
#define POINT_DESC(id_, doc_) \
    {.size = sizeof(eddy_param_desc), .id = (id_), .type = EDDY_PARAM_VECTOR, .flags = EDDY_PARAM_REQUIRED, \
     .def = 0.0, .min = -1e30, .max = 1e30, .unit = "m", .doc = (doc_)}
#define MAX_GAP_DESC \
    EDDY_PARAM_DERIVED_REAL_DESC("max_gap", 1e-30, 1e30, "m", \
                                 "Largest distance between consecutive particle coordinates along the " \
                                 "axis that still counts as connected liquid; default: the smoothing radius.")

static const eddy_param_desc FRONT_PARAMS[] = {
    AXIS_DESC("Direction the front advances along: x, y, z, or -x, -y, -z for the negative direction."),
    MAX_GAP_DESC,
};

static const eddy_param_desc HEIGHT_PARAMS[] = {
    AXIS_DESC("The up direction the height is measured along: x, y, z, or -x, -y, -z."),
    POINT_DESC("at", "Base point of the column: its coordinate on `axis` is where the height counts from."),
    EDDY_PARAM_DERIVED_REAL_DESC("width", 1e-30, 1e30, "m",
                                 "Half-width of the column around `at` on every other axis; default: "
                                 "the smoothing radius."),
    MAX_GAP_DESC,
};

static const eddy_param_desc PRESSURE_PARAMS[] = {
    POINT_DESC("point", "Where the pressure field is interpolated."),
};

static const eddy_param_desc DENSITY_PARAMS[] = {
    POINT_DESC("min", "Lower corner of the box the density is averaged over (inclusive)."),
    POINT_DESC("max", "Upper corner of the box (inclusive); above `min` on every axis."),
};

/* ------------------------------------------------------------------------------------------------ */
/* Creating                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static const eddy_param_value *value_of(const eddy_probe_setup *s, const char *id)
{
    return eddy_param_find_value(s->params, id);
}

static const char *ctx(const eddy_probe_setup *s)
{
    return s->context && *s->context ? s->context : s->name;
}

/* The axis value: "x" ... "-z", which must be an axis of the world. */
static int read_axis(const eddy_probe_setup *s, eddy_probe *pr, eddy_error *err)
{
    const eddy_param_value *v = value_of(s, "axis");
    const char *t = v && v->string ? v->string : "";
    pr->sign = t[0] == '-' ? -1 : 1;
    if (t[0] == '-') ++t;
    int axis = t[0] ? t[0] - 'x' : -1;
    if (axis < 0 || axis >= pr->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s.axis: expected %s, got \"%s\"", ctx(s),
                              pr->dimensions == 2 ? "\"x\", \"y\", \"-x\" or \"-y\""
                                                  : "\"x\", \"y\", \"z\", \"-x\", \"-y\" or \"-z\"",
                              v && v->string ? v->string : "");
    pr->axis = axis;
    return EDDY_OK;
}

/* A point with a number per dimension (world units), kept as float as the scene's vectors are. */
static int read_point(const eddy_probe_setup *s, const char *id, const eddy_probe *pr, float out[3], eddy_error *err)
{
    const eddy_param_value *v = value_of(s, id);
    if (!v || !v->is_set || v->count < pr->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s.%s: expected %s, got %d number%s", ctx(s), id,
                              pr->dimensions == 2 ? "an array of 2 (or 3) numbers" : "an array of 3 numbers",
                              v ? v->count : 0, v && v->count == 1 ? "" : "s");
    for (int a = 0; a < 3; ++a) out[a] = a < pr->dimensions ? (float)v->vector[a] : 0.0f;
    return EDDY_OK;
}

/* An optional length > 0 (0 in *out when unset: the default applies). The table's range (> 0) has
 * been checked by the host already; this keeps a direct caller honest. */
static int read_positive(const eddy_probe_setup *s, const char *id, double *out, eddy_error *err)
{
    const eddy_param_value *v = value_of(s, id);
    *out = 0.0;
    if (!v || !v->is_set) return EDDY_OK;
    if (!(v->number > 0))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "%s.%s: expected a number > 0, got %.17g", ctx(s), id,
                              v->number);
    *out = v->number;
    return EDDY_OK;
}

static int probe_create(int kind, const eddy_probe_setup *s, eddy_probe **out, eddy_error *err)
{
    *out = NULL;
    eddy_probe *pr = calloc(1, sizeof *pr);
    if (!pr) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    pr->kind = kind;
    pr->dimensions = s->world->dimensions;
    int rc = EDDY_OK;
    switch (kind) {
    case KIND_FRONT:
        if (!(rc = read_axis(s, pr, err))) rc = read_positive(s, "max_gap", &pr->max_gap, err);
        break;
    case KIND_HEIGHT:
        if (!(rc = read_axis(s, pr, err)) && !(rc = read_point(s, "at", pr, pr->at, err)) &&
            !(rc = read_positive(s, "width", &pr->width, err)))
            rc = read_positive(s, "max_gap", &pr->max_gap, err);
        break;
    case KIND_PRESSURE:
        rc = read_point(s, "point", pr, pr->at, err);
        break;
    case KIND_DENSITY:
        if (!(rc = read_point(s, "min", pr, pr->min, err)) && !(rc = read_point(s, "max", pr, pr->max, err))) {
            for (int a = 0; a < pr->dimensions && !rc; ++a)
                if (!(pr->max[a] > pr->min[a]))
                    rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                        "%s.max: expected max > min on every axis, got max.%c = %g <= min.%c = %g",
                                        ctx(s), 'x' + a, (double)pr->max[a], 'x' + a, (double)pr->min[a]);
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
    case KIND_DENSITY: return pr->dimensions == 2 ? "kg/m^2" : "kg/m^3";
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

/* Half the rest spacing of particle i's material: the edge of its volume beyond its centre. */
static double half_spacing(const eddy_world *w, size_t i)
{
    return 0.5 * (double)w->materials[w->particles.material[i]].particle_dist;
}

/*
 * The connected reach along u = sign * x[axis] (sim units), walking from `start` through particles no
 * more than `gap` apart. Only particles with u >= start that pass the column filter take part. The
 * walk visits occupied bins of width `gap` in order: within a bin consecutive coordinates are less
 * than `gap` apart, so only the steps between bins (the previous reach to the next bin's minimum) can
 * break the chain. A connected particle lies at most k * gap beyond start after k particles, so N + 1
 * bins hold every particle the walk can reach: O(N) time and memory, and the result depends only on
 * the set of coordinates, not on their order. Returns the index of the farthest connected particle,
 * or -1 when none is within `gap` of start.
 */
typedef struct column {
    int use;              /* filter by |x_b - c_b| <= half_width on every axis b != axis */
    double c[3], half_width;
} column;

static long long connected_reach(const eddy_frame *fr, int axis, int sign, double start, double gap,
                                 const column *col, float *bmin, float *bmax, uint32_t *btop, double *reach_out)
{
    const eddy_world *w = fr->world;
    const eddy_particles *p = &w->particles;
    const float *u_arr = coord(p, axis);
    const size_t n = fr->count, nb = n + 1;
    for (size_t b = 0; b < nb; ++b) {
        bmin[b] = INFINITY;
        bmax[b] = -INFINITY;
        btop[b] = UINT32_MAX;
    }
    for (size_t o = 0; o < n; ++o) {
        const size_t i = fr->order[o];
        double u = sign * (double)u_arr[i];
        if (!isfinite(u) || u < start) continue;
        if (col->use) {
            int inside = 1;
            for (int b = 0; b < w->dimensions && inside; ++b) {
                if (b == axis) continue;
                double d = (double)coord(p, b)[i] - col->c[b];
                inside = fabs(d) <= col->half_width;
            }
            if (!inside) continue;
        }
        double k = floor((u - start) / gap);
        if (!(k < (double)nb)) continue;
        size_t b = (size_t)k;
        float uf = (float)u;
        if (uf < bmin[b]) bmin[b] = uf;
        /* Ties go to the smaller id: the same state gives the same particle whatever the order. */
        if (uf > bmax[b] || (uf == bmax[b] && p->id[i] < p->id[btop[b]])) {
            bmax[b] = uf;
            btop[b] = (uint32_t)i;
        }
    }
    double reach = start;
    long long top = -1;
    for (size_t b = 0; b < nb; ++b) {
        if (btop[b] == UINT32_MAX) continue;
        if ((double)bmin[b] - reach > gap) break;
        reach = bmax[b];
        top = btop[b];
    }
    *reach_out = reach;
    return top;
}

static double measure_front(const eddy_probe *pr, const eddy_frame *fr, double gap, float *bmin, float *bmax,
                            uint32_t *btop)
{
    const eddy_world *w = fr->world;
    const float *u_arr = coord(&w->particles, pr->axis);
    double start = INFINITY;
    for (size_t o = 0; o < fr->count; ++o) {
        double u = pr->sign * (double)u_arr[fr->order[o]];
        if (isfinite(u) && u < start) start = u;
    }
    if (!isfinite(start)) return NAN;
    column none = {0, {0, 0, 0}, 0};
    double reach;
    long long top = connected_reach(fr, pr->axis, pr->sign, start, gap, &none, bmin, bmax, btop, &reach);
    /* (+ 0.0: an edge at 0 along -x reads 0, not -0) */
    return pr->sign * (reach + half_spacing(w, (size_t)top)) / (double)w->simulation_scale + 0.0;
}

static double measure_height(const eddy_probe *pr, const eddy_frame *fr, double gap, float *bmin, float *bmax,
                             uint32_t *btop)
{
    const eddy_world *w = fr->world;
    const double scale = w->simulation_scale;
    column col = {1, {pr->at[0] * scale, pr->at[1] * scale, pr->at[2] * scale},
                  (pr->width > 0 ? pr->width * scale : (double)w->smoothing_radius)};
    double start = pr->sign * (double)pr->at[pr->axis] * scale, reach;
    long long top = connected_reach(fr, pr->axis, pr->sign, start, gap, &col, bmin, bmax, btop, &reach);
    if (top < 0) return 0.0;
    return (reach + half_spacing(w, (size_t)top) - start) / scale;
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
    const size_t nb = fr->count + 1;
    float *bmin = malloc(nb * sizeof *bmin), *bmax = malloc(nb * sizeof *bmax);
    uint32_t *btop = malloc(nb * sizeof *btop);
    int rc = EDDY_OK;
    if (!bmin || !bmax || !btop) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory measuring probes (%zu particles)", fr->count);
    } else {
        const double gap = pr->max_gap > 0 ? pr->max_gap * w->simulation_scale : (double)w->smoothing_radius;
        *value = pr->kind == KIND_FRONT ? measure_front(pr, fr, gap, bmin, bmax, btop)
                                        : measure_height(pr, fr, gap, bmin, bmax, btop);
    }
    free(bmin);
    free(bmax);
    free(btop);
    return rc;
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

static const eddy_component *const PROBES[] = {&FRONT, &HEIGHT, &PRESSURE, &DENSITY};

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
