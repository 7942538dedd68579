/*
 * eddy_sph_select (sdk/sph/src/gather.c, branch-free) against the conditional loop it replaced,
 * written out here: the same entries (positions, masses, indices, every extra array) in the same
 * order and the same count, bit for bit. Candidates from 0 to 300 (across the select's blocks of 64),
 * 0 to 16 extra arrays, candidates exactly on the radius (not selected: the test is strict), NaN and
 * infinite coordinates (never selected), a buffer reused with another layout of extra arrays.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <eddy_sph/gather.h>

#include "test_rng.h"

/* The reference: the loop eddy_sph_select ran before it was made branch-free. */
static size_t reference_select(const eddy_sph_candidates *c, float xi, float yi, float zi, float r2max, float **out,
                               uint32_t *out_index)
{
    size_t k = 0;
    for (size_t q = 0; q < c->count; ++q) {
        const float dx = xi - c->x[q], dy = yi - c->y[q], dz = zi - c->z[q];
        if (!(dx * dx + dy * dy + dz * dz < r2max)) continue;
        out[0][k] = c->x[q];
        out[1][k] = c->y[q];
        out[2][k] = c->z[q];
        out[3][k] = c->m[q];
        out_index[k] = c->index[q];
        for (int e = 0; e < c->extra_count; ++e) out[4 + e][k] = c->extra[e][q];
        ++k;
    }
    return k;
}

/* Fills c with n candidates around the origin within 2h, some exactly at distance h on an axis, some
 * non-finite, through a gather from a small particle set so the buffer is laid out as the toolkit
 * lays it out. */
static void fill_candidates(eddy_sph_candidates *c, size_t n, float h)
{
    eddy_error err = {0};
    eddy_particles p;
    if (eddy_particles_init(&p, 3, &err)) fail_msg("%s", err.message);
    /* Cells of 4h from -26h: the origin's cell is [-2h, 2h)^3, which holds every particle. */
    const float lo[3] = {-26.0f * h, -26.0f * h, -26.0f * h}, hi[3] = {26.0f * h, 26.0f * h, 26.0f * h};
    const int periodic[3] = {0, 0, 0};
    eddy_grid_layout l;
    if (eddy_grid_layout_init(&l, 3, lo, hi, periodic, 4.0f * h, &err)) fail_msg("%s", err.message);
    eddy_grid g;
    if (eddy_grid_init(&g, &l, NULL, EDDY_DOMAIN_ERROR, &err)) fail_msg("%s", err.message);
    float *pos = calloc(3 * (n ? n : 1), sizeof(float));
    assert_non_null(pos);
    for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) pos[3 * i + a] = (float)((rng_uniform() * 2.0 - 1.0) * 1.5 * h);
    for (size_t i = 0; i + 7 < n; i += 37) pos[3 * i] = h, pos[3 * i + 1] = 0.0f, pos[3 * i + 2] = 0.0f;
    if (eddy_particles_add(&p, n, pos, NULL, 0, NULL, &err)) fail_msg("%s", err.message);
    for (size_t i = 0; i < n; ++i) p.mass[i] = (float)rng_uniform();
    if (eddy_grid_build(&g, &p, &err)) fail_msg("%s", err.message);
    if (eddy_sph_gather(c, &g, &p, eddy_grid_cell_of(&g.layout, 0.0f, 0.0f, 0.0f))) fail_msg("gather: out of memory");
    if (n) assert_int_equal(c->count, n); /* one cell holds them all */
    /* Non-finite coordinates cannot come through the grid: written into the buffer afterwards. */
    for (size_t q = 5; q < c->count; q += 53) c->y[q] = NAN;
    for (size_t q = 11; q < c->count; q += 71) c->z[q] = INFINITY;
    for (int e = 0; e < c->extra_count; ++e)
        for (size_t q = 0; q < c->count; ++q) c->extra[e][q] = (float)rng_gauss();
    eddy_grid_free(&g);
    eddy_particles_free(&p);
    free(pos);
}

static void compare(size_t n, int extras, eddy_sph_candidates *near)
{
    const float h = 0.02f;
    eddy_sph_candidates c = eddy_sph_candidates_make(extras);
    fill_candidates(&c, n, h);
    float *ref[4 + EDDY_SPH_MAX_EXTRA];
    for (int a = 0; a < 4 + extras; ++a) ref[a] = malloc(sizeof(float) * (n ? n : 1));
    uint32_t *ref_index = malloc(sizeof(uint32_t) * (n ? n : 1));
    const float centres[3][3] = {{0.0f, 0.0f, 0.0f}, {0.5f * h, -0.3f * h, 0.2f * h}, {0.0f, 0.0f, 0.0f}};
    for (int k = 0; k < 3; ++k) {
        /* Centre 2: the origin with radius h, so the candidates at exactly (h, 0, 0) are on it. */
        const float r2 = k == 2 ? h * h : 1.1f * h * h;
        const float xi = centres[k][0], yi = centres[k][1], zi = centres[k][2];
        const size_t kr = reference_select(&c, xi, yi, zi, r2, ref, ref_index);
        if (eddy_sph_select(&c, xi, yi, zi, r2, near)) fail_msg("select: out of memory");
        if (near->count != kr) fail_msg("%zu candidates, %d extras, centre %d: %zu selected, the reference %zu", n, extras,
                                        k, near->count, kr);
        if (n >= 64) assert_true(kr > 0 && kr < n); /* a selection, not all or nothing */
        assert_int_equal(near->extra_count, extras);
        const float *got[4] = {near->x, near->y, near->z, near->m};
        for (int a = 0; a < 4; ++a) assert_memory_equal(got[a], ref[a], sizeof(float) * kr);
        for (int e = 0; e < extras; ++e) assert_memory_equal(near->extra[e], ref[4 + e], sizeof(float) * kr);
        assert_memory_equal(near->index, ref_index, sizeof(uint32_t) * kr);
    }
    for (int a = 0; a < 4 + extras; ++a) free(ref[a]);
    free(ref_index);
    eddy_sph_candidates_free(&c);
}

static void against_reference(void **state)
{
    (void)state;
    rng_seed(59);
    const size_t counts[] = {0, 1, 63, 64, 65, 150, 300};
    const int extras[] = {0, 1, 8, EDDY_SPH_MAX_EXTRA};
    eddy_sph_candidates near = eddy_sph_candidates_make(0);
    for (size_t i = 0; i < sizeof counts / sizeof *counts; ++i)
        for (size_t e = 0; e < sizeof extras / sizeof *extras; ++e) compare(counts[i], extras[e], &near);
    /* The same buffer again, now smaller layouts after larger ones. */
    compare(150, 1, &near);
    compare(300, 0, &near);
    eddy_sph_candidates_free(&near);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
