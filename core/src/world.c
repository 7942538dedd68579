/*
 * The world: particles, materials, boundaries and grid, the integration helpers every solver shares,
 * the per-step reduction, and the host's way to particles (field residency, mappings, generations).
 */
#include <eddy/world.h>

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* Below this many particles an OpenMP region costs more than the reduction it runs. */
#define WORLD_PARALLEL_MIN 4096

struct eddy_world_impl {
    /* The per-step reduction (eddy_world_step_stats), valid for the step and the edit generations it
     * was computed at; anything that moves particles or edits positions or velocities from outside
     * bumps one of them. */
    eddy_step_stats stats;
    int stats_valid;
    int in_stats; /* eddy_world_step_stats is downloading for its own pass */
    uint64_t stats_layout_generation, stats_position_generation, stats_velocity_generation;
    size_t stats_count;

    /* Field residency: where each field lives, and whether its host copy is behind the device. */
    unsigned char space[EDDY_MAX_FIELDS];
    unsigned char stale[EDDY_MAX_FIELDS];
    unsigned char layout_space;
    unsigned char layout_stale;
    eddy_residency residency;
    int has_residency;

    eddy_exchange exchange;
    int has_exchange;

    /* Open-addressing index of the material names (slot = material index + 1, 0 empty), so that adding
     * M materials costs O(M), not O(M^2) string compares: a 20k-material scene spent 70% of its load
     * in the duplicate-name check. Capacity is a power of two, at most half full. */
    uint32_t *name_slots;
    size_t name_capacity;

    /* Allocated lengths of w->materials / w->contacts and of the colliders: grown geometrically, since
     * a realloc by one per entry copies O(n^2) bytes where realloc cannot grow in place (20k
     * materials took minutes under AddressSanitizer). */
    size_t material_capacity;
    size_t collider_capacity;
};

int eddy_world_create(int dimensions, eddy_world **out, eddy_error *err)
{
    *out = NULL;
    eddy_world *w = calloc(1, sizeof *w);
    if (!w) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    w->impl = calloc(1, sizeof *w->impl);
    if (!w->impl) {
        free(w);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int rc = eddy_particles_init(&w->particles, dimensions, err);
    if (rc) {
        free(w->impl);
        free(w);
        return rc;
    }
    w->size = sizeof *w;
    w->dimensions = dimensions;
    w->simulation_scale = 1.0f;
    w->boundaries.dimensions = dimensions;
    w->host = eddy_host_silent();
    *out = w;
    return EDDY_OK;
}

/* Frees the world's copy of a material's parameter values (and their strings). */
static void free_material_params(eddy_material *m)
{
    eddy_param_value *v = (eddy_param_value *)m->params.values;
    if (v)
        for (size_t i = 0; i < m->params.count; ++i) free((char *)v[i].string);
    free(v);
    m->params.values = NULL;
    m->params.count = 0;
}

void eddy_world_destroy(eddy_world *w)
{
    if (!w) return;
    eddy_grid_free(&w->grid);
    eddy_particles_free(&w->particles);
    for (size_t i = 0; i < w->material_count; ++i) free_material_params(&w->materials[i]);
    free(w->materials);
    free(w->contacts);
    free(w->boundaries.colliders);
    free(w->impl->name_slots);
    free(w->impl);
    free(w);
}

/* ------------------------------------------------------------------------------------------------ */
/* Lattice sums                                                                                      */
/* ------------------------------------------------------------------------------------------------ */

/*
 * Every lattice sum here is a sum over lattice points n in Z^d with s^2 |n|^2 < h^2 of a function of
 * |n|^2, so it groups by the integer norm m = |n|^2: with r(m) the number of lattice points of norm m,
 * sum_n (h^2 - s^2 |n|^2)^3 = h^6 sum_{m <= M} r(m) (1 - x m)^3, x = s^2 / h^2, which expands into
 * four cumulative integer moments P_k(M) = sum_{m <= M} r(m) m^k. One table of r and P per
 * dimension (built once, shared, read-only) makes the density O(1) and the gradient moment O(M)
 * instead of (2n + 1)^d terms, so the rest-spacing bisection costs microseconds at any ratio up to
 * EDDY_LATTICE_RATIO_MAX. The expansion loses at most about 1.5 decimal digits to cancellation
 * (ratio of the integrals of (1 + q^2)^3 and (1 - q^2)^3 over the unit ball), i.e. the sums stay
 * accurate to about 1e-14 relative.
 */

/* The table reaches twice the public ratio limit: eddy_rest_spacing brackets its root between 0.7
 * and 1.3 times the plain estimate and evaluates the density at both ends. */
#define LATTICE_TABLE_RATIO (2 * EDDY_LATTICE_RATIO_MAX)
#define LATTICE_NORM_MAX (LATTICE_TABLE_RATIO * LATTICE_TABLE_RATIO)

typedef struct lattice_table {
    uint32_t count[LATTICE_NORM_MAX + 1];     /* r(m) */
    uint64_t moment[4][LATTICE_NORM_MAX + 1]; /* P_k(m), exact (below 2^63 for m <= 4096) */
} lattice_table;

static _Atomic(lattice_table *) lattice_tables[2];

/* The shared table of dimension d (2 or 3), built on first use; NULL when out of memory. Threads
 * that race build their own copy and all but the first discard theirs. */
static const lattice_table *lattice_table_get(int d)
{
    _Atomic(lattice_table *) *slot = &lattice_tables[d - 2];
    lattice_table *t = atomic_load_explicit(slot, memory_order_acquire);
    if (t) return t;
    t = calloc(1, sizeof *t);
    if (!t) return NULL;
    const int n = LATTICE_TABLE_RATIO;
    for (int k = 0; k <= (d == 3 ? n : 0); ++k)
        for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i) {
                const int m = i * i + j * j + k * k;
                if (m > LATTICE_NORM_MAX) break;
                /* One octant point stands for its sign-flipped images. */
                t->count[m] += (uint32_t)((i ? 2 : 1) * (j ? 2 : 1) * (k ? 2 : 1));
            }
    uint64_t acc[4] = {0, 0, 0, 0};
    for (int m = 0; m <= LATTICE_NORM_MAX; ++m) {
        const uint64_t r = t->count[m], mm = (uint64_t)m;
        acc[0] += r;
        acc[1] += r * mm;
        acc[2] += r * mm * mm;
        acc[3] += r * mm * mm * mm;
        for (int q = 0; q < 4; ++q) t->moment[q][m] = acc[q];
    }
    lattice_table *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(slot, &expected, t, memory_order_acq_rel, memory_order_acquire))
        return t;
    free(t);
    return expected;
}

