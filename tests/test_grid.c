/*
 * Neighbor grid tests. The reference for every neighbor query is an O(N^2) brute force with the
 * minimum image on periodic axes; the grid's answer is taken both from eddy_grid_cell_ranges (the
 * 3-cell bars, with their periodic shifts) and from the CSR lists, and must be exactly the same set.
 * Distances are computed as (xj - xi) + shift, the same float operations as eddy_grid_min_image, so
 * agreement is expected bit for bit, not within a tolerance.
 *
 * Clouds: uniform random, clustered (gaussian blobs: many empty cells, dense cells), lattices whose
 * points lie exactly on cell borders and domain bounds (binary fractions, so no rounding), and random
 * clouds salted with coordinates exactly on bounds and cell borders. Each runs in 2D and 3D, bounded
 * and with every periodic axis alone and all together, then again after the particles moved.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <omp.h>

#include <eddy/grid.h>
#include <eddy/host.h>
#include <eddy/particles.h>

/* ---------------------------------------------------------------------------------------------- */
/* Helpers                                                                                        */

#include "test_rng.h"

static const char *axis_names = "xyz";

typedef struct config {
    int dims;
    int periodic[3];
    float lo[3], hi[3];
    float h;
} config;

static void config_label(const config *c, const char *cloud, char *buf, size_t n)
{
    snprintf(buf, n, "%dD %s periodic=%c%c%c", c->dims, cloud, c->periodic[0] ? 'x' : '-',
             c->periodic[1] ? 'y' : '-', c->periodic[2] ? 'z' : '-');
}

static void make_grid(const config *c, eddy_domain_policy policy, eddy_grid *g)
{
    eddy_grid_layout l;
    eddy_error err = {0};
    int rc = eddy_grid_layout_init(&l, c->dims, c->lo, c->hi, c->periodic, c->h, &err);
    if (rc) fail_msg("layout: %s", err.message);
    rc = eddy_grid_init(g, &l, NULL, policy, &err);
    if (rc) fail_msg("grid init: %s", err.message);
}

static void make_particles(eddy_particles *p, int dims, const float *pos, size_t n)
{
    eddy_error err = {0};
    assert_int_equal(eddy_particles_init(p, dims, &err), EDDY_OK);
    if (n && eddy_particles_add(p, n, pos, NULL, 0, NULL, &err)) fail_msg("add: %s", err.message);
}

static void build_ok(eddy_grid *g, eddy_particles *p)
{
    eddy_error err = {0};
    int rc = eddy_grid_build(g, p, &err);
    if (rc) fail_msg("grid build failed (%d): %s", rc, err.message);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Structural invariants of a built grid: exclusive prefix sums over all stored cells, empty ghost
 * cells, particle_cell consistent with positions and ranges, occupied list exact, positions inside
 * the domain (wrapped on periodic axes). */
static void check_structure(const eddy_grid *g, const eddy_particles *p, const char *label)
{
    const eddy_grid_layout *l = &g->layout;
    const size_t n = p->count;
    if (g->particle_count != n) fail_msg("%s: particle_count %zu != %zu", label, g->particle_count, n);
    if (g->cell_begin[0] != 0) fail_msg("%s: cell_begin[0] = %u", label, g->cell_begin[0]);
    for (size_t c = 0; c < l->cell_count; ++c) {
        if (g->cell_end[c] < g->cell_begin[c]) fail_msg("%s: cell %zu has end < begin", label, c);
        if (c + 1 < l->cell_count && g->cell_begin[c + 1] != g->cell_end[c])
            fail_msg("%s: cell_begin[%zu] != cell_end[%zu]", label, c + 1, c);
        int32_t ix = (int32_t)(c % (size_t)l->dim[0]);
        int32_t iy = (int32_t)(c / (size_t)l->dim[0] % (size_t)l->dim[1]);
        int32_t iz = (int32_t)(c / ((size_t)l->dim[0] * (size_t)l->dim[1]));
        int32_t ii[3] = {ix, iy, iz};
        for (int a = 0; a < 3; ++a)
            if ((ii[a] < l->pad[a] || ii[a] >= l->pad[a] + l->cells[a]) && g->cell_end[c] != g->cell_begin[c])
                fail_msg("%s: ghost cell %zu holds particles", label, c);
    }
    if (g->cell_end[l->cell_count - 1] != n)
        fail_msg("%s: last cell_end %u != %zu", label, g->cell_end[l->cell_count - 1], n);
    size_t occ = 0;
    for (size_t i = 0; i < n; ++i) {
        const float pos[3] = {p->x[i], p->y[i], p->z[i]};
        for (int a = 0; a < l->dimensions; ++a) {
            int ok = l->periodic[a] ? (pos[a] >= l->lo[a] && pos[a] < l->hi[a])
                                    : (pos[a] >= l->lo[a] && pos[a] <= l->hi[a]);
            if (!ok) fail_msg("%s: particle %zu axis %c = %.9g outside [%g, %g]", label, i, axis_names[a],
                              (double)pos[a], (double)l->lo[a], (double)l->hi[a]);
        }
        uint32_t c = g->particle_cell[i];
        if (c != eddy_grid_cell_of(l, p->x[i], p->y[i], p->z[i]))
            fail_msg("%s: particle_cell[%zu] = %u, position says %u", label, i, c,
                     eddy_grid_cell_of(l, p->x[i], p->y[i], p->z[i]));
        if (!(g->cell_begin[c] <= i && i < g->cell_end[c]))
            fail_msg("%s: particle %zu not in its cell's range", label, i);
        if (i > 0 && g->particle_cell[i - 1] > c)
            fail_msg("%s: particles not sorted by cell at %zu", label, i);
        if (i == 0 || g->particle_cell[i - 1] != c) {
            if (occ >= g->occupied_count || g->occupied[occ] != c)
                fail_msg("%s: occupied[%zu] wrong (cell %u)", label, occ, c);
            ++occ;
        }
    }
    if (occ != g->occupied_count)
        fail_msg("%s: occupied_count %zu, expected %zu", label, g->occupied_count, occ);
}

/* Compares, for every particle, brute force vs cell ranges vs CSR lists at `radius`. */
static void check_neighbors(eddy_grid *g, const eddy_particles *p, float radius, const char *label)
{
    const eddy_grid_layout *l = &g->layout;
    const size_t n = p->count;
    const float r2 = radius * radius;
    eddy_error err = {0};
    int rc = eddy_grid_build_neighbor_lists(g, p, radius, &err);
    if (rc) fail_msg("%s: neighbor lists: %s", label, err.message);
    if (g->nbr_radius != radius || !g->nbr_offset) fail_msg("%s: lists not marked built", label);
    uint32_t *brute = malloc(sizeof(uint32_t) * (n + 1));
    uint32_t *ranged = malloc(sizeof(uint32_t) * (n + 1));
    assert_non_null(brute);
    assert_non_null(ranged);
    unsigned long long total = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t nb = 0, nr = 0;
        for (size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            float dx = p->x[j] - p->x[i], dy = p->y[j] - p->y[i], dz = p->z[j] - p->z[i];
            eddy_grid_min_image(l, &dx, &dy, &dz);
            float d2 = dx * dx + dy * dy + (l->dimensions == 3 ? dz * dz : 0.0f);
            if (d2 < r2) brute[nb++] = (uint32_t)j;
        }
        total += nb;
        eddy_range r[EDDY_MAX_CELL_RANGES];
        int k = eddy_grid_cell_ranges(g, g->particle_cell[i], r);
        if (k < 1 || k > EDDY_MAX_CELL_RANGES) fail_msg("%s: %d ranges", label, k);
        int self = 0;
        for (int q = 0; q < k; ++q) {
            if (!(r[q].begin < r[q].end && r[q].end <= n))
                fail_msg("%s: bad range [%u, %u)", label, r[q].begin, r[q].end);
            for (int a = 0; a < 3; ++a) {
                float L = l->hi[a] - l->lo[a], s = r[q].shift[a];
                int ok = s == 0.0f || (a < l->dimensions && l->periodic[a] && (s == L || s == -L));
                if (!ok) fail_msg("%s: range shift %g on axis %c", label, (double)s, axis_names[a]);
            }
            for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                if (j == i) {
                    ++self;
                    if (r[q].shift[0] != 0.0f || r[q].shift[1] != 0.0f || r[q].shift[2] != 0.0f)
                        fail_msg("%s: own cell carries a shift", label);
                    continue;
                }
                float dx = (p->x[j] - p->x[i]) + r[q].shift[0], dy = (p->y[j] - p->y[i]) + r[q].shift[1];
                float dz = (p->z[j] - p->z[i]) + r[q].shift[2];
                float d2 = dx * dx + dy * dy + (l->dimensions == 3 ? dz * dz : 0.0f);
                if (d2 < r2) ranged[nr++] = j;
            }
        }
        if (self != 1) fail_msg("%s: particle %zu appears %d times in its own ranges", label, i, self);
        qsort(ranged, nr, sizeof(uint32_t), cmp_u32);
        if (nr != nb || memcmp(ranged, brute, nb * sizeof(uint32_t)) != 0)
            fail_msg("%s: particle %zu (id %" PRIu64 " at %.9g %.9g %.9g): %zu neighbors via cell ranges, "
                     "%zu by brute force",
                     label, i, p->id[i], (double)p->x[i], (double)p->y[i], (double)p->z[i], nr, nb);
        const uint32_t *lst = g->nbr_index + g->nbr_offset[i];
        size_t nl = g->nbr_offset[i + 1] - g->nbr_offset[i];
        for (size_t q = 1; q < nl; ++q)
            if (lst[q - 1] >= lst[q]) fail_msg("%s: CSR list of %zu not strictly ascending", label, i);
        if (nl != nb || memcmp(lst, brute, nb * sizeof(uint32_t)) != 0)
            fail_msg("%s: particle %zu: %zu neighbors in CSR list, %zu by brute force", label, i, nl, nb);
    }
    double mean = eddy_grid_mean_neighbors(g, p, radius);
    double expect = n ? (double)total / (double)n : 0.0;
    if (mean != expect) fail_msg("%s: mean neighbors %g, expected %g", label, mean, expect);
    free(brute);
    free(ranged);
}

