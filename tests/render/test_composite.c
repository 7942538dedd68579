/*
 * Sort-last compositing of particle discs (host/viz/composite.h) against drawing every disc at once:
 * random discs (small stamped ones, larger stamped ones, path-drawn ones over 12 px; flat and shaded;
 * many at equal depths) split into K parts at random, each part sorted and culled on its own, the
 * survivors of all parts sorted together and drawn, give the image of all discs drawn in order, byte
 * for byte, while culling drops discs. The control: the same parts drawn in part order instead of the
 * one draw order give another image (anti-aliased edges blend in order), so the comparison can fail.
 * Underneath, the two rules the cull decides by, against canvas.c itself: a disc changes no pixel
 * outside its reach, and inside its cover it gives the same pixel over white as over black.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "composite.h"

#define W 200
#define H 150
/* The drawing's clip, smaller than the image: discs across its edges are cut there. */
#define CX0 10
#define CY0 8
#define CX1 190
#define CY1 140

static const uint8_t WHITE[3] = {255, 255, 255};

/* A fixed generator (Knuth's MMIX LCG), so that a failure can be replayed. */
static uint64_t rng_state;
static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static eddy_disc *random_discs(size_t n)
{
    eddy_disc *d = calloc(n, sizeof *d);
    assert_non_null(d);
    for (size_t k = 0; k < n; ++k) {
        double u = uniform();
        d[k].r = u < 0.7 ? 1.5 + 1.5 * uniform() : u < 0.9 ? 3.0 + 9.0 * uniform() : 12.0 + 10.0 * uniform();
        d[k].x = -10.0 + (W + 20.0) * uniform();
        d[k].y = -10.0 + (H + 20.0) * uniform();
        /* Few depths: ties are ordered by id, as in 2D. */
        d[k].depth = (double)(int)(8.0 * uniform());
        d[k].id = (uint64_t)(n - k) * 7919u % 1000003u;
        for (int c = 0; c < 3; ++c) d[k].rgb[c] = (uint8_t)(256.0 * uniform());
    }
    return d;
}

static void draw(eddy_canvas *c, const eddy_disc *d, size_t n, float rim)
{
    eddy_error err = {0};
    assert_int_equal(eddy_canvas_init(c, W, H, WHITE, &err), EDDY_OK);
    eddy_canvas_clip(c, CX0, CY0, CX1, CY1);
    eddy_disc_draw(c, d, n, rim);
    eddy_canvas_unclip(c);
}

/* The number of pixels that differ. */
static int differing(const eddy_canvas *a, const eddy_canvas *b)
{
    int diff = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            uint8_t p[3], q[3];
            eddy_canvas_pixel(a, x, y, p);
            eddy_canvas_pixel(b, x, y, q);
            diff += memcmp(p, q, 3) != 0;
        }
    return diff;
}

/* Splits d into k parts at random, culls each, returns the survivors of all in part order. */
static eddy_disc *split_and_cull(const eddy_disc *d, size_t n, int k, size_t *kept)
{
    eddy_error err = {0};
    eddy_disc *out = calloc(n, sizeof *out), *part = calloc(n, sizeof *part);
    assert_non_null(out);
    assert_non_null(part);
    int *owner = calloc(n, sizeof *owner);
    assert_non_null(owner);
    for (size_t i = 0; i < n; ++i) owner[i] = (int)(k * uniform());
    *kept = 0;
    for (int p = 0; p < k; ++p) {
        size_t m = 0;
        for (size_t i = 0; i < n; ++i)
            if (owner[i] == p) part[m++] = d[i];
        eddy_disc_sort(part, m);
        assert_int_equal(eddy_disc_cull(part, &m, CX0, CY0, CX1, CY1, &err), EDDY_OK);
        memcpy(out + *kept, part, m * sizeof *part);
        *kept += m;
    }
    free(owner);
    free(part);
    return out;
}

