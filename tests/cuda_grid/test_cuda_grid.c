/*
 * Tests and benchmark of the CUDA grid backend (plugins/cuda_grid), one program with subcommands so
 * each is its own CTest entry:
 *
 *   test_cuda_grid formula [--ulps N]   no GPU needed: eddy_grid_cell_of and eddy_grid_wrap_coordinate
 *                                    (the device's sort key and wrap) as nvcc compiles them (hd_nvcc.cu)
 *                                    equal the C build on random points, cell borders, bounds and wraps
 *   test_cuda_grid bars [--ulps N]   no GPU needed: eddy_grid_bar_row (the device's walk over the 3-cell
 *                                    bars) as nvcc compiles it equals the C build for every row of every
 *                                    cell of the layouts above; --ulps N makes the nvcc side walk the
 *                                    next cell, which must be reported
 *   test_cuda_grid boundary [--ulps N]  no GPU needed: <eddy/boundary_math.h> and the mirror apply as
 *                                    nvcc compiles them equal libeddy's exported functions bit for bit
 *                                    (distances, normals, contacts, mirrors, walls); --ulps N moves the
 *                                    nvcc side's inputs by N floats, which both must report
 *   test_cuda_grid equations [--ulps N]  no GPU needed: the SPH equations sph_mueller_cuda shares with
 *                                    sph_mueller (mueller_equations.h: pair weights, pressure; the
 *                                    toolkit's poly6 density term, density and masked kernels) as nvcc
 *                                    compiles them equal the C build bit for bit, 2D and 3D
 *   test_cuda_grid compare PLUGIN [--quick]  GPU: the "cuda" grid of PLUGIN and the built-in "cpu" grid build
 *                                    the same clouds; particle order, cell ranges and occupied cells
 *                                    must be identical (both are the stable sort by cell: no tolerance)
 *   test_cuda_grid bench PLUGIN N..  GPU: milliseconds per grid build, cpu and cuda, at N particles
 *   test_cuda_grid tables PLUGIN_A SOLVER_A PLUGIN_B SOLVER_B  no GPU needed: the two solvers'
 *                                    parameter and material tables are equal entry for entry (ids,
 *                                    types, flags, defaults, ranges, units, choices; not the docs), so
 *                                    a scene section or material key valid for one is valid for the
 *                                    other (sph_mueller against sph_mueller_cuda)
 *
 * Exit status: 0 passed, 1 failed, 77 skipped (no CUDA device: CTest's SKIP_RETURN_CODE). Only the
 * "no CUDA device" error of the plugin skips, and only where `nvidia-smi -L` lists no GPU either
 * (tests/support/gpu_present.h): on a machine with a GPU that error fails, as does any other failure
 * to create the grid (e.g. a GPU the plugin has no code for).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <eddy/grid.h>
#include <eddy/particles.h>
#include <eddy/plugin.h>
#include <eddy/registry.h>
#include <eddy/world.h>
#include <eddy_sph/kernels.h>

#include "gpu_present.h"
#include "hd_nvcc.h"
#include "mueller_equations.h"

#define EXIT_SKIP 77

/* ---------------------------------------------------------------------------------------------- */
/* Helpers                                                                                        */

#include "test_rng.h"

static int failures;
static void failf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    ++failures;
}

typedef struct config {
    const char *name;
    int dims;
    int periodic[3];
    float lo[3], hi[3];
    float h;
} config;

/* Domains with bounds and cell sizes that are not binary fractions, so the float hash has rounding
 * to get wrong, and periodic axes whose cell size is L / floor(L / h) > h. */
static const config configs[] = {
    {"3D bounded", 3, {0, 0, 0}, {-0.3f, 0.1f, -1.7f}, {0.9f, 0.75f, -1.05f}, 0.037f},
    {"2D bounded", 2, {0, 0, 0}, {-1.0f, 0.0f, 0.0f}, {1.3f, 0.9f, 0.0f}, 0.013f},
    {"3D periodic x", 3, {1, 0, 0}, {0.0f, 0.0f, 0.0f}, {0.71f, 0.4f, 0.35f}, 0.03f},
    {"3D periodic xyz", 3, {1, 1, 1}, {-0.2f, -0.2f, -0.2f}, {0.43f, 0.37f, 0.29f}, 0.021f},
    {"2D periodic y", 2, {0, 1, 0}, {0.0f, -0.5f, 0.0f}, {0.6f, 0.55f, 0.0f}, 0.011f},
};
#define CONFIG_COUNT (sizeof configs / sizeof configs[0])

/* lo + u (hi - lo) can round above hi in float; a bounded domain includes hi but nothing beyond. */
static float uniform_in(float lo, float hi)
{
    const float v = lo + (float)rng_uniform() * (hi - lo);
    return v > hi ? hi : v;
}

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---------------------------------------------------------------------------------------------- */
/* formula: the cell and the wrap as nvcc compiles them against the C build                       */

/* The device's sort key and periodic wrap are <eddy/grid.h>'s own inline functions compiled by nvcc
 * (plugins/cuda_grid); hd_nvcc.cu compiles them the same way. Any difference would move particles
 * between cells and break the promise that the CUDA grid produces the CPU grid's order. */
static void formula_point(const eddy_grid_layout *l, float x, float y, float z, int ulps, const char *label,
                          size_t *checked)
{
    const uint32_t want = eddy_grid_cell_of(l, x, y, z), got = hd_nvcc_cell_of(l, x, y, z, ulps);
    ++*checked;
    if (want != got && failures < 20)
        failf("%s: (%.9g, %.9g, %.9g): eddy_grid_cell_of (C) %u, as nvcc compiles it %u", label, (double)x,
              (double)y, (double)z, want, got);
    if (got >= l->cell_count && failures < 20) failf("%s: cell %u outside [0, %zu)", label, got, l->cell_count);
}