enum cloud { CLOUD_RANDOM, CLOUD_CLUSTERED, CLOUD_BORDERS, CLOUD_LATTICE };
static const char *cloud_names[] = {"random", "clustered", "borders", "lattice"};

/* Positions for a cloud. On periodic axes some particles start one or more periods outside, so the
 * build has to wrap them; on bounded axes everything is inside [lo, hi]. */
static size_t make_cloud(const config *c, enum cloud kind, size_t n, float *pos)
{
    float L[3], cs[3];
    int cells[3];
    for (int a = 0; a < 3; ++a) {
        L[a] = c->hi[a] - c->lo[a];
        double r = (double)L[a] / c->h;
        cells[a] = c->periodic[a] ? (int)floor(r) : (int)ceil(r);
        cs[a] = c->periodic[a] ? L[a] / (float)cells[a] : c->h;
    }
    if (kind == CLOUD_LATTICE) {
        /* Spacing h/2 from lo to hi inclusive; in 3D only the upper part in z, leaving empty cells.
         * Lattice points two steps apart are exactly h apart: not neighbors (strict <). */
        const float s = 0.5f * c->h;
        int m[3];
        for (int a = 0; a < 3; ++a) m[a] = (int)lroundf(L[a] / s) + 1;
        int z0 = c->dims == 3 ? m[2] / 2 : 0, z1 = c->dims == 3 ? m[2] : 1;
        size_t k = 0;
        for (int kz = z0; kz < z1; ++kz)
            for (int ky = 0; ky < m[1]; ++ky)
                for (int kx = 0; kx < m[0]; ++kx) {
                    if (k >= n) return k;
                    pos[3 * k] = c->lo[0] + s * (float)kx;
                    pos[3 * k + 1] = c->lo[1] + s * (float)ky;
                    pos[3 * k + 2] = c->dims == 3 ? c->lo[2] + s * (float)kz : 0.0f;
                    ++k;
                }
        return k;
    }
    float centers[4][3];
    for (int b = 0; b < 4; ++b)
        for (int a = 0; a < 3; ++a) centers[b][a] = c->lo[a] + (float)(rng_uniform() * L[a]);
    for (size_t i = 0; i < n; ++i) {
        int b = (int)(rng_next() % 4);
        for (int a = 0; a < 3; ++a) {
            float v;
            if (a >= c->dims) {
                v = 0.0f;
            } else if (kind == CLOUD_CLUSTERED) {
                v = centers[b][a] + (float)(0.6 * c->h * rng_gauss());
            } else {
                v = c->lo[a] + (float)(rng_uniform() * L[a]);
                if (kind == CLOUD_BORDERS && rng_uniform() < 0.4) {
                    double u = rng_uniform();
                    if (u < 0.2) v = c->lo[a];
                    else if (u < 0.4) v = c->hi[a];
                    else v = c->lo[a] + cs[a] * (float)(rng_next() % (uint64_t)(cells[a] + 1));
                }
            }
            if (a < c->dims && !c->periodic[a]) {
                if (v < c->lo[a]) v = c->lo[a];
                if (v > c->hi[a]) v = c->hi[a];
            }
            if (a < c->dims && c->periodic[a] && kind != CLOUD_BORDERS && rng_uniform() < 0.1)
                v += L[a] * (float)((int)(rng_next() % 5) - 2);
            pos[3 * i + a] = v;
        }
    }
    return n;
}

/* Moves every particle by up to `amount` h per axis (clamped on bounded axes; on periodic axes left
 * for the grid to wrap unless `wrap`), to exercise rebuilds of a nearly sorted set. */