static void test_split_discs_composite_to_the_image_of_all(void **state)
{
    (void)state;
    const size_t n = 4000;
    const float rims[2] = {1.0f, 0.6f};
    for (int ri = 0; ri < 2; ++ri) {
        rng_state = 12345u + (uint64_t)ri;
        eddy_disc *all = random_discs(n);
        eddy_disc_sort(all, n);
        eddy_canvas ref;
        draw(&ref, all, n, rims[ri]);
        const int parts[4] = {1, 2, 3, 5};
        for (int pi = 0; pi < 4; ++pi) {
            size_t kept;
            eddy_disc *mix = split_and_cull(all, n, parts[pi], &kept);
            /* Culling must do something on 4000 discs over 180 x 132 pixels, or the test shows nothing. */
            assert_true(kept < n * 3 / 4);
            if (parts[pi] > 1) {
                /* The control: the survivors in part order blend edges otherwise. */
                eddy_canvas unsorted;
                draw(&unsorted, mix, kept, rims[ri]);
                assert_true(differing(&ref, &unsorted) > 0);
                eddy_canvas_free(&unsorted);
            }
            eddy_disc_sort(mix, kept);
            eddy_canvas im;
            draw(&im, mix, kept, rims[ri]);
            int diff = differing(&ref, &im);
            if (diff) print_error("%d parts, rim %g: %d pixels differ (%zu of %zu discs kept)\n", parts[pi],
                                  (double)rims[ri], diff, kept, n);
            assert_int_equal(diff, 0);
            eddy_canvas_free(&im);
            free(mix);
        }
        eddy_canvas_free(&ref);
        free(all);
    }
}

static void test_reach_and_cover_hold_against_the_canvas(void **state)
{
    (void)state;
    enum { S = 64 };
    const uint8_t BLACK[3] = {0, 0, 0};
    const double lo[3] = {1.5, 3.0, 12.0}, span[3] = {1.5, 9.0, 14.0};
    const float rims[2] = {1.0f, 0.6f};
    rng_state = 777u;
    int covered_pixels = 0;
    for (int cls = 0; cls < 3; ++cls)
        for (int ri = 0; ri < 2; ++ri)
            for (int k = 0; k < 150; ++k) {
                eddy_disc d;
                memset(&d, 0, sizeof d);
                d.r = lo[cls] + span[cls] * uniform();
                d.x = S / 2 + uniform();
                d.y = S / 2 + uniform();
                /* Away from 0 and 255, so that any blend shows over both backgrounds. */
                for (int c = 0; c < 3; ++c) d.rgb[c] = (uint8_t)(20 + (int)(216.0 * uniform()));
                eddy_canvas white, black;
                eddy_error err = {0};
                assert_int_equal(eddy_canvas_init(&white, S, S, WHITE, &err), EDDY_OK);
                assert_int_equal(eddy_canvas_init(&black, S, S, BLACK, &err), EDDY_OK);
                eddy_disc_draw(&white, &d, 1, rims[ri]);
                eddy_disc_draw(&black, &d, 1, rims[ri]);
                for (int j = 0; j < S; ++j) {
                    int ra, rb, ca, cb;
                    eddy_disc_reach_row(&d, j, 0, S, &ra, &rb);
                    eddy_disc_cover_row(&d, j, 0, S, &ca, &cb);
                    for (int i = 0; i < S; ++i) {
                        uint8_t p[3], q[3];
                        eddy_canvas_pixel(&white, i, j, p);
                        eddy_canvas_pixel(&black, i, j, q);
                        int changed = memcmp(p, WHITE, 3) != 0 || memcmp(q, BLACK, 3) != 0;
                        if (changed && (i < ra || i > rb))
                            fail_msg("r %.4f at (%.4f, %.4f), rim %g: pixel (%d, %d) changed outside the reach [%d, %d]",
                                     d.r, d.x, d.y, (double)rims[ri], i, j, ra, rb);
                        if (i >= ca && i <= cb) {
                            if (memcmp(p, q, 3) != 0)
                                fail_msg("r %.4f at (%.4f, %.4f), rim %g: pixel (%d, %d) in the cover depends on what "
                                         "was under it", d.r, d.x, d.y, (double)rims[ri], i, j);
                            ++covered_pixels;
                        }
                    }
                }
                eddy_canvas_free(&white);
                eddy_canvas_free(&black);
            }
    assert_true(covered_pixels > 0);
}

/* A small disc comes out the same after thousands of others (canvas.c's stamp table full) as on a
 * fresh canvas: a process drawing some of the discs blends them as one drawing all. */
