/*
 * The windowed grid of decomposed runs (grid.h, "Window"): a world with an exchange installed stores
 * only the cells its particles occupy on bounded axes. Each case builds that grid and a full grid
 * (eddy_grid_init on the layout of eddy_grid_layout_init, no window) on the same particles and requires
 * the same answer from both, bit for bit: the sorted order, every particle's cell (the window's mapped
 * to the full grid's by its pad), the occupied cells, the candidate ranges of every particle's cell
 * (begin, end and periodic shift) and the CSR neighbour lists. Each case also checks that the window is
 * really smaller than the full grid, so that agreement is not the trivial one of two full grids.
 *
 * Cases: 3D bounded, 3D with x periodic (never windowed), 2D bounded; particles that move out of the
 * window (it must grow to hold them) and back into a small region (it must shrink); the exchange
 * removed (the full layout again, field by field); a backend other than the built-in one (never
 * windowed); particles on the domain's bounds and on cell borders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <eddy/grid.h>
#include <eddy/particles.h>
#include <eddy/world.h>

#include "test_rng.h"

typedef struct config {
    int dims;
    int periodic[3];
    float lo[3], hi[3];
    float h;
} config;

static int no_refresh(void *context, eddy_world *w, const int *fields, size_t field_count, eddy_error *err)
{
    (void)context, (void)w, (void)fields, (void)field_count, (void)err;
    return EDDY_OK;
}

static const eddy_exchange exchange = {sizeof(eddy_exchange), NULL, no_refresh, NULL};

/* A world over the config's domain holding `n` particles at `pos` (3 reals each), with an exchange
 * installed when `decomposed` (the world's grid is then windowed), on `backend` (NULL: built-in). */
static eddy_world *make_world(const config *c, const float *pos, size_t n, int decomposed,
                              const eddy_grid_backend_vtable *backend)
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    if (eddy_world_create(c->dims, &w, &err)) fail_msg("world: %s", err.message);
    w->smoothing_radius = c->h;
    if (eddy_world_init_grid(w, c->lo, c->hi, c->periodic, backend, EDDY_DOMAIN_ERROR, &err))
        fail_msg("init grid: %s", err.message);
    if (n && eddy_particles_add(&w->particles, n, pos, NULL, 0, NULL, &err)) fail_msg("add: %s", err.message);
    if (decomposed) eddy_world_set_exchange(w, &exchange);
    return w;
}

static void build_world(eddy_world *w)
{
    eddy_error err = {0};
    if (eddy_world_build_grid(w, &err)) fail_msg("world grid build: %s", err.message);
}

/* The full grid on a copy of the world's particles in their current order. */
static void build_full(const config *c, const eddy_world *w, eddy_grid *g, eddy_particles *p)
{
    eddy_error err = {0};
    eddy_grid_layout l;
    if (eddy_grid_layout_init(&l, c->dims, c->lo, c->hi, c->periodic, c->h, &err)) fail_msg("%s", err.message);
    if (eddy_grid_init(g, &l, NULL, EDDY_DOMAIN_ERROR, &err)) fail_msg("%s", err.message);
    const eddy_particles *q = &w->particles;
    float *pos = malloc(sizeof(float) * 3 * (q->count ? q->count : 1));
    assert_non_null(pos);
    for (size_t i = 0; i < q->count; ++i) {
        pos[3 * i] = q->x[i];
        pos[3 * i + 1] = q->y[i];
        pos[3 * i + 2] = q->z[i];
    }
    assert_int_equal(eddy_particles_init(p, c->dims, &err), EDDY_OK);
    if (q->count && eddy_particles_add(p, q->count, pos, NULL, 0, NULL, &err)) fail_msg("%s", err.message);
    free(pos);
    if (eddy_grid_build(g, p, &err)) fail_msg("full grid build: %s", err.message);
}