static void jiggle(const config *c, eddy_particles *p, float amount, int wrap)
{
    float *pos[3] = {p->x, p->y, p->z};
    for (size_t i = 0; i < p->count; ++i)
        for (int a = 0; a < c->dims; ++a) {
            float v = pos[a][i] + amount * c->h * (float)(2.0 * rng_uniform() - 1.0);
            if (!c->periodic[a]) {
                v = fminf(fmaxf(v, c->lo[a]), c->hi[a]);
            } else if (wrap) {
                const float L = c->hi[a] - c->lo[a];
                if (v < c->lo[a]) v += L;
                if (v >= c->hi[a]) v -= L;
                if (!(v >= c->lo[a] && v < c->hi[a])) v = c->lo[a];
            }
            pos[a][i] = v;
        }
}

static float min_cell(const eddy_grid *g)
{
    float m = g->layout.cell_size[0];
    for (int a = 1; a < g->layout.dimensions; ++a) m = fminf(m, g->layout.cell_size[a]);
    return m;
}

static void run_config(const config *c, enum cloud kind, size_t n, uint64_t seed)
{
    char label[128];
    config_label(c, cloud_names[kind], label, sizeof label);
    rng_seed(seed);
    float *pos = malloc(sizeof(float) * 3 * n);
    assert_non_null(pos);
    n = make_cloud(c, kind, n, pos);
    eddy_particles p;
    make_particles(&p, c->dims, pos, n);
    eddy_grid g;
    make_grid(c, EDDY_DOMAIN_ERROR, &g);
    for (int pass = 0; pass < 3; ++pass) {
        char lab[160];
        snprintf(lab, sizeof lab, "%s n=%zu pass %d", label, n, pass);
        build_ok(&g, &p);
        check_structure(&g, &p, lab);
        check_neighbors(&g, &p, c->h, lab);
        check_neighbors(&g, &p, 0.55f * c->h, lab);
        if (min_cell(&g) != c->h) check_neighbors(&g, &p, min_cell(&g), lab);
        jiggle(c, &p, pass == 0 ? 0.1f : 0.4f, 0);
    }
    eddy_grid_free(&g);
    eddy_particles_free(&p);
    free(pos);
}

/* A domain whose length is no multiple of h: bounded axes get a partial last cell, periodic axes
 * cells larger than h. */
static config odd_domain(int dims, int px, int py, int pz)
{
    config c = {dims, {px, py, dims == 3 ? pz : 0}, {-1.05f, 0.3f, -0.2f}, {1.05f, 2.4f, 1.9f}, 0.25f};
    return c;
}

/* A domain of exactly 8 cells per axis with binary-fraction bounds: lattice points sit exactly on
 * cell borders and bounds without rounding. */
static config exact_domain(int dims, int px, int py, int pz)
{
    config c = {dims, {px, py, dims == 3 ? pz : 0}, {-1.0f, -1.0f, -1.0f}, {1.0f, 1.0f, 1.0f}, 0.25f};
    return c;
}

static const int periodic_masks[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};

static void run_all_masks(int dims, enum cloud kind, size_t n)
{
    for (int m = 0; m < 5; ++m) {
        if (dims == 2 && m == 3) continue;
        const int *pm = periodic_masks[m];
        config c = kind == CLOUD_LATTICE ? exact_domain(dims, pm[0], pm[1], pm[2])
                                         : odd_domain(dims, pm[0], pm[1], pm[2]);
        run_config(&c, kind, n, 1000u * (unsigned)dims + 10u * (unsigned)m + (unsigned)kind);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Tests                                                                                          */

static void layout_geometry(void **state)
{
    (void)state;
    eddy_grid_layout l;
    eddy_error err = {0};
    const float lo[3] = {-1.05f, 0.3f, -0.2f}, hi[3] = {1.05f, 2.4f, 1.9f};
    const int none[3] = {0, 0, 0}, all[3] = {1, 1, 1};
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, hi, none, 0.25f, &err), EDDY_OK);
    for (int a = 0; a < 3; ++a) {
        assert_int_equal(l.cells[a], 9); /* ceil(2.1 / 0.25) */
        assert_int_equal(l.pad[a], 1);
        assert_int_equal(l.dim[a], 11);
        assert_true(l.cell_size[a] == 0.25f);
    }
    assert_int_equal(l.cell_count, 11 * 11 * 11);
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, hi, all, 0.25f, &err), EDDY_OK);
    for (int a = 0; a < 3; ++a) {
        assert_int_equal(l.cells[a], 8); /* floor(2.1 / 0.25) */
        assert_int_equal(l.pad[a], 0);
        assert_int_equal(l.dim[a], 8);
        assert_true(l.cell_size[a] >= 0.25f);
        assert_float_equal(l.cell_size[a], 2.1f / 8.0f, 1e-6);
    }
    const int py[3] = {0, 1, 0};
    assert_int_equal(eddy_grid_layout_init(&l, 2, lo, hi, py, 0.25f, &err), EDDY_OK);
    assert_int_equal(l.cells[0], 9);
    assert_int_equal(l.dim[0], 11);
    assert_int_equal(l.cells[1], 8);
    assert_int_equal(l.dim[1], 8);
    assert_int_equal(l.cells[2], 1);
    assert_int_equal(l.pad[2], 0);
    assert_int_equal(l.dim[2], 1);
    assert_int_equal(l.cell_count, 88);
    /* An exact multiple keeps cell size h on a periodic axis. */
    const float elo[3] = {-1, -1, -1}, ehi[3] = {1, 1, 1};
    assert_int_equal(eddy_grid_layout_init(&l, 3, elo, ehi, all, 0.25f, &err), EDDY_OK);
    assert_int_equal(l.cells[0], 8);
    assert_true(l.cell_size[0] == 0.25f);
}

static void layout_errors(void **state)
{
    (void)state;
    eddy_grid_layout l;
    eddy_error err = {0};
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    const int none[3] = {0, 0, 0};
    assert_int_equal(eddy_grid_layout_init(&l, 4, lo, hi, none, 0.1f, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, hi, none, 0.0f, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, hi, none, -1.0f, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, hi, none, NAN, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, hi, none, INFINITY, &err), EDDY_ERR_INVALID_ARGUMENT);
    const float badhi[3] = {1, 0, 1};
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, badhi, none, 0.1f, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "axis y"));
    /* Too many cells: the message names the sizes. */
    const float big[3] = {1e4f, 1e4f, 1e4f};
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, big, none, 1.0f, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "10002 x 10002"));
    assert_non_null(strstr(err.message, "2^31"));
    /* 2D with the same extent is fine: z is not stored. */
    assert_int_equal(eddy_grid_layout_init(&l, 2, lo, big, none, 1.0f, &err), EDDY_OK);
}