/* The arguments every lattice helper accepts: d 2 or 3, finite spacing and h, h / spacing at most
 * the limit (or spacing, h <= 0, which the callers answer themselves). */
static int lattice_args_ok(double spacing, double h, int d)
{
    if (d != 2 && d != 3) return 0;
    if (!isfinite(spacing) || !isfinite(h)) return 0;
    if (!(spacing > 0) || !(h > 0)) return 1;
    return h / spacing <= EDDY_LATTICE_RATIO_MAX;
}

/* The largest norm m with s^2 m < h^2 (the kernel's support is open), for h / s <= the table's
 * ratio. */
static int lattice_norm_max(double spacing, double h)
{
    const double s2 = spacing * spacing, h2 = h * h;
    double guess = floor(h2 / s2);
    if (guess > LATTICE_NORM_MAX + 1) guess = LATTICE_NORM_MAX + 1;
    int m = (int)guess;
    while (m > 0 && s2 * (double)m >= h2) --m;
    while (m < LATTICE_NORM_MAX && s2 * (double)(m + 1) < h2) ++m;
    return m;
}

/* sum_n (h^2 - s^2 |n|^2)^3 over the support, in units of h^6, for h / spacing up to the table's
 * ratio; NaN when the table cannot be had. */
static double poly6_lattice_sum(const lattice_table *t, double spacing, double h)
{
    if (!t) return NAN;
    const int m = lattice_norm_max(spacing, h);
    const double x = (spacing / h) * (spacing / h);
    const double p0 = (double)t->moment[0][m], p1 = (double)t->moment[1][m], p2 = (double)t->moment[2][m],
                 p3 = (double)t->moment[3][m];
    return p0 - x * (3.0 * p1 - x * (3.0 * p2 - x * p3));
}

/* The poly6 normalisation times h^6: W(r) = poly6_scale(h, d) (1 - r^2 / h^2)^3 (Mueller et al. 2003). */
static double poly6_scale(double h, int d)
{
    return d == 2 ? 4.0 / (M_PI * h * h) : 315.0 / (64.0 * M_PI * h * h * h);
}

double eddy_lattice_density(double mass, double spacing, double h, int d)
{
    if (!isfinite(mass) || !lattice_args_ok(spacing, h, d)) return NAN;
    if (!(spacing > 0) || !(h > 0)) return 0.0;
    return mass * poly6_scale(h, d) * poly6_lattice_sum(lattice_table_get(d), spacing, h);
}

double eddy_lattice_gradient_moment(double spacing, double h, int d)
{
    if (!lattice_args_ok(spacing, h, d)) return NAN;
    if (!(spacing > 0) || !(h > 0)) return 1.0;
    const lattice_table *t = lattice_table_get(d);
    if (!t) return NAN;
    /* With u = s / h the moment is dimensionless: over the r(m) points of norm m, x_j^2 sums to
     * r(m) m s^2 / d by symmetry, and the spiky gradient 30 / (pi h^5) (2D), 45 / (pi h^6) (3D) times
     * (h - r)^2 over the poly6 sum leaves K sum_m r(m) u sqrt(m) (1 - u sqrt(m))^2 / d / S(u) with
     * K = 30/4 (2D), 45 * 64 / 315 (3D). */
    const double u = spacing / h;
    const int mmax = lattice_norm_max(spacing, h);
    double moment = 0.0;
    for (int m = 1; m <= mmax; ++m) {
        if (!t->count[m]) continue;
        const double ur = u * sqrt((double)m);
        if (ur >= 1.0) break;
        moment += (double)t->count[m] * ur * (1.0 - ur) * (1.0 - ur);
    }
    const double k = d == 2 ? 30.0 / 4.0 : 45.0 * 64.0 / 315.0;
    return k * moment / d / poly6_lattice_sum(t, spacing, h);
}

/* The spacing whose lattice sums to rho0: lattice density falls as the spacing grows (up to small
 * wiggles of the kernel sum), so bisection around (m / rho0)^(1/d) finds it deterministically. Without
 * a smoothing radius there is no kernel yet, and the plain volume estimate is all there is. */
eddy_real eddy_rest_spacing(double mass, double rho0, double h, int d)
{
    if ((d != 2 && d != 3) || !isfinite(mass) || !isfinite(rho0) || !(mass > 0) || !(rho0 > 0) || isnan(h) ||
        isinf(h))
        return (eddy_real)NAN;
    double guess = pow(mass / rho0, 1.0 / d);
    if (!(h > 0)) return (eddy_real)guess;
    /* The root lies in [0.7, 1.3] x guess: beyond the ratio limit even at its widest end, it is out
     * of range; otherwise both ends stay within the table (2 x the limit > 1.3 / 0.7 x the limit). */
    if (!(guess > 0) || h / guess > 1.3 * EDDY_LATTICE_RATIO_MAX) return (eddy_real)NAN;
    const lattice_table *t = lattice_table_get(d);
    if (!t) return (eddy_real)NAN;
    const double c = poly6_scale(h, d);
    double lo = 0.7 * guess, hi = 1.3 * guess;
    if (!(mass * c * poly6_lattice_sum(t, lo, h) > rho0 && mass * c * poly6_lattice_sum(t, hi, h) < rho0))
        return (eddy_real)guess;
    for (int it = 0; it < 60; ++it) {
        double mid = 0.5 * (lo + hi);
        if (mass * c * poly6_lattice_sum(t, mid, h) > rho0) lo = mid;
        else hi = mid;
    }
    const double spacing = 0.5 * (lo + hi);
    if (h / spacing > EDDY_LATTICE_RATIO_MAX) return (eddy_real)NAN;
    return (eddy_real)spacing;
}