static void test_a_disc_does_not_depend_on_the_discs_before_it(void **state)
{
    (void)state;
    enum { CW = 400, CH = 100 };
    eddy_error err = {0};
    eddy_canvas busy, fresh;
    assert_int_equal(eddy_canvas_init(&busy, CW, CH, WHITE, &err), EDDY_OK);
    assert_int_equal(eddy_canvas_init(&fresh, CW, CH, WHITE, &err), EDDY_OK);
    const uint8_t ink[3] = {40, 90, 200};
    /* 25 radii x 256 sub-pixel positions: more stamps than the table keeps, left of x = 300. */
    for (int k = 0; k < 6400; ++k) {
        double r = 1.5 + (k / 256) / 16.0, fx = (k % 16) / 16.0, fy = (k / 16 % 16) / 16.0;
        eddy_canvas_sphere(&busy, 5.0 + (k % 58) * 5.0 + fx, 5.0 + (k / 58 % 18) * 5.0 + fy, r, ink, 0.6f);
    }
    const double probes[4][3] = {{340.3, 50.6, 2.2}, {360.9, 20.1, 1.7}, {330.5, 80.25, 7.3}, {380.2, 70.7, 2.9}};
    for (int k = 0; k < 4; ++k) {
        eddy_canvas_sphere(&busy, probes[k][0], probes[k][1], probes[k][2], ink, 0.6f);
        eddy_canvas_sphere(&fresh, probes[k][0], probes[k][1], probes[k][2], ink, 0.6f);
    }
    for (int y = 0; y < CH; ++y)
        for (int x = 310; x < CW; ++x) {
            uint8_t p[3], q[3];
            eddy_canvas_pixel(&busy, x, y, p);
            eddy_canvas_pixel(&fresh, x, y, q);
            if (memcmp(p, q, 3) != 0) fail_msg("pixel (%d, %d) depends on the discs drawn before", x, y);
        }
    eddy_canvas_free(&busy);
    eddy_canvas_free(&fresh);
}

/* A disc under a larger one with the same centre is dropped; under one of its own size it is kept,
 * since its anti-aliased rim shows through the other's rim. */
static void test_cull_drops_only_what_is_covered_wholly(void **state)
{
    (void)state;
    eddy_error err = {0};
    eddy_disc d[2];
    memset(d, 0, sizeof d);
    d[0].x = d[1].x = 40.3;
    d[0].y = d[1].y = 30.7;
    d[0].r = 3.0;
    d[0].depth = 2.0; /* farther: drawn first */
    d[1].depth = 1.0;
    d[0].id = 1;
    d[1].id = 2;
    d[1].r = 6.0;
    size_t n = 2;
    assert_int_equal(eddy_disc_cull(d, &n, 0, 0, 80, 60, &err), EDDY_OK);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].id, 2);

    d[1] = d[0];
    d[0].r = 3.0;
    d[0].depth = 2.0;
    d[0].id = 1;
    d[1].r = 3.0;
    d[1].depth = 1.0;
    d[1].id = 2;
    n = 2;
    assert_int_equal(eddy_disc_cull(d, &n, 0, 0, 80, 60, &err), EDDY_OK);
    assert_int_equal(n, 2);
    assert_int_equal(d[0].id, 1);
    assert_int_equal(d[1].id, 2);

    /* Outside the clip: nothing to show. */
    d[0].x = 100.0;
    n = 1;
    assert_int_equal(eddy_disc_cull(d, &n, 0, 0, 80, 60, &err), EDDY_OK);
    assert_int_equal(n, 0);

    /* No discs at all (every particle left the domain): the array may be NULL. UBSan caught the
     * memmove of 0 bytes from NULL this once did. */
    n = 0;
    assert_int_equal(eddy_disc_cull(NULL, &n, 0, 0, 80, 60, &err), EDDY_OK);
    assert_int_equal(n, 0);
}

/* Equal depths go by id, whatever order the discs come in. */
static void test_sort_is_far_first_then_by_id(void **state)
{
    (void)state;
    eddy_disc d[4];
    memset(d, 0, sizeof d);
    const double depth[4] = {1.0, 3.0, 1.0, 2.0};
    const uint64_t id[4] = {9, 4, 2, 7};
    for (int k = 0; k < 4; ++k) {
        d[k].depth = depth[k];
        d[k].id = id[k];
    }
    eddy_disc_sort(d, 4);
    const uint64_t want[4] = {4, 7, 2, 9};
    for (int k = 0; k < 4; ++k) assert_int_equal(d[k].id, want[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reach_and_cover_hold_against_the_canvas),
        cmocka_unit_test(test_split_discs_composite_to_the_image_of_all),
        cmocka_unit_test(test_a_disc_does_not_depend_on_the_discs_before_it),
        cmocka_unit_test(test_cull_drops_only_what_is_covered_wholly),
        cmocka_unit_test(test_sort_is_far_first_then_by_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