static void periodic_too_short(void **state)
{
    (void)state;
    eddy_grid_layout l;
    eddy_error err = {0};
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 0.29f};
    const int pz[3] = {0, 0, 1}, px[3] = {1, 0, 0};
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, hi, pz, 0.1f, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "axis z"));
    /* Bounded, the same short axis is fine. */
    const int none[3] = {0, 0, 0};
    assert_int_equal(eddy_grid_layout_init(&l, 3, lo, hi, none, 0.1f, &err), EDDY_OK);
    /* Exactly 3 cells is the minimum; just under is refused. */
    const float hi3[3] = {0.75f, 1, 1}, hi2[3] = {0.74f, 1, 1};
    assert_int_equal(eddy_grid_layout_init(&l, 2, lo, hi3, px, 0.25f, &err), EDDY_OK);
    assert_int_equal(l.cells[0], 3);
    assert_int_equal(eddy_grid_layout_init(&l, 2, lo, hi2, px, 0.25f, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "axis x"));
}

static void neighbors_random_2d(void **state) { (void)state; run_all_masks(2, CLOUD_RANDOM, 1500); }
static void neighbors_random_3d(void **state) { (void)state; run_all_masks(3, CLOUD_RANDOM, 1500); }
static void neighbors_clustered_2d(void **state) { (void)state; run_all_masks(2, CLOUD_CLUSTERED, 1500); }
static void neighbors_clustered_3d(void **state) { (void)state; run_all_masks(3, CLOUD_CLUSTERED, 1500); }
static void neighbors_borders_2d(void **state) { (void)state; run_all_masks(2, CLOUD_BORDERS, 1500); }
static void neighbors_borders_3d(void **state) { (void)state; run_all_masks(3, CLOUD_BORDERS, 1500); }
static void neighbors_lattice_2d(void **state) { (void)state; run_all_masks(2, CLOUD_LATTICE, 5000); }
static void neighbors_lattice_3d(void **state) { (void)state; run_all_masks(3, CLOUD_LATTICE, 5000); }

/* Ranges of a cell in a periodic x grid: the bar around a first or last cell splits in two with a
 * shift of -L / +L, and the shifted image is the nearest one. */
static void periodic_bar_split(void **state)
{
    (void)state;
    config c = exact_domain(2, 1, 0, 0);
    const float pos[] = {-0.9f, 0.1f, 0.f, 0.9f, 0.1f, 0.f, -0.4f, 0.1f, 0.f,
                         0.4f,  0.1f, 0.f, 0.1f, 0.1f, 0.f};
    eddy_particles p;
    make_particles(&p, 2, pos, 5);
    eddy_grid g;
    make_grid(&c, EDDY_DOMAIN_ERROR, &g);
    build_ok(&g, &p);
    /* Sorted by x cell: -0.9 (cell 0), -0.4 (2), 0.1 (4), 0.4 (5), 0.9 (7). */
    assert_true(p.x[0] == -0.9f && p.x[4] == 0.9f);
    eddy_range r[EDDY_MAX_CELL_RANGES];
    int k = eddy_grid_cell_ranges(&g, g.particle_cell[0], r);
    assert_int_equal(k, 2);
    assert_int_equal(r[0].begin, 4); /* the last cell, seen through the left wrap */
    assert_int_equal(r[0].end, 5);
    assert_true(r[0].shift[0] == -2.0f && r[0].shift[1] == 0.0f);
    assert_int_equal(r[1].begin, 0);
    assert_int_equal(r[1].end, 1);
    assert_true(r[1].shift[0] == 0.0f);
    k = eddy_grid_cell_ranges(&g, g.particle_cell[4], r);
    assert_int_equal(k, 2);
    assert_int_equal(r[0].begin, 4);
    assert_true(r[0].shift[0] == 0.0f);
    assert_int_equal(r[1].begin, 0);
    assert_true(r[1].shift[0] == 2.0f);
    /* -0.9 and 0.9 are 0.2 apart through the wrap. */
    assert_int_equal(eddy_grid_build_neighbor_lists(&g, &p, 0.25f, NULL), EDDY_OK);
    assert_int_equal(g.nbr_offset[1] - g.nbr_offset[0], 1);
    assert_int_equal(g.nbr_index[g.nbr_offset[0]], 4);
    eddy_grid_free(&g);
    eddy_particles_free(&p);
}

/* Every field stays attached to its id through several builds with moving particles. */
static float tag_value(uint64_t id, int field, int comp)
{
    return (float)id * 3.25f + (float)(field * 10 + comp) * 0.5f;
}

static void fields_follow_ids(void **state)
{
    (void)state;
    const int masks[2][3] = {{0, 0, 0}, {1, 1, 1}};
    for (int m = 0; m < 2; ++m) {
        config c = odd_domain(3, masks[m][0], masks[m][1], masks[m][2]);
        rng_seed(77 + (uint64_t)m);
        const size_t n = 3000;
        float *pos = malloc(sizeof(float) * 3 * n);
        make_cloud(&c, CLOUD_RANDOM, n, pos);
        eddy_particles p;
        make_particles(&p, 3, pos, n);
        eddy_error err = {0};
        int f_scalar, f_vec, f_wide;
        assert_int_equal(eddy_particles_add_field(&p, "lambda", 1, &f_scalar, &err), EDDY_OK);
        assert_int_equal(eddy_particles_add_field(&p, "vorticity", 3, &f_vec, &err), EDDY_OK);
        assert_int_equal(eddy_particles_add_field(&p, "tensor", 9, &f_wide, &err), EDDY_OK);
        const int nf = eddy_particles_field_count(&p);
        for (size_t i = 0; i < n; ++i) {
            p.material[i] = (uint32_t)(p.id[i] * 7u + 1u);
            for (int f = EDDY_FIELD_VELOCITY; f < nf; ++f)
                for (int k = 0; k < eddy_particles_field_components(&p, f); ++k)
                    eddy_particles_field(&p, f, k)[i] = tag_value(p.id[i], f, k);
        }
        eddy_grid g;
        make_grid(&c, EDDY_DOMAIN_ERROR, &g);
        /* Position is a field too: remember each id's position before every build (after wrap, the
         * build may only change it by whole periods). */
        float *before = malloc(sizeof(float) * 3 * n);
        for (int pass = 0; pass < 5; ++pass) {
            for (size_t i = 0; i < n; ++i) {
                before[3 * p.id[i]] = p.x[i];
                before[3 * p.id[i] + 1] = p.y[i];
                before[3 * p.id[i] + 2] = p.z[i];
            }
            build_ok(&g, &p);
            check_structure(&g, &p, "fields");
            char *seen = calloc(n, 1);
            for (size_t i = 0; i < n; ++i) {
                uint64_t id = p.id[i];
                assert_true(id < n);
                assert_false(seen[id]);
                seen[id] = 1;
                assert_int_equal(p.material[i], id * 7u + 1u);
                for (int f = EDDY_FIELD_VELOCITY; f < nf; ++f)
                    for (int k = 0; k < eddy_particles_field_components(&p, f); ++k)
                        if (eddy_particles_field(&p, f, k)[i] != tag_value(id, f, k))
                            fail_msg("field %s[%d] of id %" PRIu64 " lost after build %d",
                                     eddy_particles_field_name(&p, f), k, id, pass);
                const float now[3] = {p.x[i], p.y[i], p.z[i]};
                for (int a = 0; a < 3; ++a) {
                    float L = c.hi[a] - c.lo[a];
                    double periods = ((double)before[3 * id + a] - now[a]) / L;
                    if (fabs(periods - round(periods)) > 1e-5 || (!c.periodic[a] && periods != 0.0))
                        fail_msg("position of id %" PRIu64 " moved on axis %c by %g periods", id, axis_names[a],
                                 periods);
                }
            }
            free(seen);
            jiggle(&c, &p, 1.5f, 0);
        }
        free(before);
        eddy_grid_free(&g);
        eddy_particles_free(&p);
        free(pos);
    }
}