double eddy_material_param(const eddy_material *material, const eddy_param_desc *desc)
{
    return eddy_param_get(&material->params, desc->id, desc->def);
}

eddy_material eddy_default_material(void)
{
    eddy_material m;
    memset(&m, 0, sizeof m);
    m.size = sizeof m;
    m.rest_density = 1000.0f;
    /* The contact response the scene format defaults to (restitution 0, friction 0, erp 0.5); the
     * contact radius (half the particle spacing there, with a margin of a tenth of it) needs a mass,
     * so it starts at 0: no contact until the host sets it. */
    m.contact.radius = 0.0f;
    m.contact.margin = 0.0f;
    m.contact.restitution = 0.0f;
    m.contact.friction = 0.0f;
    m.contact.erp = 0.5f;
    m.params.size = sizeof m.params;
    return m;
}

#define MATERIAL_MIN_SIZE (offsetof(eddy_material, params) + sizeof(((eddy_material *)0)->params))

#define CHECK_RANGE(cond, key, what)                                                               \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "material '%s': %s must be %s",  \
                                  name, key, what);                                                \
    } while (0)

/* The world's own copy of a material's parameter values: the array and every string in it. */
static int copy_params(eddy_param_values *dst, const eddy_param_values *src, const char *name,
                       eddy_error *err)
{
    memset(dst, 0, sizeof *dst);
    dst->size = sizeof *dst;
    dst->desc = src->desc;
    if (src->count == 0) return EDDY_OK;
    eddy_param_value *v = calloc(src->count, sizeof *v);
    if (!v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "material '%s': out of memory", name);
    for (size_t i = 0; i < src->count; ++i) {
        v[i] = src->values[i];
        v[i].string = NULL;
        if (src->values[i].string && !(v[i].string = strdup(src->values[i].string))) {
            for (size_t j = 0; j < i; ++j) free((char *)v[j].string);
            free(v);
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "material '%s': out of memory", name);
        }
    }
    dst->count = src->count;
    dst->values = v;
    return EDDY_OK;
}

/* FNV-1a: material names are short, and the index only needs a spread, not a cryptographic hash. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of `name` in the index: the one holding it, or the empty one where it would go. */
static size_t name_slot(const struct eddy_world_impl *im, const eddy_material *mats, const char *name)
{
    const size_t mask = im->name_capacity - 1;
    size_t i = (size_t)name_hash(name) & mask;
    while (im->name_slots[i] && strcmp(mats[im->name_slots[i] - 1].name, name) != 0) i = (i + 1) & mask;
    return i;
}

/* Makes room in the index for one more name (rehashing the `count` materials already there). */
static int reserve_name_slot(struct eddy_world_impl *im, const eddy_material *mats, size_t count)
{
    if (2 * (count + 1) <= im->name_capacity) return 0;
    size_t capacity = im->name_capacity ? 2 * im->name_capacity : 16;
    while (2 * (count + 1) > capacity) capacity *= 2;
    uint32_t *slots = calloc(capacity, sizeof *slots);
    if (!slots) return -1;
    free(im->name_slots);
    im->name_slots = slots;
    im->name_capacity = capacity;
    for (size_t k = 0; k < count; ++k) im->name_slots[name_slot(im, mats, mats[k].name)] = (uint32_t)(k + 1);
    return 0;
}

int eddy_world_add_material(eddy_world *w, const eddy_material *m, eddy_error *err)
{
    if (!m) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "material: NULL");
    if (m->size < MATERIAL_MIN_SIZE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "material: a struct of %zu bytes does not cover its parameters (%zu bytes in "
                              "ABI 2.0); fill it with eddy_default_material()",
                              m->size, (size_t)MATERIAL_MIN_SIZE);
    char name[EDDY_MATERIAL_NAME_MAX];
    memcpy(name, m->name, sizeof name);
    name[sizeof name - 1] = '\0';
    CHECK_RANGE(m->rest_density > 0 && isfinite(m->rest_density), "rest_density", "> 0");
    CHECK_RANGE(m->particle_mass > 0 && isfinite(m->particle_mass), "particle_mass", "> 0");
    CHECK_RANGE(m->contact.radius >= 0 && isfinite(m->contact.radius), "particle_radius", ">= 0");
    CHECK_RANGE(m->contact.margin >= 0 && (m->contact.margin < m->contact.radius || m->contact.radius == 0),
                "particle_margin", "in [0, particle_radius)");
    CHECK_RANGE(m->contact.restitution >= 0 && m->contact.restitution <= 1, "restitution", "in [0, 1]");
    CHECK_RANGE(m->contact.friction >= 0 && m->contact.friction <= 1, "friction", "in [0, 1]");
    CHECK_RANGE(m->contact.erp >= 0 && m->contact.erp <= 1, "erp", "in [0, 1]");
    /* The solver's per-material values, each against its descriptor in the solver's table. */
    const eddy_param_values *pv = &m->params;
    if (pv->count && (!pv->desc || !pv->values))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "material '%s': %zu parameter values without a table or values", name, pv->count);
    for (size_t i = 0; i < pv->count; ++i) {
        int rc = eddy_param_check(eddy_param_at(pv->desc, i), &pv->values[i], NULL, err);
        if (rc) return eddy_error_prefix(err, "material '%s': ", name);
    }
    /* The spacing the lattice sum gives this mass: NaN when the mass is too small for h (more than
     * EDDY_LATTICE_RATIO_MAX spacings per smoothing radius), which no sum of the solvers resolves. */
    const eddy_real dist = eddy_rest_spacing(m->particle_mass, m->rest_density, w->smoothing_radius, w->dimensions);
    if (!(dist > 0))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "material '%s': particle_mass %g gives a rest spacing below smoothing_radius / %d "
                              "(%g); the lattice helpers are defined up to %d spacings per smoothing radius",
                              name, (double)m->particle_mass, EDDY_LATTICE_RATIO_MAX,
                              (double)w->smoothing_radius / EDDY_LATTICE_RATIO_MAX, EDDY_LATTICE_RATIO_MAX);
    struct eddy_world_impl *im = w->impl;
    if (w->material_count >= UINT32_MAX - 1)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "material '%s': more than 2^32 - 2 materials", name);
    if (reserve_name_slot(im, w->materials, w->material_count))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    const size_t slot = name_slot(im, w->materials, name);
    if (im->name_slots[slot])
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "material '%s' is defined twice", name);
    if (w->material_count == im->material_capacity) {
        const size_t capacity = im->material_capacity ? 2 * im->material_capacity : 4;
        eddy_material *grown = realloc(w->materials, sizeof *grown * capacity);
        if (!grown) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        w->materials = grown;
        eddy_contact_params *grown_contacts = realloc(w->contacts, sizeof *grown_contacts * capacity);
        if (!grown_contacts) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        w->contacts = grown_contacts;
        im->material_capacity = capacity;
    }
    eddy_material *mats = w->materials;
    eddy_contact_params *cps = w->contacts;
    eddy_material *dst = &mats[w->material_count];
    /* Only the members this libeddy knows; a newer caller's larger struct is cut to them. */
    memcpy(dst, m, sizeof *dst);
    dst->size = sizeof *dst;
    memcpy(dst->name, name, sizeof name);
    int rc = copy_params(&dst->params, pv, name, err);
    if (rc) return rc;
    dst->particle_dist = dist;
    cps[w->material_count] = m->contact;
    im->name_slots[slot] = (uint32_t)(w->material_count + 1);
    w->material_count++;
    return EDDY_OK;
}