/* The full grid's index of a cell of grid `w` (the same interior cell: shift by the pads). */
static uint32_t to_full(const eddy_grid_layout *w, const eddy_grid_layout *f, uint32_t cell)
{
    int32_t c[3];
    c[0] = (int32_t)(cell % (uint32_t)w->dim[0]);
    c[1] = (int32_t)((cell / (uint32_t)w->dim[0]) % (uint32_t)w->dim[1]);
    c[2] = (int32_t)(cell / ((uint32_t)w->dim[0] * (uint32_t)w->dim[1]));
    for (int a = 0; a < 3; ++a) {
        c[a] += f->pad[a] - w->pad[a];
        if (c[a] < 0 || c[a] >= f->dim[a])
            fail_msg("window cell %u: axis %d index %d off the full grid", cell, a, c[a]);
    }
    return (uint32_t)(c[0] + f->dim[0] * (c[1] + f->dim[1] * c[2]));
}

/* Every answer of the windowed grid (world's) against the full grid's on the same particles. */
static void same_answers(const char *label, const config *c, eddy_world *w)
{
    eddy_grid full;
    eddy_particles fp;
    build_full(c, w, &full, &fp);
    const eddy_grid *g = &w->grid;
    const eddy_particles *p = &w->particles;
    const eddy_grid_layout *wl = &g->layout, *fl = &full.layout;
    /* The window keeps the domain, the cell sizes and the global cell counts. */
    for (int a = 0; a < 3; ++a) {
        assert_true(wl->lo[a] == fl->lo[a] && wl->hi[a] == fl->hi[a]);
        assert_true(wl->cell_size[a] == fl->cell_size[a] && wl->inv_cell_size[a] == fl->inv_cell_size[a]);
        assert_int_equal(wl->cells[a], fl->cells[a]);
        assert_int_equal(wl->periodic[a], fl->periodic[a]);
    }
    assert_int_equal(g->particle_count, full.particle_count);
    const size_t n = g->particle_count;
    for (size_t i = 0; i < n; ++i) {
        if (p->x[i] != fp.x[i] || p->y[i] != fp.y[i] || p->z[i] != fp.z[i])
            fail_msg("%s: particle %zu sorted differently: (%g, %g, %g) windowed, (%g, %g, %g) full", label, i,
                     (double)p->x[i], (double)p->y[i], (double)p->z[i], (double)fp.x[i], (double)fp.y[i],
                     (double)fp.z[i]);
        const uint32_t cw = g->particle_cell[i];
        if (cw >= wl->cell_count) fail_msg("%s: particle %zu in cell %u of %zu", label, i, cw, wl->cell_count);
        if (eddy_grid_cell_of(wl, p->x[i], p->y[i], p->z[i]) != cw)
            fail_msg("%s: particle %zu: eddy_grid_cell_of %u, the grid's cell %u", label, i,
                     eddy_grid_cell_of(wl, p->x[i], p->y[i], p->z[i]), cw);
        if (to_full(wl, fl, cw) != full.particle_cell[i])
            fail_msg("%s: particle %zu: window cell %u is full cell %u, the full grid says %u", label, i, cw,
                     to_full(wl, fl, cw), full.particle_cell[i]);
        eddy_range rw[EDDY_MAX_CELL_RANGES], rf[EDDY_MAX_CELL_RANGES];
        const int nw = eddy_grid_cell_ranges(g, cw, rw), nf = eddy_grid_cell_ranges(&full, full.particle_cell[i], rf);
        if (nw != nf) fail_msg("%s: particle %zu: %d ranges windowed, %d full", label, i, nw, nf);
        for (int k = 0; k < nw; ++k)
            if (rw[k].begin != rf[k].begin || rw[k].end != rf[k].end || rw[k].shift[0] != rf[k].shift[0] ||
                rw[k].shift[1] != rf[k].shift[1] || rw[k].shift[2] != rf[k].shift[2])
                fail_msg("%s: particle %zu range %d: [%u, %u) windowed, [%u, %u) full", label, i, k, rw[k].begin,
                         rw[k].end, rf[k].begin, rf[k].end);
    }
    assert_int_equal(g->occupied_count, full.occupied_count);
    for (size_t k = 0; k < g->occupied_count; ++k)
        if (to_full(wl, fl, g->occupied[k]) != full.occupied[k])
            fail_msg("%s: occupied cell %zu: %u windowed, %u full", label, k, to_full(wl, fl, g->occupied[k]),
                     full.occupied[k]);
    eddy_error err = {0};
    if (eddy_grid_build_neighbor_lists(&w->grid, p, c->h, &err) ||
        eddy_grid_build_neighbor_lists(&full, &fp, c->h, &err))
        fail_msg("%s: neighbour lists: %s", label, err.message);
    for (size_t i = 0; i <= n; ++i)
        if (g->nbr_offset[i] != full.nbr_offset[i])
            fail_msg("%s: neighbour offset %zu: %u windowed, %u full", label, i, g->nbr_offset[i], full.nbr_offset[i]);
    if (n) assert_memory_equal(g->nbr_index, full.nbr_index, sizeof(uint32_t) * g->nbr_offset[n]);
    eddy_grid_free(&full);
    eddy_particles_free(&fp);
}