/* Reference stable counting sort: ids in the order a stable sort by cell of the current order gives. */
static void expected_order(const eddy_grid_layout *l, const eddy_particles *p, uint64_t *ids)
{
    const size_t n = p->count;
    uint32_t *count = calloc(l->cell_count + 1, sizeof(uint32_t));
    uint32_t *cell = malloc(sizeof(uint32_t) * n);
    for (size_t i = 0; i < n; ++i) {
        cell[i] = eddy_grid_cell_of(l, p->x[i], p->y[i], p->z[i]);
        count[cell[i] + 1]++;
    }
    for (size_t c = 0; c < l->cell_count; ++c) count[c + 1] += count[c];
    for (size_t i = 0; i < n; ++i) ids[count[cell[i]]++] = p->id[i];
    free(count);
    free(cell);
}

typedef struct snapshot {
    uint64_t *ids;
    uint32_t *begin, *end, *offset, *index;
    size_t n, cells, entries;
} snapshot;

static void take_snapshot(const eddy_grid *g, const eddy_particles *p, snapshot *s)
{
    s->n = p->count;
    s->cells = g->layout.cell_count;
    s->entries = g->nbr_offset[s->n];
    s->ids = malloc(sizeof(uint64_t) * s->n);
    s->begin = malloc(sizeof(uint32_t) * s->cells);
    s->end = malloc(sizeof(uint32_t) * s->cells);
    s->offset = malloc(sizeof(uint32_t) * (s->n + 1));
    s->index = malloc(sizeof(uint32_t) * (s->entries + 1));
    memcpy(s->ids, p->id, sizeof(uint64_t) * s->n);
    memcpy(s->begin, g->cell_begin, sizeof(uint32_t) * s->cells);
    memcpy(s->end, g->cell_end, sizeof(uint32_t) * s->cells);
    memcpy(s->offset, g->nbr_offset, sizeof(uint32_t) * (s->n + 1));
    memcpy(s->index, g->nbr_index, sizeof(uint32_t) * s->entries);
}

static void free_snapshot(snapshot *s)
{
    free(s->ids);
    free(s->begin);
    free(s->end);
    free(s->offset);
    free(s->index);
}

/* The build is a stable sort (checked against a reference), and ranges, order and lists are the
 * same for 1, 2 and 3 threads. Large enough that the parallel paths actually run. */
static void stable_and_thread_independent(void **state)
{
    (void)state;
    const int saved = omp_get_max_threads();
    for (int dims = 2; dims <= 3; ++dims) {
        for (int m = 0; m < 2; ++m) {
            config c = odd_domain(dims, m, m, m);
            c.h = 0.1f; /* a few particles per cell, as in a simulation */
            const size_t n = 60000;
            rng_seed(4242 + (uint64_t)(dims * 2 + m));
            float *pos = malloc(sizeof(float) * 3 * n);
            make_cloud(&c, CLOUD_RANDOM, n, pos);
            snapshot snap[3];
            for (int t = 1; t <= 3; ++t) {
                omp_set_num_threads(t);
                eddy_particles p;
                make_particles(&p, dims, pos, n);
                eddy_grid g;
                make_grid(&c, EDDY_DOMAIN_ERROR, &g);
                uint64_t *ids = malloc(sizeof(uint64_t) * n);
                build_ok(&g, &p); /* wraps the periodic axes */
                for (int pass = 0; pass < 3; ++pass) {
                    /* Moved but inside the domain, so the reference sees the positions the sort sees;
                     * each pass starts from the order the previous build left. */
                    rng_seed(99 + (uint64_t)pass);
                    jiggle(&c, &p, pass == 0 ? 0.3f : 1.5f, 1);
                    expected_order(&g.layout, &p, ids);
                    build_ok(&g, &p);
                    check_structure(&g, &p, "threads");
                    if (memcmp(ids, p.id, sizeof(uint64_t) * n) != 0)
                        fail_msg("%dD: build %d with %d threads is not the stable sort by cell", dims, pass,
                                 t);
                }
                assert_int_equal(eddy_grid_build_neighbor_lists(&g, &p, 0.5f * c.h, NULL), EDDY_OK);
                take_snapshot(&g, &p, &snap[t - 1]);
                free(ids);
                eddy_grid_free(&g);
                eddy_particles_free(&p);
            }
            for (int t = 1; t < 3; ++t) {
                assert_int_equal(snap[t].n, snap[0].n);
                assert_int_equal(snap[t].entries, snap[0].entries);
                if (memcmp(snap[t].ids, snap[0].ids, sizeof(uint64_t) * n) ||
                    memcmp(snap[t].begin, snap[0].begin, sizeof(uint32_t) * snap[0].cells) ||
                    memcmp(snap[t].end, snap[0].end, sizeof(uint32_t) * snap[0].cells) ||
                    memcmp(snap[t].offset, snap[0].offset, sizeof(uint32_t) * (n + 1)) ||
                    memcmp(snap[t].index, snap[0].index, sizeof(uint32_t) * snap[0].entries))
                    fail_msg("%dD periodic=%d: %d threads differ from 1 thread", dims, m, t + 1);
            }
            for (int t = 0; t < 3; ++t) free_snapshot(&snap[t]);
            free(pos);
        }
    }
    omp_set_num_threads(saved);
}

/* Several particles outside: the message names the lowest id of them, not the one stored first, so that
 * it does not depend on the storage order (one process and several name the same particle). */
static void domain_error_names_lowest_id(void **state)
{
    (void)state;
    config c = exact_domain(3, 0, 0, 0);
    rng_seed(5);
    const size_t n = 400;
    float *pos = malloc(sizeof(float) * 3 * n);
    make_cloud(&c, CLOUD_RANDOM, n, pos);
    eddy_particles p;
    make_particles(&p, 3, pos, n);
    eddy_grid g;
    make_grid(&c, EDDY_DOMAIN_ERROR, &g);
    build_ok(&g, &p);
    /* Two particles stored in decreasing id order (the build sorted them by cell). */
    size_t first = SIZE_MAX, second = SIZE_MAX;
    for (size_t i = 0; i + 1 < n && first == SIZE_MAX; ++i)
        if (p.id[i] > p.id[i + 1]) first = i, second = i + 1;
    assert_true(first != SIZE_MAX);
    p.y[first] = 1.0001f;
    p.z[second] = -3.0f;
    eddy_error err = {0};
    assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_DOMAIN);
    char want[64];
    snprintf(want, sizeof want, "particle id %" PRIu64 " at ", p.id[second]);
    if (strncmp(err.message, want, strlen(want)) != 0) fail_msg("expected '%s...', got: %s", want, err.message);
    assert_non_null(strstr(err.message, "(2 particles outside)"));
    eddy_grid_free(&g);
    eddy_particles_free(&p);
    free(pos);
}