int eddy_world_add_particles(eddy_world *w, size_t n, const eddy_real *positions, const eddy_real *velocities,
                             uint32_t material, eddy_error *err)
{
    if (material >= w->material_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "material index %u: only %zu materials",
                              (unsigned)material, w->material_count);
    size_t first = 0;
    int rc = eddy_particles_add(&w->particles, n, positions, velocities, material, &first, err);
    if (rc) return rc;
    for (size_t i = first; i < first + n; ++i) w->particles.mass[i] = w->materials[material].particle_mass;
    return EDDY_OK;
}

static int push_collider(eddy_world *w, const eddy_collider *c, eddy_error *err)
{
    struct eddy_world_impl *im = w->impl;
    if (w->boundaries.collider_count == im->collider_capacity) {
        const size_t capacity = im->collider_capacity ? 2 * im->collider_capacity : 8;
        eddy_collider *grown = realloc(w->boundaries.colliders, sizeof *grown * capacity);
        if (!grown) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        w->boundaries.colliders = grown;
        im->collider_capacity = capacity;
    }
    w->boundaries.colliders[w->boundaries.collider_count++] = *c;
    return EDDY_OK;
}

int eddy_world_set_container(eddy_world *w, const eddy_real min[3], const eddy_real max[3],
                             const int periodic[3], eddy_error *err)
{
    if (w->boundaries.has_container)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "container is already set");
    if (w->boundaries.collider_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "set the container before the colliders");
    for (int a = 0; a < w->dimensions; ++a)
        if (!(min[a] < max[a]) || !isfinite(min[a]) || !isfinite(max[a]))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "container: min[%d] = %g must be below max[%d] = %g", a, min[a], a,
                                  max[a]);
    w->boundaries.has_container = 1;
    for (int a = 0; a < 3; ++a) {
        w->boundaries.container_min[a] = a < w->dimensions ? min[a] : 0.0f;
        w->boundaries.container_max[a] = a < w->dimensions ? max[a] : 0.0f;
    }
    for (int a = 0; a < w->dimensions; ++a) {
        if (periodic && periodic[a]) continue;
        for (int side = 0; side < 2; ++side) {
            eddy_collider c;
            memset(&c, 0, sizeof c);
            c.size = sizeof c;
            c.shape = EDDY_SHAPE_PLANE;
            c.is_container_wall = 1;
            c.point[a] = side ? max[a] : min[a];
            c.normal[a] = side ? -1.0f : 1.0f;
            int rc = push_collider(w, &c, err);
            if (rc) {
                /* (no collider came before the walls: back to no container at all) */
                w->boundaries.collider_count = 0;
                w->boundaries.has_container = 0;
                memset(w->boundaries.container_min, 0, sizeof w->boundaries.container_min);
                memset(w->boundaries.container_max, 0, sizeof w->boundaries.container_max);
                return rc;
            }
        }
    }
    return EDDY_OK;
}

int eddy_world_add_collider(eddy_world *w, const eddy_collider *c, eddy_error *err)
{
    if (!c) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "collider: NULL");
    if (c->size < sizeof(eddy_collider))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "collider: a struct of %zu bytes, %zu needed; fill it with eddy_default_collider()",
                              c->size, sizeof(eddy_collider));
    eddy_collider copy;
    memcpy(&copy, c, sizeof copy);
    copy.size = sizeof copy;
    copy.is_container_wall = 0;
    if (copy.shape == EDDY_SHAPE_PLANE) {
        eddy_real l = 0.0f;
        for (int a = 0; a < w->dimensions; ++a) l += copy.normal[a] * copy.normal[a];
        l = sqrtf(l);
        if (l > 0 && isfinite(l)) {
            for (int a = 0; a < 3; ++a) copy.normal[a] = a < w->dimensions ? copy.normal[a] / l : 0.0f;
        } else {
            /* The squares over- or underflowed in float ([1e38, 1e38], [1e-40, 0]): in double, which
             * holds them; only a vector that is zero or not finite there is refused. */
            double ld = 0.0;
            for (int a = 0; a < w->dimensions; ++a) ld += (double)copy.normal[a] * (double)copy.normal[a];
            ld = sqrt(ld);
            if (!isfinite(ld))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "plane collider: normal is not finite");
            if (!(ld > 0))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "plane collider: normal has zero length");
            for (int a = 0; a < 3; ++a)
                copy.normal[a] = a < w->dimensions ? (eddy_real)((double)copy.normal[a] / ld) : 0.0f;
        }
    } else if (copy.shape == EDDY_SHAPE_SPHERE) {
        if (!(copy.radius > 0))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "sphere collider: radius must be > 0");
    } else if (copy.shape == EDDY_SHAPE_BOX) {
        for (int a = 0; a < w->dimensions; ++a)
            if (!(copy.min[a] < copy.max[a]))
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "box collider: min[%d] must be below max[%d]", a, a);
    } else {
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "collider: unknown shape %d", (int)c->shape);
    }
    return push_collider(w, &copy, err);
}