static void wrap_point(const eddy_grid_layout *l, int a, float v, int ulps, const char *label, size_t *checked)
{
    const float want = eddy_grid_wrap_coordinate(v, l->lo[a], l->hi[a]);
    const float got = hd_nvcc_wrap(v, l->lo[a], l->hi[a], ulps);
    ++*checked;
    if (memcmp(&want, &got, sizeof want) != 0 && failures < 20)
        failf("%s: axis %d: %.9g: eddy_grid_wrap_coordinate (C) %.9g, as nvcc compiles it %.9g", label, a,
              (double)v, (double)want, (double)got);
    if (!(got >= l->lo[a] && got < l->hi[a]) && failures < 20)
        failf("%s: axis %d: %.9g wraps to %.9g, outside [%.9g, %.9g)", label, a, (double)v, (double)got,
              (double)l->lo[a], (double)l->hi[a]);
}

/* Every row of the bars of every stored cell but the last (whose successor the control walks). */
static void formula_bars(const eddy_grid_layout *l, int ulps, const char *label, size_t *checked)
{
    for (uint32_t cell = 0; cell + 1 < l->cell_count && failures < 20; ++cell) {
        int32_t c[3];
        eddy_grid_cell_coords(l, cell, c);
        for (int row = 0; row < eddy_grid_bar_rows(l); ++row) {
            eddy_range want[2], got[2];
            memset(want, 0, sizeof want);
            memset(got, 0, sizeof got);
            const int nw = eddy_grid_bar_row(l, c, row, want), ng = hd_nvcc_bar_row(l, cell, row, got, ulps);
            ++*checked;
            if (nw != ng || memcmp(want, got, (size_t)(nw > 0 ? nw : 0) * sizeof want[0]) != 0)
                failf("%s: cell %u row %d: eddy_grid_bar_row (C) %d piece(s) from cell %u, as nvcc compiles it %d "
                      "from cell %u",
                      label, cell, row, nw, nw > 0 ? want[0].begin : 0u, ng, ng > 0 ? got[0].begin : 0u);
        }
    }
}

/* The 3-cell bars the device walks, in every layout. */
static int cmd_bars(int ulps)
{
    size_t bars = 0;
    for (size_t k = 0; k < CONFIG_COUNT; ++k) {
        const config *c = &configs[k];
        eddy_grid_layout l;
        eddy_error err = {0};
        if (eddy_grid_layout_init(&l, c->dims, c->lo, c->hi, c->periodic, c->h, &err))
            failf("%s: layout: %s", c->name, err.message);
        else
            formula_bars(&l, ulps, c->name, &bars);
    }
    printf("bars: %zu bar rows in %zu layouts, %d mismatches\n", bars, CONFIG_COUNT, failures);
    return failures ? 1 : 0;
}