static void domain_error_policy(void **state)
{
    (void)state;
    config c = exact_domain(3, 0, 0, 0);
    rng_seed(3);
    const size_t n = 500;
    float *pos = malloc(sizeof(float) * 3 * n);
    make_cloud(&c, CLOUD_RANDOM, n, pos);
    /* Exactly on the bounds is inside. */
    pos[0] = c.lo[0];
    pos[4] = c.hi[1];
    pos[8] = c.hi[2];
    eddy_particles p;
    make_particles(&p, 3, pos, n);
    eddy_grid g;
    make_grid(&c, EDDY_DOMAIN_ERROR, &g);
    build_ok(&g, &p);
    /* Particle with id 317 leaves through +y, id 401 through -z. */
    for (size_t i = 0; i < n; ++i) {
        if (p.id[i] == 317) p.y[i] = 1.0001f;
        if (p.id[i] == 401) p.z[i] = -3.0f;
    }
    eddy_error err = {0};
    assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_DOMAIN);
    assert_int_equal(err.code, EDDY_ERR_DOMAIN);
    if (!strstr(err.message, "317") && !strstr(err.message, "401"))
        fail_msg("message names no escaped particle id: %s", err.message);
    assert_non_null(strstr(err.message, "id "));
    assert_int_equal(p.count, n); /* nothing removed */
    /* The failed build left nothing to read out of range. */
    eddy_range r[EDDY_MAX_CELL_RANGES];
    assert_int_equal(eddy_grid_cell_ranges(&g, g.layout.cell_count / 2, r), 0);
    assert_int_not_equal(eddy_grid_build_neighbor_lists(&g, &p, 0.25f, NULL), EDDY_OK);
    /* Only one escapee: its id is named, with its position. */
    for (size_t i = 0; i < n; ++i)
        if (p.id[i] == 401) p.z[i] = 0.0f;
    assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_DOMAIN);
    assert_non_null(strstr(err.message, "id 317"));
    assert_non_null(strstr(err.message, "1.0001"));
    for (size_t i = 0; i < n; ++i)
        if (p.id[i] == 317) p.y[i] = 0.5f;
    build_ok(&g, &p);
    check_structure(&g, &p, "recovered");
    eddy_grid_free(&g);
    eddy_particles_free(&p);
    free(pos);
}

static void nan_position_caught(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        config c = exact_domain(2, m, m, 0);
        rng_seed(9);
        const size_t n = 200;
        float *pos = malloc(sizeof(float) * 3 * n);
        make_cloud(&c, CLOUD_RANDOM, n, pos);
        eddy_particles p;
        make_particles(&p, 2, pos, n);
        eddy_grid g;
        make_grid(&c, EDDY_DOMAIN_ERROR, &g);
        build_ok(&g, &p);
        for (size_t i = 0; i < n; ++i)
            if (p.id[i] == 123) p.x[i] = NAN;
        eddy_error err = {0};
        assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_DOMAIN);
        assert_non_null(strstr(err.message, "id 123"));
        assert_non_null(strstr(err.message, "non-finite"));
        for (size_t i = 0; i < n; ++i)
            if (p.id[i] == 123) {
                p.x[i] = 0.0f;
                p.y[i] = -INFINITY;
            }
        assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_DOMAIN);
        assert_non_null(strstr(err.message, "id 123"));
        eddy_grid_free(&g);
        eddy_particles_free(&p);
        free(pos);
    }
}

static void domain_remove_policy(void **state)
{
    (void)state;
    for (int m = 0; m < 2; ++m) {
        /* m = 1: x periodic, so only y/z escapes count. */
        config c = exact_domain(3, m, 0, 0);
        rng_seed(11 + (uint64_t)m);
        const size_t n = 2000;
        float *pos = malloc(sizeof(float) * 3 * n);
        make_cloud(&c, CLOUD_RANDOM, n, pos);
        eddy_particles p;
        make_particles(&p, 3, pos, n);
        eddy_error err = {0};
        int f_vec;
        assert_int_equal(eddy_particles_add_field(&p, "vorticity", 3, &f_vec, &err), EDDY_OK);
        for (size_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k) eddy_particles_field(&p, f_vec, k)[i] = tag_value(p.id[i], 9, k);
        eddy_grid g;
        make_grid(&c, EDDY_DOMAIN_REMOVE, &g);
        build_ok(&g, &p);
        char *gone = calloc(n, 1);
        size_t expect_removed = 0;
        for (int pass = 0; pass < 2; ++pass) {
            size_t outside = 0;
            for (size_t i = 0; i < p.count; ++i) {
                uint64_t u = rng_next() % 100;
                float *target = NULL;
                float value = 0.0f;
                if (u < 3) { target = &p.x[i]; value = m ? 7.5f : 1.25f; }        /* wraps when periodic */
                else if (u < 6) { target = &p.y[i]; value = -1.01f; }
                else if (u < 8) { target = &p.z[i]; value = 2.0f; }
                else if (u < 9) { target = &p.z[i]; value = -3.0f; }
                else if (u < 10) { target = &p.x[i]; value = -5.0f; }                 /* wraps when periodic */
                else if (u < 12) { target = &p.y[i]; value = 1.0f; } /* on the bound: stays */
                if (!target) continue;
                *target = value;
                int escapes = !(value >= -1.0f && value <= 1.0f);
                if (target == &p.x[i] && m && isfinite(value)) escapes = 0;
                if (escapes) {
                    gone[p.id[i]] = 1;
                    ++outside;
                }
            }
            expect_removed += outside;
            size_t before = p.count;
            build_ok(&g, &p);
            check_structure(&g, &p, "remove");
            assert_int_equal(g.removed, expect_removed);
            assert_int_equal(p.count, before - outside);
            char *present = calloc(n, 1);
            for (size_t i = 0; i < p.count; ++i) {
                uint64_t id = p.id[i];
                if (gone[id]) fail_msg("escaped particle id %" PRIu64 " was kept", id);
                present[id] = 1;
                for (int k = 0; k < 3; ++k)
                    assert_true(eddy_particles_field(&p, f_vec, k)[i] == tag_value(id, 9, k));
            }
            for (size_t id = 0; id < n; ++id)
                if (!gone[id] && !present[id]) fail_msg("particle id %zu inside the domain was removed", id);
            free(present);
            check_neighbors(&g, &p, c.h, "after removal");
        }
        /* A non-finite position is not an escape but a broken particle: an error under the remove
         * policy too, naming it, and nobody is removed (it used to vanish with the escaped ones). */
        const size_t count = p.count, removed = g.removed;
        const uint64_t broken_id = p.id[p.count / 2];
        p.y[p.count / 2] = NAN;
        p.x[p.count / 3] = -1.5f; /* an escape beside it */
        assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_DOMAIN);
        char want[64];
        snprintf(want, sizeof want, "particle id %" PRIu64 " has a non-finite position (", broken_id);
        if (!strstr(err.message, want)) fail_msg("got: %s", err.message);
        assert_int_equal(p.count, count);
        assert_int_equal(g.removed, removed);
        free(gone);
        eddy_grid_free(&g);
        eddy_particles_free(&p);
        free(pos);
    }
}