int eddy_world_init_grid_with(eddy_world *w, const eddy_real lo[3], const eddy_real hi[3],
                              const int periodic[3], const eddy_grid_backend_vtable *backend,
                              const eddy_param_values *params, eddy_domain_policy policy, eddy_error *err)
{
    if (!(w->smoothing_radius > 0) || !isfinite(w->smoothing_radius))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "smoothing_radius must be > 0, got %g",
                              w->smoothing_radius);
    eddy_grid_layout layout;
    int rc = eddy_grid_layout_init(&layout, w->dimensions, lo, hi, periodic, w->smoothing_radius, err);
    if (rc) return rc;
    /* The new grid is made beside the old one, so that a grid that cannot be made (a device backend
     * without a device, memory) leaves the world with the grid it had. */
    eddy_grid fresh;
    if ((rc = eddy_grid_init_with(&fresh, &layout, backend, params, w->host, policy, err))) return rc;
    eddy_grid_free(&w->grid);
    w->grid = fresh;
    return EDDY_OK;
}

int eddy_world_init_grid(eddy_world *w, const eddy_real lo[3], const eddy_real hi[3], const int periodic[3],
                         const eddy_grid_backend_vtable *backend, eddy_domain_policy policy,
                         eddy_error *err)
{
    return eddy_world_init_grid_with(w, lo, hi, periodic, backend, NULL, policy, err);
}

double eddy_time_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void eddy_world_add_phase_time(eddy_world *w, eddy_phase phase, double ms)
{
    if ((int)phase >= 0 && phase < EDDY_PHASE_COUNT) w->phase_ms[phase] += ms;
}

int eddy_world_build_grid(eddy_world *w, eddy_error *err)
{
    double t0 = eddy_time_ms();
    /* A process of a decomposed run holds one slab of the particles (and its halo): its grid stores
     * the cells around them only, not the whole domain's, or the grid alone would cost every process
     * memory in proportion to the whole run. Not with device-resident fields: a device solver may keep
     * the layout it saw at create(). */
    eddy_grid_set_window(&w->grid, w->impl->has_exchange && !w->impl->has_residency);
    int rc = eddy_grid_build(&w->grid, &w->particles, err);
    eddy_world_add_phase_time(w, EDDY_PHASE_GRID, eddy_time_ms() - t0);
    return rc;
}

void eddy_world_integrate_velocity(eddy_world *w, int acceleration_field, eddy_real dt)
{
    eddy_particles *p = &w->particles;
    const eddy_real *ax = eddy_particles_field(p, acceleration_field, 0);
    const eddy_real *ay = eddy_particles_field(p, acceleration_field, 1);
    const eddy_real *az = eddy_particles_field(p, acceleration_field, 2);
    const eddy_real gx = w->gravity[0], gy = w->gravity[1], gz = w->dimensions == 3 ? w->gravity[2] : 0.0f;
    const long long n = (long long)p->count;
    eddy_real *vx = p->vx, *vy = p->vy, *vz = p->vz;
    if (ax && ay && az) {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) {
            vx[i] += (ax[i] + gx) * dt;
            vy[i] += (ay[i] + gy) * dt;
            vz[i] += (az[i] + gz) * dt;
        }
    } else {
        /* A wrong id (a material parameter's index, a field of one component) ran as gravity alone
         * without a word: the ABI keeps that behaviour (the call returns nothing), and says it once per
         * process, where a plugin author sees it. */
        /* (by the field's shape, not its storage: a world without particles has none) */
        static atomic_int said;
        if (acceleration_field != -1 && eddy_particles_field_components(p, acceleration_field) < 3 &&
            !atomic_exchange(&said, 1))
            eddy_host_log(w->host, EDDY_LOG_WARNING, NULL,
                          "warning: eddy_world_integrate_velocity: field id %d is not a particle field of 3 "
                          "components, so the velocity update applies gravity alone; pass the id "
                          "eddy_particles_add_field returned for the acceleration (-1 for gravity alone)",
                          acceleration_field);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) {
            vx[i] += gx * dt;
            vy[i] += gy * dt;
            vz[i] += gz * dt;
        }
    }
}

void eddy_world_symplectic_euler(eddy_world *w, int acceleration_field, eddy_real dt)
{
    double t0 = eddy_time_ms();
    eddy_world_integrate_velocity(w, acceleration_field, dt);
    eddy_world_respond_boundaries(w, dt);
    eddy_world_integrate_position(w, dt);
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, eddy_time_ms() - t0);
}

void eddy_world_integrate_position(eddy_world *w, eddy_real dt)
{
    eddy_particles *p = &w->particles;
    const long long n = (long long)p->count;
    eddy_real *x = p->x, *y = p->y, *z = p->z;
    const eddy_real *vx = p->vx, *vy = p->vy, *vz = p->vz;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        x[i] += vx[i] * dt;
        y[i] += vy[i] * dt;
        z[i] += vz[i] * dt;
    }
}

void eddy_world_respond_boundaries(eddy_world *w, eddy_real dt)
{
    eddy_boundaries_respond(&w->boundaries, w->contacts, &w->particles, dt);
}

/* ---------------------------------------------------------------------------------------------- */
/* The per-step reduction                                                                         */