/* The interior cells the window stores on axis a: [first, last]. */
static void window_of(const eddy_grid_layout *l, int a, int32_t *first, int32_t *last)
{
    *first = 1 - l->pad[a];
    *last = *first + l->dim[a] - 3;
}

static int32_t cell_on(const config *c, int a, float v)
{
    eddy_grid_layout l;
    eddy_error err = {0};
    if (eddy_grid_layout_init(&l, c->dims, c->lo, c->hi, c->periodic, c->h, &err)) fail_msg("%s", err.message);
    int32_t i = (int32_t)((v - l.lo[a]) * l.inv_cell_size[a]);
    return i < 0 ? 0 : i >= l.cells[a] ? l.cells[a] - 1 : i;
}

/* n random points in the box [a, b] (z ignored in 2D). */
static float *cloud(int dims, size_t n, const float a[3], const float b[3])
{
    float *pos = calloc(3 * n, sizeof(float));
    assert_non_null(pos);
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < dims; ++k) pos[3 * i + k] = a[k] + (float)rng_uniform() * (b[k] - a[k]);
    return pos;
}

static size_t full_cell_count(const config *c)
{
    eddy_grid_layout l;
    eddy_error err = {0};
    if (eddy_grid_layout_init(&l, c->dims, c->lo, c->hi, c->periodic, c->h, &err)) fail_msg("%s", err.message);
    return l.cell_count;
}

/* ---------------------------------------------------------------------------------------------- */

static void window_matches_full(const config *c, const char *label)
{
    rng_seed(7);
    const size_t n = 20000;
    /* A slab in x, as a process of a decomposed run holds, that does not reach the walls in y. */
    const float a[3] = {0.3f, 0.05f, 0.0f}, b[3] = {0.55f, 0.4f, 0.3f};
    float *pos = cloud(c->dims, n, a, b);
    eddy_world *w = make_world(c, pos, n, 1, NULL);
    build_world(w);
    const eddy_grid_layout *l = &w->grid.layout;
    if (!(l->cell_count < full_cell_count(c)))
        fail_msg("%s: the window stores %zu cells, the full grid %zu: not windowed", label, l->cell_count,
                 full_cell_count(c));
    for (int ax = 0; ax < c->dims; ++ax) {
        if (c->periodic[ax]) {
            assert_int_equal(l->pad[ax], 0);
            assert_int_equal(l->dim[ax], l->cells[ax]);
            continue;
        }
        int32_t first, last;
        window_of(l, ax, &first, &last);
        /* It holds every particle, and not the whole axis where the particles do not reach. */
        assert_true(first <= cell_on(c, ax, a[ax]) && last >= cell_on(c, ax, b[ax]));
        if (ax < 2) assert_true(last - first + 1 < l->cells[ax]);
    }
    same_answers(label, c, w);
    /* Still the same after a step's worth of motion inside the window (no relayout). */
    for (size_t i = 0; i < n; ++i) w->particles.x[i] += 0.1f * c->h * (float)(rng_uniform() - 0.5);
    build_world(w);
    same_answers(label, c, w);
    eddy_world_destroy(w);
    free(pos);
}