/* Backends other than the built-in one: a delegating backend is used as given (create and destroy
 * called once), a backend whose ranges are not prefix sums is an error and not an out-of-range
 * write, and a vtable too small for the callbacks is refused at init. */
static int backend_creates, backend_destroys, backend_breaks;
/* What the last create() received, checked by the test. */
static eddy_grid_setup backend_setup;
static eddy_grid_layout backend_layout;
static eddy_param_values backend_params;

static int wrap_create(const eddy_grid_setup *setup, void **state, eddy_error *err)
{
    ++backend_creates;
    backend_setup = *setup;
    backend_layout = *setup->layout;
    backend_params = *setup->params;
    return eddy_cpu_grid_backend()->create(setup, state, err);
}

/* What a faulty backend does (backend_breaks): 1 ranges that are no prefix sums, 2 one particle twice
 * (the next one of its cell lost), 3 two particles swapped across cells, 4 two swapped within a cell (not
 * stable), 5 a particle index past n. broken_at: the sorted position it broke (modes 2-5). */
static size_t broken_at;
static uint32_t broken_perm[2]; /* perm[broken_at - 1] and perm[broken_at] as broken (modes 2, 4), or the
                                 * particles put at broken_at and taken from there (mode 3) */
static uint32_t broken_cell;    /* the cell the range puts position broken_at in */

/* The first sorted position that starts a run of at least two particles in one cell, and that cell. */
static size_t first_pair(const eddy_grid_layout *l, const uint32_t *cb, const uint32_t *ce, uint32_t *cell)
{
    for (size_t c = 0; c < l->cell_count; ++c)
        if (ce[c] - cb[c] >= 2) {
            *cell = (uint32_t)c;
            return cb[c];
        }
    fail_msg("no cell holds two particles");
    return 0;
}

static int wrap_sort(void *state, const eddy_grid_layout *l, size_t n, const float *x, const float *y,
                     const float *z, uint32_t *perm, uint32_t *cb, uint32_t *ce, eddy_error *err)
{
    int rc = eddy_cpu_grid_backend()->sort(state, l, n, x, y, z, perm, cb, ce, err);
    if (rc || !backend_breaks) return rc;
    if (backend_breaks == 1) ce[l->cell_count / 2] += 1000;
    if (backend_breaks == 2 || backend_breaks == 4) {
        const size_t b = first_pair(l, cb, ce, &broken_cell);
        const uint32_t t = perm[b];
        if (backend_breaks == 2) perm[b + 1] = t;
        else perm[b] = perm[b + 1], perm[b + 1] = t;
        broken_at = b + 1;
        broken_perm[0] = perm[b], broken_perm[1] = perm[b + 1];
    }
    if (backend_breaks == 3) {
        /* the first particle of the first two occupied cells, exchanged */
        size_t c1 = 0, c2;
        while (ce[c1] == cb[c1]) ++c1;
        for (c2 = c1 + 1; ce[c2] == cb[c2]; ++c2) {
        }
        const uint32_t a = perm[cb[c1]];
        perm[cb[c1]] = perm[cb[c2]], perm[cb[c2]] = a;
        broken_at = cb[c1], broken_cell = (uint32_t)c1;
        broken_perm[0] = perm[cb[c1]], broken_perm[1] = a;
    }
    if (backend_breaks == 5) perm[0] = (uint32_t)n, broken_at = 0;
    return rc;
}

static void wrap_destroy(void *state)
{
    ++backend_destroys;
    eddy_cpu_grid_backend()->destroy(state);
}