static int stats_current(const eddy_world *w)
{
    const struct eddy_world_impl *im = w->impl;
    const eddy_particles *p = &w->particles;
    return im->stats_valid && im->stats.step == w->step && im->stats_count == p->count &&
           im->stats_layout_generation == eddy_particles_generation(p, EDDY_FIELD_LAYOUT) &&
           im->stats_position_generation == eddy_particles_generation(p, EDDY_FIELD_POSITION) &&
           im->stats_velocity_generation == eddy_particles_generation(p, EDDY_FIELD_VELOCITY);
}

static void stats_stamp(eddy_world *w)
{
    struct eddy_world_impl *im = w->impl;
    const eddy_particles *p = &w->particles;
    im->stats_valid = 1;
    im->stats_count = p->count;
    im->stats_layout_generation = eddy_particles_generation(p, EDDY_FIELD_LAYOUT);
    im->stats_position_generation = eddy_particles_generation(p, EDDY_FIELD_POSITION);
    im->stats_velocity_generation = eddy_particles_generation(p, EDDY_FIELD_VELOCITY);
}

/* Zero when a, b and c are finite, NaN otherwise (x - x is NaN for inf and NaN): one expression with
 * no branch, so the pass below vectorizes (-fno-trapping-math; there is no -ffinite-math-only to
 * fold it away). */
static inline eddy_real nonfinite3(eddy_real a, eddy_real b, eddy_real c)
{
    return (a - a) + (b - b) + (c - c);
}

/* The smallest id among the owned nonfinite particles: a second pass, run only when the first found
 * one, so the common step pays nothing for it. Independent of storage order and threads. */
static size_t first_nonfinite(const eddy_particles *p)
{
    size_t first = SIZE_MAX;
    uint64_t first_id = UINT64_MAX;
    for (size_t i = 0; i < p->count; ++i) {
        if (p->flags[i] & EDDY_PARTICLE_HALO) continue;
        const eddy_real d = nonfinite3(p->vx[i], p->vy[i], p->vz[i]) + nonfinite3(p->x[i], p->y[i], p->z[i]);
        if (d != d && p->id[i] < first_id) {
            first_id = p->id[i];
            first = i;
        }
    }
    return first;
}

/* One parallel pass over the owned particles, branch-free and declared simd so that it vectorizes:
 * it runs once a step on every particle. The speed is the max of the float squares, then one sqrtf,
 * exactly as ABI 1.x computed it, so the time step limits stay bit-identical; the max of values that
 * are never NaN is independent of order, so neither the thread count nor the vector width can change
 * it. */
static void compute_stats(eddy_world *w, eddy_step_stats *out)
{
    const eddy_particles *p = &w->particles;
    const long long n = (long long)p->count;
    const eddy_real *x = p->x, *y = p->y, *z = p->z, *vx = p->vx, *vy = p->vy, *vz = p->vz;
    const uint8_t *flags = p->flags;
    eddy_real m2 = 0.0f;
    /* 32-bit counters: with the 8-bit flags and 32-bit floats they keep one vector width (a 64-bit
     * counter stops GCC vectorizing); the world holds fewer than 2^32 particles. */
    unsigned bad_v = 0, bad_x = 0;
#pragma omp parallel for simd if (n >= WORLD_PARALLEL_MIN) schedule(static) \
    reduction(max : m2) reduction(+ : bad_v, bad_x)
    for (long long i = 0; i < n; ++i) {
        /* Tested one bit up: GCC 12 does not vectorize a test of bit 0 of a byte in this loop. */
        const int owned = (((int)flags[i] << 1) & (EDDY_PARTICLE_HALO << 1)) == 0;
        const eddy_real dv = nonfinite3(vx[i], vy[i], vz[i]), dx = nonfinite3(x[i], y[i], z[i]);
        const int bad_vi = dv != dv, bad_xi = dx != dx;
        const eddy_real s = vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i];
        const eddy_real counted = (owned & !bad_vi) ? s : 0.0f;
        m2 = counted > m2 ? counted : m2;
        bad_v += (unsigned)(owned & bad_vi);
        bad_x += (unsigned)(owned & bad_xi);
    }
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->step = w->step;
    out->max_speed = (double)sqrtf(m2);
    out->nonfinite_velocity = (size_t)bad_v;
    out->nonfinite_position = (size_t)bad_x;
    out->first_nonfinite = (bad_v || bad_x) ? first_nonfinite(p) : SIZE_MAX;
}

const eddy_step_stats *eddy_world_step_stats(eddy_world *w)
{
    struct eddy_world_impl *im = w->impl;
    if (!stats_current(w) && !im->in_stats) {
        /* The cache is gone (a host write mapping, or before the first step): the figures come from
         * the host arrays, so a stale device-resident position, velocity or layout is downloaded
         * first. in_stats keeps a download that asks for the figures itself from recursing. */
        static const int read[3] = {EDDY_FIELD_POSITION, EDDY_FIELD_VELOCITY, EDDY_FIELD_LAYOUT};
        int failed = 0;
        im->in_stats = 1;
        for (int k = 0; k < 3; ++k) {
            if (read[k] == EDDY_FIELD_LAYOUT ? !im->layout_stale : !im->stale[read[k]]) continue;
            eddy_field_view v;
            memset(&v, 0, sizeof v);
            v.size = sizeof v;
            eddy_error ignored;
            if (eddy_world_map_field(w, read[k], EDDY_MAP_READ, &v, &ignored)) failed = 1;
            else eddy_world_unmap_field(w, &v);
        }
        im->in_stats = 0;
        compute_stats(w, &im->stats);
        /* After a failed download the figures describe a stale copy: not cached, so the next query
         * tries again, and the host's check (which maps the offending field to name it) meets the
         * device's error rather than a phantom explosion. */
        if (failed) im->stats_valid = 0;
        else stats_stamp(w);
    }
    return &im->stats;
}

