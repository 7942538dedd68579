/*
 * A grid built again over particles that stayed in their cells (grid.c, cells_unchanged: the build
 * then keeps what the last one filled) against a grid built once, from nothing, over the same
 * particles in the same order: the same order of particles afterwards (ids), every particle's cell,
 * the occupied cells and the ranges of every stored cell, bit for bit.
 *
 * The rebuilt grid sees, in turn: nothing changed; particles permuted within their cells (what the
 * host's canonical (cell, id) order does between two builds); particles moved inside their cells;
 * one particle moved across a cell border, once to a later cell and once to an earlier one (the
 * build must sort again: a build that kept the old ranges would put it in the wrong cell); the last
 * particle moved to the first cell; particles removed and as many added (same count, other cells);
 * a failed build (a particle outside the domain) and the build after it. 3D bounded, 3D periodic in
 * x and z (wrapped positions), 2D; 1 and 2 threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <omp.h>

#include <eddy/grid.h>
#include <eddy/particles.h>

#include "test_rng.h"

typedef struct config {
    int dims;
    int periodic[3];
    float lo[3], hi[3];
    float h;
} config;

static const config bounded3 = {3, {0, 0, 0}, {0.0f, 0.0f, 0.0f}, {0.5f, 0.3f, 0.2f}, 0.02f};
static const config periodic3 = {3, {1, 0, 1}, {-0.1f, 0.0f, 0.0f}, {0.3f, 0.2f, 0.16f}, 0.02f};
static const config bounded2 = {2, {0, 0, 0}, {0.0f, 0.0f, 0.0f}, {0.6f, 0.3f, 0.0f}, 0.01f};

static void init_grid(const config *c, eddy_grid *g)
{
    eddy_error err = {0};
    eddy_grid_layout l;
    if (eddy_grid_layout_init(&l, c->dims, c->lo, c->hi, c->periodic, c->h, &err)) fail_msg("%s", err.message);
    if (eddy_grid_init(g, &l, NULL, EDDY_DOMAIN_ERROR, &err)) fail_msg("%s", err.message);
}

/* A cloud of n particles, denser in the lower half (many particles a cell, some cells empty). */
static void make_cloud(const config *c, eddy_particles *p, size_t n)
{
    eddy_error err = {0};
    if (eddy_particles_init(p, c->dims, &err)) fail_msg("%s", err.message);
    float *pos = calloc(3 * n, sizeof(float));
    assert_non_null(pos);
    for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < c->dims; ++a) {
            double u = rng_uniform();
            if (a == 1) u *= u;
            pos[3 * i + a] = (float)(c->lo[a] + u * (c->hi[a] - c->lo[a]) * 0.999);
        }
    if (eddy_particles_add(p, n, pos, NULL, 0, NULL, &err)) fail_msg("%s", err.message);
    free(pos);
}

/* A copy of p's positions and ids in their current order, as a fresh set. */
static void copy_cloud(const config *c, const eddy_particles *p, eddy_particles *q)
{
    eddy_error err = {0};
    if (eddy_particles_init(q, c->dims, &err)) fail_msg("%s", err.message);
    float *pos = calloc(3 * (p->count ? p->count : 1), sizeof(float));
    assert_non_null(pos);
    for (size_t i = 0; i < p->count; ++i) {
        pos[3 * i] = p->x[i];
        pos[3 * i + 1] = p->y[i];
        pos[3 * i + 2] = p->z[i];
    }
    if (eddy_particles_add(q, p->count, pos, NULL, 0, NULL, &err)) fail_msg("%s", err.message);
    memcpy(q->id, p->id, sizeof(uint64_t) * p->count);
    free(pos);
}