static void custom_backend(void **state)
{
    (void)state;
    const eddy_grid_backend_vtable wrapped = {sizeof(eddy_grid_backend_vtable), wrap_create, wrap_sort,
                                              wrap_destroy};
    config c = exact_domain(3, 0, 1, 0);
    eddy_grid_layout l;
    eddy_error err = {0};
    assert_int_equal(eddy_grid_layout_init(&l, 3, c.lo, c.hi, c.periodic, c.h, &err), EDDY_OK);
    rng_seed(21);
    const size_t n = 800;
    float *pos = malloc(sizeof(float) * 3 * n);
    make_cloud(&c, CLOUD_RANDOM, n, pos);
    eddy_particles p;
    make_particles(&p, 3, pos, n);
    eddy_grid g;
    backend_creates = backend_destroys = backend_breaks = 0;
    assert_int_equal(eddy_grid_init(&g, &l, &wrapped, EDDY_DOMAIN_ERROR, &err), EDDY_OK);
    assert_int_equal(backend_creates, 1);
    /* create() sees the layout, an empty parameter set and the silent host, never NULL. */
    assert_int_equal(backend_setup.size, sizeof(eddy_grid_setup));
    assert_memory_equal(&backend_layout, &l, sizeof l);
    assert_int_equal(backend_params.size, sizeof(eddy_param_values));
    assert_int_equal(backend_params.count, 0);
    assert_ptr_equal(backend_setup.host, eddy_host_silent());
    build_ok(&g, &p);
    check_structure(&g, &p, "custom backend");
    check_neighbors(&g, &p, c.h, "custom backend");
    backend_breaks = 1;
    assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_PLUGIN);
    assert_non_null(strstr(err.message, "backend"));
    assert_int_equal(g.particle_count, 0);
    eddy_range r[EDDY_MAX_CELL_RANGES];
    for (size_t cell = 0; cell < g.layout.cell_count; ++cell)
        assert_int_equal(eddy_grid_cell_ranges(&g, (uint32_t)cell, r), 0);
    eddy_grid_free(&g);
    assert_int_equal(backend_destroys, 1);
    /* A sort that is not the stable sort by eddy_grid_cell_of is refused before any particle moves (a
     * grid-plugin trial's backend lost one particle and doubled another, or filed them in the wrong
     * cells, and the run went on). */
    for (int mode = 2; mode <= 5; ++mode) {
        assert_int_equal(eddy_grid_init(&g, &l, &wrapped, EDDY_DOMAIN_ERROR, &err), EDDY_OK);
        backend_breaks = 0;
        build_ok(&g, &p);
        uint64_t *ids = malloc(sizeof *ids * n);
        assert_non_null(ids);
        memcpy(ids, p.id, sizeof *ids * n);
        backend_breaks = mode;
        assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_PLUGIN);
        char want[512];
        const uint32_t j = broken_perm[0];
        if (mode == 2)
            snprintf(want, sizeof want, "grid build: the grid backend's sort puts particle %u twice, at sorted positions "
                     "%zu and %zu (grid.h: perm holds each particle once)", broken_perm[1], broken_at - 1, broken_at);
        else if (mode == 3)
            snprintf(want, sizeof want, "grid build: the grid backend's sort files particle %u (id %llu, at %.9g, %.9g, "
                     "%.9g) in cell %u, but eddy_grid_cell_of puts it in cell %u (grid.h: a stable sort by "
                     "eddy_grid_cell_of; the core's queries and the solvers read the cells as it files them)", j,
                     (unsigned long long)p.id[j], (double)p.x[j], (double)p.y[j], (double)p.z[j], broken_cell,
                     eddy_grid_cell_of(&g.layout, p.x[j], p.y[j], p.z[j]));
        else if (mode == 4)
            snprintf(want, sizeof want, "grid build: the grid backend's sort is not stable: in cell %u it puts particle "
                     "%u after particle %u, at sorted positions %zu and %zu (grid.h: a stable sort keeps each cell's "
                     "particles in increasing index, each once)", broken_cell, broken_perm[1], broken_perm[0],
                     broken_at - 1, broken_at);
        else
            snprintf(want, sizeof want, "grid build: the grid backend's sort puts particle %zu at sorted position 0, but "
                     "there are %zu particles (grid.h: perm[i] is the index of the particle that goes to position i, "
                     "each particle once)", n, n);
        assert_string_equal(err.message, want);
        assert_int_equal(g.particle_count, 0);
        assert_memory_equal(p.id, ids, sizeof *ids * n); /* (nothing moved) */
        free(ids);
        eddy_grid_free(&g);
    }
    backend_breaks = 0;
    eddy_grid_backend_vtable small = wrapped;
    small.size = offsetof(eddy_grid_backend_vtable, sort);
    assert_int_equal(eddy_grid_init(&g, &l, &small, EDDY_DOMAIN_ERROR, &err), EDDY_ERR_PLUGIN);
    eddy_grid_free(&g);
    /* eddy_grid_init_with hands the backend the caller's parameters and host as given. */
    static const eddy_param_desc table[] = {EDDY_PARAM_INT_DESC("block", 128, 1, 1024, "", "Block size.")};
    const eddy_param_value value = {.is_set = 1, .count = 1, .number = 256, .integer = 256};
    const eddy_param_values params = {sizeof(eddy_param_values), table, 1, &value};
    const eddy_host host = {.size = sizeof(eddy_host), .name = "test"};
    backend_creates = backend_destroys = backend_breaks = 0;
    assert_int_equal(eddy_grid_init_with(&g, &l, &wrapped, &params, &host, EDDY_DOMAIN_ERROR, &err), EDDY_OK);
    assert_int_equal(backend_creates, 1);
    assert_ptr_equal(backend_setup.host, &host);
    assert_int_equal(backend_params.count, 1);
    assert_ptr_equal(backend_params.values, &value);
    assert_true(eddy_param_get(&backend_params, "block", 0.0) == 256.0);
    build_ok(&g, &p);
    check_structure(&g, &p, "custom backend with parameters");
    eddy_grid_free(&g);
    assert_int_equal(backend_destroys, 1);
    eddy_particles_free(&p);
    free(pos);
}

static void empty_and_misuse(void **state)
{
    (void)state;
    config c = odd_domain(3, 1, 0, 0);
    eddy_particles p;
    make_particles(&p, 3, NULL, 0);
    eddy_grid g;
    make_grid(&c, EDDY_DOMAIN_ERROR, &g);
    /* Queries before any build see an empty grid. */
    eddy_range r[EDDY_MAX_CELL_RANGES];
    assert_int_equal(eddy_grid_cell_ranges(&g, 0, r), 0);
    build_ok(&g, &p);
    check_structure(&g, &p, "empty");
    assert_int_equal(g.occupied_count, 0);
    assert_int_equal(eddy_grid_cell_ranges(&g, (uint32_t)g.layout.cell_count, r), 0);
    assert_int_equal(eddy_grid_build_neighbor_lists(&g, &p, c.h, NULL), EDDY_OK);
    assert_int_equal(g.nbr_offset[0], 0);
    assert_true(eddy_grid_mean_neighbors(&g, &p, c.h) == 0.0);
    /* A radius above the cell size cannot be served by 3-cell bars. */
    eddy_error err = {0};
    assert_int_equal(eddy_grid_build_neighbor_lists(&g, &p, 0.2501f, &err), EDDY_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "radius"));
    assert_true(isnan(eddy_grid_mean_neighbors(&g, &p, 1.0f)));
    /* Lists are invalidated by the next build. */
    const float one[3] = {0.0f, 1.0f, 0.5f};
    assert_int_equal(eddy_particles_add(&p, 1, one, NULL, 0, NULL, &err), EDDY_OK);
    assert_int_equal(eddy_grid_build_neighbor_lists(&g, &p, c.h, &err), EDDY_ERR_INVALID_ARGUMENT);
    build_ok(&g, &p);
    assert_null(g.nbr_offset);
    assert_true(g.nbr_radius == 0.0f);
    assert_int_equal(eddy_grid_build_neighbor_lists(&g, &p, c.h, NULL), EDDY_OK);
    assert_int_equal(g.nbr_offset[1], 0);
    /* A 2D set in a 3D grid is refused. */
    eddy_particles q;
    make_particles(&q, 2, NULL, 0);
    assert_int_equal(eddy_grid_build(&g, &q, &err), EDDY_ERR_INVALID_ARGUMENT);
    eddy_particles_free(&q);
    eddy_grid_free(&g);
    eddy_grid_free(&g); /* twice is harmless */
    eddy_grid_free(NULL);
    /* A build on a freed grid is an error, not a crash. */
    assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_INVALID_ARGUMENT);
    eddy_particles_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_geometry),
        cmocka_unit_test(layout_errors),
        cmocka_unit_test(periodic_too_short),
        cmocka_unit_test(neighbors_random_2d),
        cmocka_unit_test(neighbors_random_3d),
        cmocka_unit_test(neighbors_clustered_2d),
        cmocka_unit_test(neighbors_clustered_3d),
        cmocka_unit_test(neighbors_borders_2d),
        cmocka_unit_test(neighbors_borders_3d),
        cmocka_unit_test(neighbors_lattice_2d),
        cmocka_unit_test(neighbors_lattice_3d),
        cmocka_unit_test(periodic_bar_split),
        cmocka_unit_test(fields_follow_ids),
        cmocka_unit_test(stable_and_thread_independent),
        cmocka_unit_test(domain_error_policy),
        cmocka_unit_test(domain_error_names_lowest_id),
        cmocka_unit_test(nan_position_caught),
        cmocka_unit_test(domain_remove_policy),
        cmocka_unit_test(custom_backend),
        cmocka_unit_test(empty_and_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