void eddy_world_set_step_stats(eddy_world *w, const eddy_step_stats *stats)
{
    struct eddy_world_impl *im = w->impl;
    if (!stats) {
        im->stats_valid = 0;
        return;
    }
    eddy_step_stats s;
    memset(&s, 0, sizeof s);
    s.first_nonfinite = SIZE_MAX; /* the default of a member an older solver's size does not cover */
    size_t n = stats->size < sizeof s ? stats->size : sizeof s;
    memcpy(&s, stats, n);
    s.size = sizeof s;
    im->stats = s;
    stats_stamp(w);
    /* The figures describe the step they say; a stale step is recomputed on the next query. */
    if (s.step != w->step) im->stats_valid = 0;
}

eddy_real eddy_world_max_speed(const eddy_world *w)
{
    /* The cache is logically const: the figures are a function of the world's state. */
    return (eddy_real)eddy_world_step_stats((eddy_world *)w)->max_speed;
}

double eddy_world_cfl_dt(const eddy_world *w, double cfl, double signal_speed)
{
    double speed = signal_speed + (double)eddy_world_max_speed(w);
    if (!(speed > 0)) return INFINITY;
    return cfl * (double)w->smoothing_radius / speed;
}

double eddy_world_stable_dt(const eddy_world *w, double cfl, double signal_speed, double nu_max,
                            double accel_max, const char **limit)
{
    const double h = w->smoothing_radius;
    double best = eddy_world_cfl_dt(w, cfl, signal_speed);
    const char *name = "CFL";
    if (nu_max > 0 && 0.125 * h * h / nu_max < best) {
        best = 0.125 * h * h / nu_max;
        name = "viscous";
    }
    if (accel_max > 0 && 0.25 * sqrt(h / accel_max) < best) {
        best = 0.25 * sqrt(h / accel_max);
        /* An acceleration whose square overflowed a float (eddy_sph_max_accel's +inf) makes this limit
         * 0: named apart, so that the host can blame the state rather than the solver's max_dt (sim.c
         * matches the exact name). */
        name = isinf(accel_max) ? "acceleration overflow" : "force";
    }
    if (limit) *limit = name;
    return best;
}

/* ---------------------------------------------------------------------------------------------- */
/* Field residency and mappings                                                                   */

static int valid_field(const eddy_world *w, int field)
{
    return field >= 0 && field < eddy_particles_field_count(&w->particles);
}

int eddy_world_set_field_space(eddy_world *w, int field, eddy_memory_space space, eddy_error *err)
{
    if (field != EDDY_FIELD_LAYOUT && !valid_field(w, field))
        return eddy_error_set(err, EDDY_ERR_NOT_FOUND, "no field %d", field);
    if (space != EDDY_MEMORY_HOST && space != EDDY_MEMORY_DEVICE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "field %d: unknown memory space %d", field,
                              (int)space);
    struct eddy_world_impl *im = w->impl;
    /* The host copy is current when a field changes place: the solver copies it up from there. */
    if (field == EDDY_FIELD_LAYOUT) {
        im->layout_space = (unsigned char)space;
        im->layout_stale = 0;
    } else {
        im->space[field] = (unsigned char)space;
        im->stale[field] = 0;
    }
    return EDDY_OK;
}

eddy_memory_space eddy_world_field_space(const eddy_world *w, int field)
{
    if (field == EDDY_FIELD_LAYOUT) return (eddy_memory_space)w->impl->layout_space;
    if (!valid_field(w, field)) return EDDY_MEMORY_HOST;
    return (eddy_memory_space)w->impl->space[field];
}

void eddy_world_set_residency(eddy_world *w, const eddy_residency *residency)
{
    struct eddy_world_impl *im = w->impl;
    memset(&im->residency, 0, sizeof im->residency);
    im->has_residency = 0;
    if (!residency) return;
    size_t n = residency->size < sizeof im->residency ? residency->size : sizeof im->residency;
    memcpy(&im->residency, residency, n);
    im->residency.size = sizeof im->residency;
    im->has_residency = 1;
}

/* True when some field or the layout lives on a device (so the layout can fall behind too). */
static int any_device(const eddy_world *w)
{
    const struct eddy_world_impl *im = w->impl;
    if (im->layout_space == EDDY_MEMORY_DEVICE) return 1;
    const int n = eddy_particles_field_count(&w->particles);
    for (int f = 0; f < n; ++f)
        if (im->space[f] == EDDY_MEMORY_DEVICE) return 1;
    return 0;
}

void eddy_world_mark_host_stale(eddy_world *w, int field)
{
    struct eddy_world_impl *im = w->impl;
    if (field == -1) {
        const int n = eddy_particles_field_count(&w->particles);
        for (int f = 0; f < n; ++f)
            if (im->space[f] == EDDY_MEMORY_DEVICE) im->stale[f] = 1;
        if (any_device(w)) im->layout_stale = 1;
        return;
    }
    if (valid_field(w, field) && im->space[field] == EDDY_MEMORY_DEVICE) im->stale[field] = 1;
}

/* Brings the host copy of `field` (or of the layout alone, for EDDY_FIELD_LAYOUT) up to date. */
static int download(eddy_world *w, int field, eddy_error *err)
{
    struct eddy_world_impl *im = w->impl;
    const char *name = field == EDDY_FIELD_LAYOUT ? "the particle layout"
                                                  : eddy_particles_field_name(&w->particles, field);
    if (!im->has_residency || !im->residency.download)
        return eddy_error_set(err, EDDY_ERR_DEVICE,
                              "field '%s': the host copy is stale and no residency provider is installed to "
                              "download it",
                              name);
    int rc = im->residency.download(im->residency.context, w, field, err);
    if (rc) return eddy_error_prefix(err, "downloading %s%s%s: ", field == EDDY_FIELD_LAYOUT ? "" : "field '",
                                     name, field == EDDY_FIELD_LAYOUT ? "" : "'");
    /* A field comes with the layout it is meaningless without. */
    if (field != EDDY_FIELD_LAYOUT) im->stale[field] = 0;
    im->layout_stale = 0;
    return EDDY_OK;
}