/* Rebuilds g over p and requires everything a grid built once over a copy of p says. */
static void rebuild_and_compare(const config *c, eddy_grid *g, eddy_particles *p, const char *what)
{
    eddy_error err = {0};
    eddy_particles q;
    copy_cloud(c, p, &q);
    eddy_grid fresh;
    init_grid(c, &fresh);
    if (eddy_grid_build(&fresh, &q, &err)) fail_msg("%s: fresh build: %s", what, err.message);
    if (eddy_grid_build(g, p, &err)) fail_msg("%s: rebuild: %s", what, err.message);
    assert_int_equal(g->particle_count, fresh.particle_count);
    assert_int_equal(p->count, q.count);
    for (size_t i = 0; i < p->count; ++i) {
        if (p->id[i] != q.id[i]) fail_msg("%s: position %zu holds id %llu, the fresh grid's order id %llu", what, i,
                                           (unsigned long long)p->id[i], (unsigned long long)q.id[i]);
        if (memcmp(&p->x[i], &q.x[i], sizeof(float)) || memcmp(&p->y[i], &q.y[i], sizeof(float)) ||
            memcmp(&p->z[i], &q.z[i], sizeof(float)))
            fail_msg("%s: position %zu differs from the fresh grid's (a periodic wrap?)", what, i);
        if (g->particle_cell[i] != fresh.particle_cell[i])
            fail_msg("%s: particle %zu in cell %u, the fresh grid says %u", what, i, g->particle_cell[i],
                     fresh.particle_cell[i]);
    }
    assert_int_equal(g->layout.cell_count, fresh.layout.cell_count);
    assert_memory_equal(g->cell_begin, fresh.cell_begin, sizeof(uint32_t) * fresh.layout.cell_count);
    assert_memory_equal(g->cell_end, fresh.cell_end, sizeof(uint32_t) * fresh.layout.cell_count);
    assert_int_equal(g->occupied_count, fresh.occupied_count);
    assert_memory_equal(g->occupied, fresh.occupied, sizeof(uint32_t) * fresh.occupied_count);
    eddy_grid_free(&fresh);
    eddy_particles_free(&q);
}

/* Reverses the order of the particles inside every occupied cell of the last build. */
static void permute_within_cells(const eddy_grid *g, eddy_particles *p)
{
    eddy_error err = {0};
    uint32_t *order = malloc(sizeof(uint32_t) * (p->count ? p->count : 1));
    assert_non_null(order);
    for (size_t i = 0; i < p->count; ++i) order[i] = (uint32_t)i;
    for (size_t k = 0; k < g->occupied_count; ++k) {
        const uint32_t cell = g->occupied[k], b = g->cell_begin[cell], e = g->cell_end[cell];
        for (uint32_t j = b; j < e; ++j) order[j] = e - 1 - (j - b);
    }
    if (eddy_particles_gather(p, order, p->count, &err)) fail_msg("%s", err.message);
    free(order);
}

/* Cell extent on axis a of the cell holding coordinate v (its interior index from the layout). */
static void cell_bounds(const eddy_grid_layout *l, int a, float v, float *lo, float *hi)
{
    int i = (int)((v - l->lo[a]) * l->inv_cell_size[a]);
    if (i < 0) i = 0;
    if (i >= l->cells[a]) i = l->cells[a] - 1;
    *lo = l->lo[a] + (float)i * l->cell_size[a];
    *hi = *lo + l->cell_size[a];
}

/* Moves every particle by a small step that keeps it inside its cell (10% of the way to its centre). */
static void jiggle_within_cells(const eddy_grid *g, eddy_particles *p)
{
    float *pos[3] = {p->x, p->y, p->z};
    for (size_t i = 0; i < p->count; ++i)
        for (int a = 0; a < g->layout.dimensions; ++a) {
            float lo, hi;
            cell_bounds(&g->layout, a, pos[a][i], &lo, &hi);
            const float mid = 0.5f * (lo + hi), v = pos[a][i] + 0.1f * (mid - pos[a][i]);
            float l2, h2;
            cell_bounds(&g->layout, a, v, &l2, &h2);
            if (l2 == lo) pos[a][i] = v;
        }
}