static int cmd_formula(int ulps)
{
    size_t checked = 0, wrapped = 0;
    rng_seed(1);
    for (size_t k = 0; k < CONFIG_COUNT; ++k) {
        const config *c = &configs[k];
        eddy_grid_layout l;
        eddy_error err = {0};
        if (eddy_grid_layout_init(&l, c->dims, c->lo, c->hi, c->periodic, c->h, &err)) {
            failf("%s: layout: %s", c->name, err.message);
            continue;
        }
        /* Random points inside the domain. */
        for (int i = 0; i < 200000; ++i) {
            float p[3];
            for (int a = 0; a < 3; ++a) p[a] = a < c->dims ? uniform_in(l.lo[a], l.hi[a]) : 0.0f;
            formula_point(&l, p[0], p[1], p[2], ulps, c->name, &checked);
        }
        /* Every cell border, the bounds, and the floats just either side of them: where the
         * truncation and the clamping decide. */
        for (int a = 0; a < c->dims; ++a) {
            for (int32_t b = 0; b <= l.cells[a]; ++b) {
                const float border = b == l.cells[a] ? l.hi[a] : l.lo[a] + (float)b * l.cell_size[a];
                const float cand[3] = {nextafterf(border, -INFINITY), border, nextafterf(border, INFINITY)};
                for (int j = 0; j < 3; ++j) {
                    float v = cand[j];
                    if (v < l.lo[a] || v > l.hi[a]) continue;
                    float p[3];
                    for (int o = 0; o < 3; ++o) p[o] = o < c->dims ? uniform_in(l.lo[o], l.hi[o]) : 0.0f;
                    p[a] = v;
                    formula_point(&l, p[0], p[1], p[2], ulps, c->name, &checked);
                }
            }
        }
        /* The wrap of periodic axes: up to three periods either side, and the floats around lo and hi
         * (a hair below lo rounds up to hi: the case the wrap treats specially). */
        for (int a = 0; a < c->dims; ++a) {
            if (!l.periodic[a]) continue;
            const float L = l.hi[a] - l.lo[a];
            for (int i = 0; i < 20000; ++i) wrap_point(&l, a, l.lo[a] + (float)(rng_uniform() * 7.0 - 3.0) * L, ulps,
                                                       c->name, &wrapped);
            const float edge[2] = {l.lo[a], l.hi[a]};
            for (int e = 0; e < 2; ++e) {
                float v = edge[e];
                for (int s = 0; s < 8; ++s) v = nextafterf(v, -INFINITY);
                for (int s = 0; s < 17; ++s, v = nextafterf(v, INFINITY)) wrap_point(&l, a, v, ulps, c->name, &wrapped);
            }
        }
    }
    printf("formula: %zu cells and %zu wraps in %zu layouts, %d mismatches\n", checked, wrapped, CONFIG_COUNT,
           failures);
    return failures ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* boundary: <eddy/boundary_math.h> as nvcc compiles it against libeddy's exported functions      */

static float rand_in(float lo, float hi) { return lo + (float)rng_uniform() * (hi - lo); }

static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* Colliders of every shape, with velocities (moving walls): the container's planes of [0, 1]^dims, a
 * box, a sphere and a tilted plane. Returns the count. */
static size_t boundary_colliders(int dims, eddy_collider c[12])
{
    size_t n = 0;
    for (int a = 0; a < dims; ++a)
        for (int side = 0; side < 2; ++side) {
            eddy_collider w = eddy_default_collider();
            w.normal[1] = 0.0f;
            w.normal[a] = side ? -1.0f : 1.0f;
            w.point[a] = side ? 1.0f : 0.0f;
            w.is_container_wall = 1;
            c[n++] = w;
        }
    eddy_collider box = eddy_default_collider();
    box.shape = EDDY_SHAPE_BOX;
    for (int a = 0; a < dims; ++a) {
        box.min[a] = 0.3f + 0.011f * (float)a;
        box.max[a] = 0.55f - 0.007f * (float)a;
    }
    box.velocity[0] = 0.13f;
    c[n++] = box;
    eddy_collider ball = eddy_default_collider();
    ball.shape = EDDY_SHAPE_SPHERE;
    for (int a = 0; a < dims; ++a) ball.center[a] = 0.7f - 0.05f * (float)a;
    ball.radius = 0.17f;
    ball.velocity[1] = -0.29f;
    c[n++] = ball;
    eddy_collider tilt = eddy_default_collider();
    const float s = 1.0f / sqrtf(3.0f);
    tilt.normal[0] = s;
    tilt.normal[1] = dims == 3 ? s : sqrtf(2.0f) * s;
    tilt.normal[2] = dims == 3 ? s : 0.0f;
    tilt.point[0] = 0.1f;
    tilt.point[1] = 0.05f;
    tilt.velocity[2] = 0.07f;
    c[n++] = tilt;
    return n;
}

static int cmd_boundary(int ulps)
{
    size_t compared = 0;
    rng_seed(7);
    for (int dims = 2; dims <= 3; ++dims) {
        eddy_collider c[12];
        const size_t nc = boundary_colliders(dims, c);
        eddy_boundaries b = {0};
        b.dimensions = dims;
        b.collider_count = nc;
        b.colliders = c;
        const float g[3] = {0.0f, -9.81f, 0.0f};
        for (int i = 0; i < 100000 && failures < 20; ++i) {
            /* Points in and just around the box [0, 1]^dims; every 50th exactly at a special place (a
             * sphere's centre, a box face, a container wall) where the branches decide. */
            float p[3] = {0.0f, 0.0f, 0.0f};
            for (int a = 0; a < dims; ++a) p[a] = rand_in(-0.05f, 1.05f);
            if (i % 50 == 1)
                for (int a = 0; a < dims; ++a) p[a] = c[nc - 2].center[a];
            if (i % 50 == 2) p[0] = c[nc - 3].min[0];
            if (i % 50 == 3) p[dims - 1] = 0.0f;
            for (size_t k = 0; k < nc; ++k) {
                float n_c[3] = {9, 9, 9}, n_h[3] = {9, 9, 9};
                const float d_c = eddy_collider_distance(&c[k], dims, p, n_c);
                const float d_h = hd_nvcc_collider_distance(&c[k], dims, p, n_h, ulps);
                ++compared;
                if (!same_bits(&d_c, &d_h, sizeof d_c) || !same_bits(n_c, n_h, sizeof n_c))
                    failf("%dD collider %zu (shape %d) at (%.9g, %.9g, %.9g): eddy_collider_distance %.9g n (%.9g, "
                          "%.9g, %.9g), as nvcc compiles it %.9g n (%.9g, %.9g, %.9g)",
                          dims, k, (int)c[k].shape, (double)p[0], (double)p[1], (double)p[2], (double)d_c,
                          (double)n_c[0], (double)n_c[1], (double)n_c[2], (double)d_h, (double)n_h[0],
                          (double)n_h[1], (double)n_h[2]);
                eddy_contact_params cp = {rand_in(0.0f, 0.05f), 0.0f, rand_in(0.0f, 1.0f), rand_in(0.0f, 1.0f),
                                          rand_in(0.0f, 1.0f)};
                cp.margin = rand_in(0.0f, cp.radius);
                float pc[3] = {p[0], p[1], p[2]}, vc[3], ph[3] = {p[0], p[1], p[2]}, vh[3];
                for (int a = 0; a < 3; ++a) vc[a] = vh[a] = a < dims ? rand_in(-2.0f, 2.0f) : 0.0f;
                const int tc = eddy_contact_respond(&c[k], dims, &cp, pc, vc, 1e-4f);
                const int th = hd_nvcc_contact_respond(&c[k], dims, &cp, ph, vh, ulps);
                ++compared;
                if (tc != th || !same_bits(pc, ph, sizeof pc) || !same_bits(vc, vh, sizeof vc))
                    failf("%dD collider %zu at (%.9g, %.9g, %.9g): eddy_contact_respond %d p (%.9g, %.9g, %.9g) "
                          "v (%.9g, %.9g, %.9g), as nvcc compiles it %d p (%.9g, %.9g, %.9g) v (%.9g, %.9g, %.9g)",
                          dims, k, (double)p[0], (double)p[1], (double)p[2], tc, (double)pc[0], (double)pc[1],
                          (double)pc[2], (double)vc[0], (double)vc[1], (double)vc[2], th, (double)ph[0],
                          (double)ph[1], (double)ph[2], (double)vh[0], (double)vh[1], (double)vh[2]);
            }
            const float reach = rand_in(0.02f, 0.3f);
            eddy_mirror mc[EDDY_MAX_MIRRORS], mh[EDDY_MAX_MIRRORS];
            size_t wc[EDDY_MAX_MIRROR_WALLS], wh[EDDY_MAX_MIRROR_WALLS];
            int nwh = 0;
            const int kc = eddy_boundaries_mirrors(&b, g, reach, p, mc);
            const int nwc = eddy_boundaries_mirror_walls(&b, reach, p, wc);
            const int kh = hd_nvcc_mirrors(c, nc, dims, g, reach, p, mh, wh, &nwh, ulps);
            ++compared;
            if (kc != kh || nwc != nwh || !same_bits(mc, mh, sizeof(eddy_mirror) * (size_t)(kc > 0 ? kc : 0)) ||
                !same_bits(wc, wh, sizeof(size_t) * (size_t)(nwc > 0 ? nwc : 0))) {
                failf("%dD mirrors at (%.9g, %.9g, %.9g), reach %.9g: eddy_boundaries_mirrors %d mirrors of %d "
                      "walls, as nvcc compiles it %d of %d, or their members differ",
                      dims, (double)p[0], (double)p[1], (double)p[2], (double)reach, kc, nwc, kh, nwh);
                continue;
            }
            for (int m = 0; m < kc; ++m) {
                float x[3], v[3];
                for (int a = 0; a < 3; ++a) {
                    x[a] = a < dims ? rand_in(0.0f, 1.0f) : 0.0f;
                    v[a] = a < dims ? rand_in(-1.0f, 1.0f) : 0.0f;
                }
                const float pj = rand_in(0.0f, 3000.0f), rho = rand_in(900.0f, 1100.0f);
                float xc[3], vc[3], xh[3], vh[3], ph;
                eddy_mirror_point(&mc[m], x, xc);
                eddy_mirror_velocity(&mc[m], v, vc);
                const float pc = eddy_mirror_pressure(&mc[m], pj, rho, x);
                hd_nvcc_mirror_apply(&mh[m], x, v, pj, rho, xh, vh, &ph);
                ++compared;
                if (!same_bits(xc, xh, sizeof xc) || !same_bits(vc, vh, sizeof vc) || !same_bits(&pc, &ph, sizeof pc))
                    failf("%dD mirror %d of (%.9g, %.9g, %.9g): eddy_mirror_point/velocity/pressure differ as nvcc "
                          "compiles them",
                          dims, m, (double)p[0], (double)p[1], (double)p[2]);
            }
        }
    }
    printf("boundary: %zu comparisons in 2D and 3D, %d mismatches\n", compared, failures);
    return failures ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* equations: sph_mueller's equations and the toolkit's kernels as nvcc compiles them             */

static int same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static void equation_differs(const char *what, int dims, float r2, float c_value, float nvcc_value)
{
    failf("%s (%dD, r^2 = %.9g): C %.9g, as nvcc compiles it %.9g", what, dims, (double)r2, (double)c_value,
          (double)nvcc_value);
}

static int cmd_equations(int ulps)
{
    static const char *const kernel_names[9] = {"eddy_sph_poly6",  "eddy_sph_poly6_grad",
                                                "eddy_sph_spiky",  "eddy_sph_spiky_grad",
                                                "eddy_sph_viscosity_laplacian", "eddy_sph_cubic",
                                                "eddy_sph_cubic_grad", "eddy_sph_wendland",
                                                "eddy_sph_wendland_grad"};
    size_t compared = 0;
    rng_seed(11);
    for (int dims = 2; dims <= 3; ++dims) {
        /* The support radius of the default scenes and one far from it. */
        const float radii[2] = {0.0457f, 1.7f};
        for (int hk = 0; hk < 2; ++hk) {
            const eddy_kernels k = eddy_kernels_make(radii[hk], dims);
            const float tiny2 = 1e-12f * k.h2;
            for (int i = 0; i < 100000 && failures < 20; ++i) {
                /* Squared distances over the support and a little beyond; some exactly at 0, tiny2 or h^2,
                 * where the masks decide, and at the floats either side of tiny2 and h^2. */
                float r2 = rand_in(0.0f, 1.1f) * k.h2;
                if (i % 100 == 1) r2 = 0.0f;
                if (i % 100 == 2) r2 = tiny2;
                if (i % 100 == 3) r2 = k.h2;
                if (i % 100 == 4) r2 = nextafterf(tiny2, 0.0f);
                if (i % 100 == 5) r2 = nextafterf(tiny2, INFINITY);
                if (i % 100 == 6) r2 = nextafterf(k.h2, 0.0f);
                if (i % 100 == 7) r2 = nextafterf(k.h2, INFINITY);
                const float rho_i = rand_in(900.0f, 1100.0f);
                const mueller_pair_ctx c = {k.h,
                                            k.h2,
                                            tiny2,
                                            k.spiky_grad,
                                            k.visc_lap,
                                            (i % 2 ? 1.0f : 0.5f) / rho_i,
                                            rand_in(-500.0f, 3000.0f),
                                            rand_in(0.0f, 0.5f),
                                            rand_in(0.9f, 1.1f)};
                const float vol = rand_in(0.5f, 1.5f) * k.h2 * (dims == 3 ? k.h : 1.0f) * 0.1f;
                const float pj = rand_in(-500.0f, 3000.0f), gs_j = rand_in(0.9f, 1.1f), mu_j = rand_in(0.0f, 0.5f);
                const mueller_pair_w wc = mueller_pair(&c, r2, vol, pj, gs_j, mu_j);
                const mueller_pair_w wh = hd_nvcc_mueller_pair(&c, r2, vol, pj, gs_j, mu_j, ulps);
                ++compared;
                if (!same_float(wc.fp, wh.fp)) equation_differs("mueller_pair fp", dims, r2, wc.fp, wh.fp);
                if (!same_float(wc.fv, wh.fv)) equation_differs("mueller_pair fv", dims, r2, wc.fv, wh.fv);

                /* The variational form (pressure_force = variational): Wendland's gradient, each term with
                 * its own particle's gradient scale. */
                const float pi_rho2 = c.pi / (rho_i * rho_i), mj = rand_in(0.001f, 0.1f);
                const float rhoj = rand_in(900.0f, 1100.0f);
                const mueller_pair_w vc = mueller_pair_variational(&c, &k, pi_rho2, r2, vol, mj, pj, rhoj, gs_j, mu_j);
                const mueller_pair_w vh =
                    hd_nvcc_mueller_pair_variational(&c, &k, pi_rho2, r2, vol, mj, pj, rhoj, gs_j, mu_j, ulps);
                ++compared;
                if (!same_float(vc.fp, vh.fp)) equation_differs("mueller_pair_variational fp", dims, r2, vc.fp, vh.fp);
                if (!same_float(vc.fv, vh.fv)) equation_differs("mueller_pair_variational fv", dims, r2, vc.fv, vh.fv);

                const float stiffness = rand_in(1.0f, 3000.0f), rest = rand_in(500.0f, 1500.0f);
                const float density = rand_in(0.9f, 1.1f) * rest, negative = i % 3 ? 1.0f : rand_in(0.0f, 1.0f);
                const float pc = mueller_pressure(stiffness, density, rest, negative);
                const float ph = hd_nvcc_mueller_pressure(stiffness, density, rest, negative, ulps);
                ++compared;
                if (!same_float(pc, ph)) equation_differs("mueller_pressure", dims, r2, pc, ph);

                const float mass = rand_in(0.001f, 0.1f);
                const float tc = eddy_sph_poly6_mass_term(mass, k.h2, r2);
                const float th = hd_nvcc_poly6_mass_term(mass, k.h2, r2, ulps);
                ++compared;
                if (!same_float(tc, th)) equation_differs("eddy_sph_poly6_mass_term", dims, r2, tc, th);
                const float twc = eddy_sph_wendland_mass_term(mass, 1.0f / k.h, r2);
                const float twh = hd_nvcc_wendland_mass_term(mass, 1.0f / k.h, r2, ulps);
                ++compared;
                if (!same_float(twc, twh)) equation_differs("eddy_sph_wendland_mass_term", dims, r2, twc, twh);
                const float sum = rand_in(20.0f, 40.0f) * mass * k.h2 * k.h2 * k.h2, self = rand_in(-5.0f, 5.0f);
                const float dc = eddy_sph_density(&k, sum, self), dh = hd_nvcc_density(&k, sum, self, ulps);
                ++compared;
                if (!same_float(dc, dh)) equation_differs("eddy_sph_density", dims, r2, dc, dh);

                const float r = sqrtf(r2);
                const float kc[9] = {eddy_sph_poly6(&k, r * r),
                                     eddy_sph_poly6_grad(&k, r * r),
                                     eddy_sph_spiky(&k, r),
                                     eddy_sph_spiky_grad(&k, r * r, tiny2),
                                     eddy_sph_viscosity_laplacian(&k, r),
                                     eddy_sph_cubic(&k, r),
                                     eddy_sph_cubic_grad(&k, r),
                                     eddy_sph_wendland(&k, r),
                                     eddy_sph_wendland_grad(&k, r)};
                float kh[9];
                hd_nvcc_sph_kernels(&k, r, tiny2, kh, ulps);
                for (int q = 0; q < 9; ++q) {
                    ++compared;
                    if (!same_float(kc[q], kh[q])) equation_differs(kernel_names[q], dims, r * r, kc[q], kh[q]);
                }
            }
        }
    }
    printf("equations: %zu comparisons, %d failures\n", compared, failures);
    return failures ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Loading the plugin                                                                             */

typedef struct cuda_plugin {
    eddy_registry *reg;
    const eddy_grid_backend_vtable *grid;
} cuda_plugin;

/* Loads PLUGIN and checks that a CUDA device is usable by creating a small grid. Returns 0, 1 (fail)
 * or EXIT_SKIP (the plugin reports no CUDA device and nvidia-smi lists no GPU). */
static int open_plugin(const char *path, cuda_plugin *out)
{
    eddy_error err = {0};
    memset(out, 0, sizeof *out);
    if (eddy_registry_create(NULL, &out->reg, &err)) {
        fprintf(stderr, "FAIL: registry: %s\n", err.message);
        return 1;
    }
    if (eddy_registry_load_file(out->reg, path, &err)) {
        fprintf(stderr, "FAIL: cannot load %s: %s\n", path, err.message);
        return 1;
    }
    const eddy_registry_entry *e = eddy_registry_find(out->reg, "cuda", EDDY_INTERFACE_GRID);
    if (!e || !e->component->vtable) {
        fprintf(stderr, "FAIL: %s provides no grid 'cuda'\n", path);
        return 1;
    }
    out->grid = (const eddy_grid_backend_vtable *)e->component->vtable;
    const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    const int periodic[3] = {0, 0, 0};
    eddy_grid_layout l;
    eddy_grid g;
    if (eddy_grid_layout_init(&l, 3, lo, hi, periodic, 0.25f, &err)) {
        fprintf(stderr, "FAIL: layout: %s\n", err.message);
        return 1;
    }
    int rc = eddy_grid_init(&g, &l, out->grid, EDDY_DOMAIN_ERROR, &err);
    if (rc == EDDY_ERR_DEVICE && strstr(err.message, "no CUDA device") && !support_gpu_present()) {
        printf("skipped: %s\n", err.message);
        return EXIT_SKIP;
    }
    if (rc) {
        fprintf(stderr, "FAIL: creating a cuda grid: %s%s\n", err.message,
                support_gpu_present() ? " (nvidia-smi -L lists a GPU)" : "");
        return 1;
    }
    eddy_grid_free(&g);
    return 0;
}

static void close_plugin(cuda_plugin *p)
{
    eddy_registry_destroy(p->reg);
    p->reg = NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* compare: the cuda grid against the cpu grid                                                    */

typedef enum cloud { CLOUD_UNIFORM, CLOUD_CLUSTERED, CLOUD_ONE_CELL, CLOUD_LATTICE, CLOUD_OUTSIDE } cloud;
static const char *const cloud_names[] = {"uniform", "clustered", "one cell", "lattice on cell borders",
                                          "uniform, some outside"};

/* Positions (3 per particle) of a cloud in the layout's domain. Periodic axes get coordinates up to a
 * period outside [lo, hi), which eddy_grid_build wraps before the backend sees them. CLOUD_OUTSIDE puts
 * 1% of the particles outside a bounded domain, for EDDY_DOMAIN_REMOVE. */
static float *make_cloud(const eddy_grid_layout *l, cloud kind, size_t n)
{
    float *pos = malloc(sizeof(float) * 3 * (n ? n : 1));
    if (!pos) return NULL;
    const int d = l->dimensions;
    float centre[5][3];
    for (int b = 0; b < 5; ++b)
        for (int a = 0; a < 3; ++a) centre[b][a] = a < d ? uniform_in(l->lo[a], l->hi[a]) : 0.0f;
    const float h = l->cell_size[0];
    for (size_t i = 0; i < n; ++i) {
        float *p = pos + 3 * i;
        for (int a = 0; a < 3; ++a) {
            float lo = l->lo[a], hi = l->hi[a], v = 0.0f;
            if (a >= d) {
                p[a] = 0.0f;
                continue;
            }
            switch (kind) {
            case CLOUD_UNIFORM:
            case CLOUD_OUTSIDE:
                v = uniform_in(lo, hi);
                if (l->periodic[a] && (i % 7) == 0) v += (i % 2 ? 1.0f : -1.0f) * (hi - lo) * (float)rng_uniform();
                break;
            case CLOUD_CLUSTERED: {
                const float *c = centre[i % 5];
                v = c[a] + (float)rng_gauss() * 0.7f * h;
                if (!l->periodic[a]) v = clampf(v, lo, hi);
                break;
            }
            case CLOUD_ONE_CELL:
                v = centre[0][a] + (float)rng_uniform() * 0.5f * l->cell_size[a];
                if (!l->periodic[a]) v = clampf(v, lo, hi);
                break;
            case CLOUD_LATTICE: {
                /* Multiples of half a cell from lo that lie inside, and the upper bound itself. */
                const float half = 0.5f * l->cell_size[a];
                int32_t steps = (int32_t)((hi - lo) / half);
                while (steps > 0 && lo + (float)steps * half > hi) --steps;
                const int32_t k = (int32_t)(rng_next() % (uint64_t)(steps + 2));
                v = k > steps ? hi : lo + (float)k * half;
                if (l->periodic[a] && !(v < hi)) v = lo;
                break;
            }
            }
            p[a] = v;
        }
        if (kind == CLOUD_OUTSIDE && i % 100 == 3) {
            for (int a = 0; a < d; ++a)
                if (!l->periodic[a]) {
                    p[a] = l->hi[a] + 0.5f * l->cell_size[a];
                    break;
                }
        }
    }
    return pos;
}

static int particles_from(eddy_particles *p, int dims, const float *pos, size_t n, eddy_error *err)
{
    if (eddy_particles_init(p, dims, err)) return -1;
    if (n && eddy_particles_add(p, n, pos, NULL, 0, NULL, err)) return -1;
    return 0;
}

/* The grids must agree in everything the build leaves behind. Returns 0 when they do. */
static int same_grid(const eddy_grid *a, const eddy_particles *pa, const eddy_grid *b, const eddy_particles *pb,
                     const char *label)
{
    if (a->particle_count != b->particle_count || pa->count != pb->count) {
        failf("%s: cpu sorted %zu particles (%zu left), cuda %zu (%zu left)", label, a->particle_count, pa->count,
              b->particle_count, pb->count);
        return 1;
    }
    const size_t nc = a->layout.cell_count, n = pa->count;
    for (size_t c = 0; c < nc; ++c)
        if (a->cell_begin[c] != b->cell_begin[c] || a->cell_end[c] != b->cell_end[c]) {
            failf("%s: cell %zu: cpu [%u, %u), cuda [%u, %u)", label, c, a->cell_begin[c], a->cell_end[c],
                  b->cell_begin[c], b->cell_end[c]);
            return 1;
        }
    for (size_t i = 0; i < n; ++i)
        if (pa->id[i] != pb->id[i] || a->particle_cell[i] != b->particle_cell[i]) {
            failf("%s: sorted position %zu: cpu has particle id %" PRIu64 " (cell %u), cuda id %" PRIu64
                  " (cell %u)",
                  label, i, pa->id[i], a->particle_cell[i], pb->id[i], b->particle_cell[i]);
            return 1;
        }
    if (memcmp(pa->x, pb->x, n * sizeof(float)) || memcmp(pa->y, pb->y, n * sizeof(float)) ||
        memcmp(pa->z, pb->z, n * sizeof(float))) {
        failf("%s: same ids in the same order but different positions", label);
        return 1;
    }
    if (a->occupied_count != b->occupied_count ||
        memcmp(a->occupied, b->occupied, a->occupied_count * sizeof(uint32_t))) {
        failf("%s: occupied cells differ (cpu %zu, cuda %zu)", label, a->occupied_count, b->occupied_count);
        return 1;
    }
    return 0;
}

/* Builds one cloud with both backends, then moves the particles and builds again (input sorted by
 * the previous build, the case of every later step), then appends particles (the device buffers
 * grow) and builds a third time. */
static void compare_case(const eddy_grid_backend_vtable *cuda, const config *c, cloud kind, size_t n)
{
    char label[160];
    snprintf(label, sizeof label, "%s, %s, %zu particles", c->name, cloud_names[kind], n);
    eddy_error err = {0};
    eddy_grid_layout l;
    if (eddy_grid_layout_init(&l, c->dims, c->lo, c->hi, c->periodic, c->h, &err)) {
        failf("%s: layout: %s", label, err.message);
        return;
    }
    const eddy_domain_policy policy = kind == CLOUD_OUTSIDE ? EDDY_DOMAIN_REMOVE : EDDY_DOMAIN_ERROR;
    eddy_grid gc, gg;
    eddy_particles pc, pg;
    memset(&pc, 0, sizeof pc);
    memset(&pg, 0, sizeof pg);
    int have_gc = 0, have_gg = 0;
    float *pos = make_cloud(&l, kind, n), *more = make_cloud(&l, kind, n / 2 + 1);
    if (!pos || !more) {
        failf("%s: out of memory", label);
        goto done;
    }
    if (eddy_grid_init(&gc, &l, NULL, policy, &err)) {
        failf("%s: cpu grid: %s", label, err.message);
        goto done;
    }
    have_gc = 1;
    if (eddy_grid_init(&gg, &l, cuda, policy, &err)) {
        failf("%s: cuda grid: %s", label, err.message);
        goto done;
    }
    have_gg = 1;
    if (particles_from(&pc, c->dims, pos, n, &err) || particles_from(&pg, c->dims, pos, n, &err)) {
        failf("%s: particles: %s", label, err.message);
        goto done;
    }
    for (int round = 0; round < 3; ++round) {
        char what[220];
        snprintf(what, sizeof what, "%s, build %d", label, round + 1);
        if (eddy_grid_build(&gc, &pc, &err)) {
            failf("%s: cpu build: %s", what, err.message);
            break;
        }
        if (eddy_grid_build(&gg, &pg, &err)) {
            failf("%s: cuda build: %s", what, err.message);
            break;
        }
        if (same_grid(&gc, &pc, &gg, &pg, what)) break;
        if (round == 0) {
            /* A small displacement (a tenth of a cell), the same for both sets since their order is
             * now the same; bounded axes stay inside. */
            for (size_t i = 0; i < pc.count; ++i) {
                float *cp[3] = {&pc.x[i], &pc.y[i], &pc.z[i]}, *gp[3] = {&pg.x[i], &pg.y[i], &pg.z[i]};
                for (int a = 0; a < c->dims; ++a) {
                    float v = *cp[a] + (float)(rng_uniform() - 0.5) * 0.2f * l.cell_size[a];
                    if (!l.periodic[a]) v = clampf(v, l.lo[a], l.hi[a]);
                    *cp[a] = *gp[a] = v;
                }
            }
        } else if (round == 1) {
            if (eddy_particles_add(&pc, n / 2 + 1, more, NULL, 0, NULL, &err) ||
                eddy_particles_add(&pg, n / 2 + 1, more, NULL, 0, NULL, &err)) {
                failf("%s: adding particles: %s", what, err.message);
                break;
            }
        }
    }
done:
    if (have_gc) eddy_grid_free(&gc);
    if (have_gg) eddy_grid_free(&gg);
    eddy_particles_free(&pc);
    eddy_particles_free(&pg);
    free(pos);
    free(more);
    printf("done: %s (%d failures so far)\n", label, failures);
}

/* quick: without the clouds of millions (for the harness tests on a CPU). */
static int cmd_compare(const char *plugin, int quick)
{
    cuda_plugin cp;
    int rc = open_plugin(plugin, &cp);
    if (rc) {
        if (cp.reg) close_plugin(&cp);
        return rc;
    }
    rng_seed(42);
    static const size_t sizes[] = {1, 255, 257, 100000};
    for (size_t k = 0; k < CONFIG_COUNT; ++k) {
        const config *c = &configs[k];
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) compare_case(cp.grid, c, CLOUD_UNIFORM, sizes[s]);
        compare_case(cp.grid, c, CLOUD_CLUSTERED, 100000);
        compare_case(cp.grid, c, CLOUD_ONE_CELL, 50000);
        compare_case(cp.grid, c, CLOUD_LATTICE, 100000);
        if (!c->periodic[0] || !c->periodic[1] || (c->dims == 3 && !c->periodic[2]))
            compare_case(cp.grid, c, CLOUD_OUTSIDE, 20000);
    }
    /* Millions: several radix passes and scan tiles. */
    if (!quick) {
        compare_case(cp.grid, &configs[0], CLOUD_UNIFORM, 2000000);
        compare_case(cp.grid, &configs[3], CLOUD_CLUSTERED, 2000000);
    }
    close_plugin(&cp);
    printf("compare: %d failure%s\n", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* bench                                                                                          */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median milliseconds of `repeats` builds after a first, unsorted one: between builds the particles
 * move by a small random step, as in a simulation. */
static int bench_builds(const eddy_grid_backend_vtable *backend, const eddy_grid_layout *l, const float *pos, size_t n,
                        int repeats, double *first_ms, double *median_ms)
{
    eddy_error err = {0};
    eddy_grid g;
    eddy_particles p;
    if (eddy_grid_init(&g, l, backend, EDDY_DOMAIN_ERROR, &err)) {
        fprintf(stderr, "FAIL: grid: %s\n", err.message);
        return 1;
    }
    if (particles_from(&p, l->dimensions, pos, n, &err)) {
        fprintf(stderr, "FAIL: particles: %s\n", err.message);
        eddy_grid_free(&g);
        return 1;
    }
    double *ms = malloc(sizeof(double) * (size_t)repeats);
    int rc = ms ? 0 : 1;
    for (int r = -1; r < repeats && !rc; ++r) {
        if (r >= 0)
            for (size_t i = 0; i < n; ++i) {
                float *q[3] = {&p.x[i], &p.y[i], &p.z[i]};
                for (int a = 0; a < 3; ++a)
                    *q[a] = clampf(*q[a] + (float)(rng_uniform() - 0.5) * 0.02f * l->cell_size[a], l->lo[a],
                                   l->hi[a]);
            }
        const double t0 = eddy_time_ms();
        if (eddy_grid_build(&g, &p, &err)) {
            fprintf(stderr, "FAIL: build: %s\n", err.message);
            rc = 1;
            break;
        }
        const double t = eddy_time_ms() - t0;
        if (r < 0) *first_ms = t;
        else ms[r] = t;
    }
    if (!rc) {
        qsort(ms, (size_t)repeats, sizeof(double), cmp_double);
        *median_ms = ms[repeats / 2];
    }
    free(ms);
    eddy_particles_free(&p);
    eddy_grid_free(&g);
    return rc;
}

static int cmd_bench(const char *plugin, int argc, char **argv)
{
    cuda_plugin cp;
    int rc = open_plugin(plugin, &cp);
    if (rc) {
        if (cp.reg) close_plugin(&cp);
        return rc;
    }
    rng_seed(7);
    for (int k = 0; k < argc && !rc; ++k) {
        const size_t n = strtoull(argv[k], NULL, 10);
        if (n == 0) {
            fprintf(stderr, "FAIL: bad particle count '%s'\n", argv[k]);
            rc = 1;
            break;
        }
        /* A cube at the spacing of the scenes (h = 2 spacings), about 8 particles per cell. */
        const float h = 0.02f, spacing = 0.5f * h, side = spacing * cbrtf((float)n);
        const float lo[3] = {0, 0, 0}, hi[3] = {side, side, side};
        const int periodic[3] = {0, 0, 0};
        eddy_grid_layout l;
        eddy_error err = {0};
        if (eddy_grid_layout_init(&l, 3, lo, hi, periodic, h, &err)) {
            fprintf(stderr, "FAIL: layout: %s\n", err.message);
            rc = 1;
            break;
        }
        float *pos = malloc(sizeof(float) * 3 * n);
        if (!pos) {
            rc = 1;
            break;
        }
        for (size_t i = 0; i < 3 * n; ++i) pos[i] = (float)rng_uniform() * side;
        const eddy_grid_backend_vtable *backends[2] = {NULL, cp.grid};
        const char *names[2] = {"cpu", "cuda"};
        for (int b = 0; b < 2 && !rc; ++b) {
            double first = 0, median = 0;
            rc = bench_builds(backends[b], &l, pos, n, 11, &first, &median);
            if (!rc)
                printf("bench: grid=%s particles=%zu cells=%zu first_build_ms=%.3f build_ms=%.3f "
                       "ns_per_particle=%.2f\n",
                       names[b], n, l.cell_count, first, median, 1e6 * median / (double)n);
        }
        free(pos);
    }
    close_plugin(&cp);
    return rc;
}

/* ---------------------------------------------------------------------------------------------- */
/* tables: sph_mueller_cuda declares sph_mueller's parameters                                     */

static int same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Entry for entry; the docs may differ (the CUDA solver points to sph_mueller's). */
static void same_table(const char *what, const char *name_a, const eddy_param_desc *a, size_t na, const char *name_b,
                       const eddy_param_desc *b, size_t nb)
{
    if (na != nb) {
        failf("%s: %s has %zu entries, %s %zu", what, name_a, na, name_b, nb);
        return;
    }
    for (size_t i = 0; i < na; ++i) {
        const eddy_param_desc *x = &a[i], *y = &b[i];
        const char *id = x->id ? x->id : "(null)";
        if (!same_string(x->id, y->id)) failf("%s[%zu]: id '%s' against '%s'", what, i, id, y->id ? y->id : "(null)");
        if (x->type != y->type) failf("%s.%s: type %d against %d", what, id, (int)x->type, (int)y->type);
        if (x->flags != y->flags) failf("%s.%s: flags %u against %u", what, id, x->flags, y->flags);
        /* Bit-equal defaults and bounds. */
        if (memcmp(&x->def, &y->def, sizeof x->def) || memcmp(&x->min, &y->min, sizeof x->min) ||
            memcmp(&x->max, &y->max, sizeof x->max))
            failf("%s.%s: default %.17g in [%.17g, %.17g] against %.17g in [%.17g, %.17g]", what, id, x->def, x->min,
                  x->max, y->def, y->min, y->max);
        if (!same_string(x->unit, y->unit))
            failf("%s.%s: unit '%s' against '%s'", what, id, x->unit ? x->unit : "(null)", y->unit ? y->unit : "(null)");
        if (!same_string(x->def_string, y->def_string)) failf("%s.%s: default text differs", what, id);
        size_t k = 0;
        for (; x->choices && y->choices && x->choices[k] && y->choices[k]; ++k)
            if (strcmp(x->choices[k], y->choices[k]))
                failf("%s.%s: choice %zu '%s' against '%s'", what, id, k, x->choices[k], y->choices[k]);
        if ((x->choices == NULL) != (y->choices == NULL) ||
            (x->choices && y->choices && (x->choices[k] != NULL) != (y->choices[k] != NULL)))
            failf("%s.%s: the lists of choices differ", what, id);
    }
}

/* The solvers SOLVER_A of PLUGIN_A and SOLVER_B of PLUGIN_B declare the same parameter and material
 * tables. Loads the plugins only: no CUDA call, no GPU needed. */
static int cmd_tables(const char *plugin_a, const char *solver_a, const char *plugin_b, const char *solver_b)
{
    eddy_registry *reg = NULL;
    eddy_error err = {0};
    if (eddy_registry_create(NULL, &reg, &err)) {
        fprintf(stderr, "FAIL: registry: %s\n", err.message);
        return 1;
    }
    /* One file may hold both solvers: it is loaded once. */
    if (eddy_registry_load_file(reg, plugin_a, &err)) failf("cannot load %s: %s", plugin_a, err.message);
    else if (strcmp(plugin_b, plugin_a) != 0 && eddy_registry_load_file(reg, plugin_b, &err))
        failf("cannot load %s: %s", plugin_b, err.message);
    const eddy_registry_entry *ea = NULL, *eb = NULL;
    if (!failures) {
        ea = eddy_registry_find(reg, solver_a, EDDY_INTERFACE_SOLVER);
        eb = eddy_registry_find(reg, solver_b, EDDY_INTERFACE_SOLVER);
        if (!ea || !ea->component->vtable) failf("%s registers no solver '%s'", plugin_a, solver_a);
        if (!eb || !eb->component->vtable) failf("%s registers no solver '%s'", plugin_b, solver_b);
    }
    if (ea && eb && ea->component->vtable && eb->component->vtable) {
        const eddy_component *a = ea->component, *b = eb->component;
        same_table("parameters", solver_a, a->params, a->param_count, solver_b, b->params, b->param_count);
        same_table("material parameters", solver_a, a->material_params, a->material_param_count, solver_b,
                   b->material_params, b->material_param_count);
        if (failures) failf("the parameter tables of %s and %s differ", solver_a, solver_b);
    }
    eddy_registry_destroy(reg);
    printf("tables: %d failure%s\n", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    /* --ulps N: the nvcc side sees every input coordinate N floats higher (the comparison's control). */
    const int ulps = argc == 4 && strcmp(argv[2], "--ulps") == 0 ? atoi(argv[3]) : 0;
    if ((argc == 2 || ulps > 0) && strcmp(argv[1], "formula") == 0) return cmd_formula(ulps);
    if ((argc == 2 || ulps > 0) && strcmp(argv[1], "boundary") == 0) return cmd_boundary(ulps);
    if ((argc == 2 || ulps > 0) && strcmp(argv[1], "bars") == 0) return cmd_bars(ulps);
    if ((argc == 2 || ulps > 0) && strcmp(argv[1], "equations") == 0) return cmd_equations(ulps);
    if (argc == 3 && strcmp(argv[1], "compare") == 0) return cmd_compare(argv[2], 0);
    if (argc == 4 && strcmp(argv[1], "compare") == 0 && strcmp(argv[3], "--quick") == 0)
        return cmd_compare(argv[2], 1);
    if (argc >= 4 && strcmp(argv[1], "bench") == 0) return cmd_bench(argv[2], argc - 3, argv + 3);
    if (argc == 6 && strcmp(argv[1], "tables") == 0) return cmd_tables(argv[2], argv[3], argv[4], argv[5]);
    fprintf(stderr, "usage: test_cuda_grid formula|bars|boundary|equations [--ulps N] | compare PLUGIN [--quick] | "
                    "bench PLUGIN N... | "
                    "tables PLUGIN_A SOLVER_A PLUGIN_B SOLVER_B\n");
    return 2;
}