#define VIEW_MIN_SIZE (offsetof(eddy_field_view, generation) + sizeof(((eddy_field_view *)0)->generation))

int eddy_world_map_field(eddy_world *w, int field, eddy_map_access access, eddy_field_view *view,
                         eddy_error *err)
{
    if (!view) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "map field %d: NULL view", field);
    if (view->size < VIEW_MIN_SIZE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "map field %d: the view's size is %zu, %zu needed (set view.size = "
                              "sizeof(eddy_field_view))",
                              field, view->size, (size_t)VIEW_MIN_SIZE);
    if (field != EDDY_FIELD_LAYOUT && !valid_field(w, field))
        return eddy_error_set(err, EDDY_ERR_NOT_FOUND, "no field %d", field);
    if (access != EDDY_MAP_READ && access != EDDY_MAP_WRITE && access != EDDY_MAP_READ_WRITE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "map field %d: unknown access %d", field,
                              (int)access);
    struct eddy_world_impl *im = w->impl;
    int rc = EDDY_OK;
    const int field_stale = field != EDDY_FIELD_LAYOUT && im->stale[field];
    if (field_stale && access != EDDY_MAP_WRITE) rc = download(w, field, err);
    else if (im->layout_stale) rc = download(w, EDDY_FIELD_LAYOUT, err); /* a write skips the values */
    if (rc) return rc;
    eddy_particles *p = &w->particles;
    const size_t size = view->size;
    memset((char *)view + sizeof view->size, 0, VIEW_MIN_SIZE - sizeof view->size);
    view->size = size;
    view->field = field;
    view->access = access;
    view->components = field == EDDY_FIELD_LAYOUT ? 0 : eddy_particles_field_components(p, field);
    view->count = p->count;
    for (int c = 0; c < view->components; ++c) view->data[c] = eddy_particles_field(p, field, c);
    view->id = p->id;
    view->material = p->material;
    view->flags = p->flags;
    view->generation = eddy_particles_generation(p, field);
    return EDDY_OK;
}

void eddy_world_unmap_field(eddy_world *w, eddy_field_view *view)
{
    if (!w || !view || !(view->access & EDDY_MAP_WRITE)) return;
    const int field = view->field;
    if (field != EDDY_FIELD_LAYOUT && !valid_field(w, field)) return;
    struct eddy_world_impl *im = w->impl;
    eddy_particles_touch(&w->particles, field);
    /* The host copy now holds the newest values (the solver uploads them by the generation). */
    if (field == EDDY_FIELD_LAYOUT) im->layout_stale = 0;
    else im->stale[field] = 0;
    if (field == EDDY_FIELD_POSITION || field == EDDY_FIELD_VELOCITY || field == EDDY_FIELD_LAYOUT)
        im->stats_valid = 0;
}

int eddy_world_sync_host(eddy_world *w, eddy_error *err)
{
    /* Device fields first: each download brings the layout along, so the host fields and the layout
     * mapped after them are normally current already (one download per stale field, none extra). */
    const int n = eddy_particles_field_count(&w->particles);
    for (int k = 0; k <= 2 * n; ++k) {
        const int f = k < 2 * n ? k % n : EDDY_FIELD_LAYOUT;
        if (k < 2 * n && (k < n) != (w->impl->space[f] == EDDY_MEMORY_DEVICE)) continue;
        eddy_field_view view;
        view.size = sizeof view;
        int rc = eddy_world_map_field(w, f, EDDY_MAP_READ, &view, err);
        if (rc) return rc;
        eddy_world_unmap_field(w, &view);
    }
    return EDDY_OK;
}

uint64_t eddy_world_field_generation(const eddy_world *w, int field)
{
    return eddy_particles_generation(&w->particles, field);
}

int eddy_world_hash(eddy_world *w, uint64_t *hash, eddy_error *err)
{
    int rc = eddy_world_sync_host(w, err);
    if (rc) return rc;
    return eddy_particles_hash(&w->particles, hash, err);
}

/* ---------------------------------------------------------------------------------------------- */
/* Several processes                                                                              */

void eddy_world_set_exchange(eddy_world *w, const eddy_exchange *exchange)
{
    struct eddy_world_impl *im = w->impl;
    memset(&im->exchange, 0, sizeof im->exchange);
    im->has_exchange = 0;
    if (!exchange) return;
    size_t n = exchange->size < sizeof im->exchange ? exchange->size : sizeof im->exchange;
    memcpy(&im->exchange, exchange, n);
    im->exchange.size = sizeof im->exchange;
    im->has_exchange = im->exchange.refresh != NULL;
}

int eddy_world_refresh_fields(eddy_world *w, const int *fields, size_t field_count, eddy_error *err)
{
    struct eddy_world_impl *im = w->impl;
    /* Checked on one process too: a wrong field id must not work until the run is decomposed. */
    if (field_count && !fields)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "refresh fields: %zu fields but no list",
                              field_count);
    for (size_t i = 0; i < field_count; ++i)
        if (!valid_field(w, fields[i]))
            return eddy_error_set(err, EDDY_ERR_NOT_FOUND, "refresh fields: no field %d", fields[i]);
    if (!im->has_exchange) return EDDY_OK;
    return im->exchange.refresh(im->exchange.context, w, fields, field_count, err);
}

int eddy_world_reduce(eddy_world *w, eddy_reduce_op op, double *values, size_t count, eddy_error *err)
{
    if (op != EDDY_REDUCE_MIN && op != EDDY_REDUCE_MAX && op != EDDY_REDUCE_SUM)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "reduce: unknown operation %d", (int)op);
    if (count && !values)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "reduce: %zu values but no array", count);
    const struct eddy_world_impl *im = w->impl;
    /* One process: every value is already the global one. */
    if (!im->has_exchange || !im->exchange.reduce || count == 0) return EDDY_OK;
    return im->exchange.reduce(im->exchange.context, op, values, count, err);
}

void eddy_world_set_host(eddy_world *w, const eddy_host *host)
{
    w->host = host ? host : eddy_host_silent();
}