static void check_config(const config *c, int threads)
{
    omp_set_num_threads(threads);
    rng_seed(14 + (uint64_t)threads);
    const size_t n = 20000; /* above the grid's parallel thresholds */
    eddy_particles p;
    make_cloud(c, &p, n);
    eddy_grid g;
    init_grid(c, &g);
    eddy_error err = {0};
    if (eddy_grid_build(&g, &p, &err)) fail_msg("%s", err.message);

    rebuild_and_compare(c, &g, &p, "nothing changed");
    permute_within_cells(&g, &p);
    rebuild_and_compare(c, &g, &p, "permuted within cells");
    jiggle_within_cells(&g, &p);
    rebuild_and_compare(c, &g, &p, "moved within cells");

    /* Across a border on x: to the next cell (later in the order) and to the one before. */
    const size_t mid = n / 2;
    float lo, hi;
    cell_bounds(&g.layout, 0, p.x[mid], &lo, &hi);
    p.x[mid] = hi < c->hi[0] - c->h ? hi + 0.25f * c->h : lo - 0.25f * c->h;
    rebuild_and_compare(c, &g, &p, "one particle to another cell on x");
    cell_bounds(&g.layout, 1, p.y[mid / 2], &lo, &hi);
    p.y[mid / 2] = lo > c->lo[1] + c->h ? lo - 0.25f * c->h : hi + 0.25f * c->h;
    rebuild_and_compare(c, &g, &p, "one particle to another cell on y");
    /* The last particle (the highest cell) to the first cell. */
    p.x[n - 1] = c->lo[0] + 0.1f * c->h;
    p.y[n - 1] = c->lo[1] + 0.1f * c->h;
    p.z[n - 1] = c->dims == 3 ? c->lo[2] + 0.1f * c->h : 0.0f;
    rebuild_and_compare(c, &g, &p, "the last particle to the first cell");

    /* Periodic axes: a position a period out is wrapped by the build; the cell is its wrapped one. */
    if (c->periodic[0]) {
        p.x[3] += c->hi[0] - c->lo[0];
        rebuild_and_compare(c, &g, &p, "a position one period out");
    }

    /* The same count, other particles: the first 100 removed, 100 added at the top of the domain. */
    {
        uint32_t *order = malloc(sizeof(uint32_t) * n);
        assert_non_null(order);
        for (size_t i = 100; i < n; ++i) order[i - 100] = (uint32_t)i;
        if (eddy_particles_gather(&p, order, n - 100, &err)) fail_msg("%s", err.message);
        free(order);
        float pos[300];
        for (int i = 0; i < 100; ++i) {
            pos[3 * i] = c->lo[0] + (float)i / 100.0f * (c->hi[0] - c->lo[0]);
            pos[3 * i + 1] = c->hi[1] - 0.5f * c->h;
            pos[3 * i + 2] = c->dims == 3 ? c->lo[2] + 0.5f * (c->hi[2] - c->lo[2]) : 0.0f;
        }
        if (eddy_particles_add(&p, 100, pos, NULL, 0, NULL, &err)) fail_msg("%s", err.message);
        assert_int_equal(p.count, n);
        rebuild_and_compare(c, &g, &p, "100 removed, 100 added");
    }

    /* A failed build leaves an empty grid; the next build is a whole one. */
    const float keep = p.y[7];
    p.y[7] = c->hi[1] + 1.0f;
    assert_int_equal(eddy_grid_build(&g, &p, &err), EDDY_ERR_DOMAIN);
    assert_int_equal(g.particle_count, 0);
    p.y[7] = keep;
    rebuild_and_compare(c, &g, &p, "after a failed build");
    rebuild_and_compare(c, &g, &p, "again after a failed build");

    eddy_grid_free(&g);
    eddy_particles_free(&p);
}

static void bounded_3d(void **state)
{
    (void)state;
    check_config(&bounded3, 1);
    check_config(&bounded3, 2);
}

static void periodic_3d(void **state)
{
    (void)state;
    check_config(&periodic3, 1);
    check_config(&periodic3, 2);
}

static void bounded_2d(void **state)
{
    (void)state;
    check_config(&bounded2, 1);
    check_config(&bounded2, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounded_3d),
        cmocka_unit_test(periodic_3d),
        cmocka_unit_test(bounded_2d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