static void test_window_3d(void **state)
{
    (void)state;
    const config c = {3, {0, 0, 0}, {0.0f, 0.0f, 0.0f}, {1.6f, 0.8f, 0.3f}, 0.02f};
    window_matches_full(&c, "3D bounded");
}

static void test_window_3d_periodic_x(void **state)
{
    (void)state;
    const config c = {3, {1, 0, 0}, {0.0f, 0.0f, 0.0f}, {1.6f, 0.8f, 0.3f}, 0.02f};
    window_matches_full(&c, "3D periodic x");
}

static void test_window_2d(void **state)
{
    (void)state;
    const config c = {2, {0, 0, 0}, {0.0f, 0.0f, 0.0f}, {1.6f, 0.8f, 0.0f}, 0.01f};
    window_matches_full(&c, "2D bounded");
}

/* Particles that leave the window make it grow at the next build; when they gather again in a small
 * region it shrinks. The answers equal the full grid's each time. */
static void test_window_grows_and_shrinks(void **state)
{
    (void)state;
    const config c = {3, {0, 0, 0}, {0.0f, 0.0f, 0.0f}, {1.6f, 0.8f, 0.3f}, 0.02f};
    rng_seed(11);
    const size_t n = 10000;
    const float a[3] = {0.3f, 0.05f, 0.0f}, b[3] = {0.55f, 0.4f, 0.3f};
    float *pos = cloud(3, n, a, b);
    eddy_world *w = make_world(&c, pos, n, 1, NULL);
    build_world(w);
    int32_t f0, l0, f1, l1;
    window_of(&w->grid.layout, 0, &f0, &l0);
    const size_t small = w->grid.layout.cell_count;
    /* A few particles run far along +x (a dam-break front), one to the far wall itself. */
    for (size_t i = 0; i < 50; ++i) w->particles.x[i] = 0.9f + 0.6f * (float)i / 50.0f;
    w->particles.x[50] = c.hi[0];
    w->particles.y[51] = c.hi[1];
    build_world(w);
    window_of(&w->grid.layout, 0, &f1, &l1);
    if (!(l1 > l0 && l1 >= cell_on(&c, 0, c.hi[0]) && f1 <= f0))
        fail_msg("window on x [%d, %d] did not grow to hold x = %g (cell %d); it was [%d, %d]", f1, l1,
                 (double)c.hi[0], cell_on(&c, 0, c.hi[0]), f0, l0);
    same_answers("grown", &c, w);
    /* Everything gathers in a small box: the window shrinks below its first size. */
    const float sa[3] = {0.7f, 0.1f, 0.1f}, sb[3] = {0.8f, 0.2f, 0.2f};
    for (size_t i = 0; i < n; ++i) {
        w->particles.x[i] = sa[0] + (float)rng_uniform() * (sb[0] - sa[0]);
        w->particles.y[i] = sa[1] + (float)rng_uniform() * (sb[1] - sa[1]);
        w->particles.z[i] = sa[2] + (float)rng_uniform() * (sb[2] - sa[2]);
    }
    build_world(w);
    if (!(w->grid.layout.cell_count < small))
        fail_msg("window of %zu cells did not shrink (it held %zu before the particles spread)",
                 w->grid.layout.cell_count, small);
    same_answers("shrunk", &c, w);
    /* Without the exchange (one process again) the grid has the full layout, field by field. */
    eddy_world_set_exchange(w, NULL);
    build_world(w);
    eddy_grid_layout full;
    eddy_error err = {0};
    assert_int_equal(eddy_grid_layout_init(&full, 3, c.lo, c.hi, c.periodic, c.h, &err), EDDY_OK);
    assert_memory_equal(&w->grid.layout, &full, sizeof full);
    same_answers("exchange removed", &c, w);
    eddy_world_destroy(w);
    free(pos);
}

/* Points on the domain's bounds and on cell borders (binary fractions: exact), where a window whose
 * cells were computed from a shifted lo would put a particle one cell off. */
static void test_window_borders(void **state)
{
    (void)state;
    const config c = {3, {0, 0, 0}, {0.0f, 0.0f, 0.0f}, {2.0f, 1.0f, 0.5f}, 0.0625f};
    const size_t n = 4000;
    float *pos = calloc(3 * n, sizeof(float));
    assert_non_null(pos);
    rng_seed(3);
    for (size_t i = 0; i < n; ++i) {
        /* Cells 8..15 in x on their left borders and in between; y, z on borders or bounds. */
        pos[3 * i] = 0.5f + 0.0625f * (float)(rng_next() % 9) + (i % 2 ? 0.03125f : 0.0f);
        pos[3 * i + 1] = 0.0625f * (float)(rng_next() % 17);
        pos[3 * i + 2] = i % 3 == 0 ? 0.5f : 0.0625f * (float)(rng_next() % 9);
    }
    eddy_world *w = make_world(&c, pos, n, 1, NULL);
    build_world(w);
    assert_true(w->grid.layout.cell_count < full_cell_count(&c));
    same_answers("borders", &c, w);
    eddy_world_destroy(w);
    free(pos);
}

/* A plugin backend's sort: the built-in one's answer under another function, as a plugin would be. */
static int other_sort(void *state, const eddy_grid_layout *layout, size_t n, const eddy_real *x, const eddy_real *y,
                      const eddy_real *z, uint32_t *perm, uint32_t *cell_begin, uint32_t *cell_end, eddy_error *err)
{
    return eddy_cpu_grid_backend()->sort(state, layout, n, x, y, z, perm, cell_begin, cell_end, err);
}

/* Another backend keeps the full layout: a plugin backend may keep what create() saw. A copy of the
 * built-in vtable (what the registry hands out for grid "cpu") is windowed. */
static void test_other_backend_not_windowed(void **state)
{
    (void)state;
    const config c = {3, {0, 0, 0}, {0.0f, 0.0f, 0.0f}, {1.6f, 0.8f, 0.3f}, 0.02f};
    static eddy_grid_backend_vtable other, copy;
    other = *eddy_cpu_grid_backend();
    other.sort = other_sort;
    copy = *eddy_cpu_grid_backend();
    rng_seed(5);
    const float a[3] = {0.3f, 0.05f, 0.0f}, b[3] = {0.55f, 0.4f, 0.3f};
    float *pos = cloud(3, 5000, a, b);
    eddy_world *w = make_world(&c, pos, 5000, 1, &other);
    build_world(w);
    eddy_grid_layout full;
    eddy_error err = {0};
    assert_int_equal(eddy_grid_layout_init(&full, 3, c.lo, c.hi, c.periodic, c.h, &err), EDDY_OK);
    assert_memory_equal(&w->grid.layout, &full, sizeof full);
    eddy_world_destroy(w);
    w = make_world(&c, pos, 5000, 1, &copy);
    build_world(w);
    assert_true(w->grid.layout.cell_count < full.cell_count);
    same_answers("copied built-in vtable", &c, w);
    eddy_world_destroy(w);
    free(pos);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_3d),
        cmocka_unit_test(test_window_3d_periodic_x),
        cmocka_unit_test(test_window_2d),
        cmocka_unit_test(test_window_grows_and_shrinks),
        cmocka_unit_test(test_window_borders),
        cmocka_unit_test(test_other_backend_not_windowed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
