/*
 * eddy_sph/simd.h — the solvers' neighbour loops compiled for wider x86 vector ISAs, the path picked
 * once at run time (issue 14).
 *
 * eddy builds for the SSE2 baseline of x86-64 (no -march), so one binary runs on every x86-64 CPU. The
 * neighbour sums are long `omp simd` loops that GCC vectorizes 4 floats wide there; compiled for AVX2
 * they run 8 wide, for AVX-512 16 wide (docs/performance.md has the figures). A solver writes each hot
 * callback once, as an always-inline body (EDDY_SPH_SIMD_BODY), and EDDY_SPH_SIMD_CELL_CLONES /
 * EDDY_SPH_SIMD_BLOCK_CLONES define wrappers of it, compiled with GCC's target attribute for the
 * baseline, AVX2 and AVX-512: the body and the toolkit's inline math it calls (gather.h, kernels.h,
 * neighbors.h) are inlined into each wrapper and vectorized for that wrapper's ISA. The solver picks
 * the path with eddy_sph_simd_select once (at create) and hands the wrapper to eddy_sph_cell_pass or
 * eddy_sph_block_pass, which call it through their function pointer from inside the OpenMP loop.
 * Why wrappers and not `target_clones`: the OpenMP loops are outlined into functions of their own,
 * which do not inherit a clone's ISA, and the toolkit's passes are inline in the plugin, so the ISA
 * must sit on the function the loop calls.
 *
 * The paths:
 *   baseline  SSE2, the ISA the rest of eddy is built for; every x86-64 CPU (and every other CPU:
 *             elsewhere this is the only path).
 *   avx2      AVX2 with FMA, BMI1/2 (the vector part of x86-64-v3: Intel since 2013, AMD since 2015).
 *   avx512    AVX-512 F/CD/BW/DQ/VL (x86-64-v4), 512-bit vectors.
 * The default is avx2 where the CPU has it, else baseline: AVX-512 did not beat AVX2 for any solver
 * on the CPU measured (an AMD EPYC, which runs 512-bit operations as two 256-bit halves; pbf's lists of
 * ~30 neighbours ran slower; docs/performance.md), so it runs on request only. The environment
 * variable EDDY_SIMD=baseline|avx2|avx512 chooses a path (a value the CPU cannot run is refused, not
 * lowered), and `eddy --version` names the path.
 *
 * Results: no path contracts a * b + c into an FMA (eddy builds with -std=c17, which sets
 * -ffp-contract=off, and the wrappers keep it), and sqrt and division are correctly rounded in every
 * ISA, so a pair term is bit-identical on all paths. What differs is the summation order of the
 * `omp simd` reductions: 4, 8 or 16 partial sums. Each path is bit-identical for any number of threads
 * (the candidates come in the grid's fixed order); state hashes differ between paths, by rounding only
 * (tests/simd compares them), so runs that must hash equal on different machines set the same
 * EDDY_SIMD (baseline runs everywhere). Block passes (eddy_sph/neighbors.h: pbf) add each particle's
 * terms in its own lane, in list order, so they round the same on every path and their states hash
 * equal.
 */
#ifndef EDDY_SPH_SIMD_H
#define EDDY_SPH_SIMD_H

#include <stdint.h>

#include "gather.h"
#include "neighbors.h"
#include "simd_path.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A hot callback's body: inlined into each path's wrapper, where it vectorizes for that ISA. */
#define EDDY_SPH_SIMD_BODY static inline __attribute__((always_inline))

/*
 * For an eddy_sph_cell_fn body `name` (EDDY_SPH_SIMD_BODY): name_simd[EDDY_SPH_SIMD_COUNT], the
 * callback of each path, to pass to eddy_sph_cell_pass as name_simd[path].
 */
#define EDDY_SPH_SIMD_CELL_CLONES(name)                                                                       \
    static int name##_baseline(void *ctx, uint32_t c, eddy_sph_candidates *cand, eddy_sph_candidates *near,  \
                               float *max)                                                                    \
    {                                                                                                         \
        return name(ctx, c, cand, near, max);                                                                 \
    }                                                                                                         \
    EDDY_SPH_TARGET_AVX2 static int name##_avx2(void *ctx, uint32_t c, eddy_sph_candidates *cand,             \
                                                eddy_sph_candidates *near, float *max)                        \
    {                                                                                                         \
        return name(ctx, c, cand, near, max);                                                                 \
    }                                                                                                         \
    EDDY_SPH_TARGET_AVX512 static int name##_avx512(void *ctx, uint32_t c, eddy_sph_candidates *cand,         \
                                                    eddy_sph_candidates *near, float *max)                    \
    {                                                                                                         \
        return name(ctx, c, cand, near, max);                                                                 \
    }                                                                                                         \
    static const eddy_sph_cell_fn name##_simd[EDDY_SPH_SIMD_COUNT] = {name##_baseline, name##_avx2,           \
                                                                      name##_avx512}

/*
 * The same for an eddy_sph_block_fn body (eddy_sph_block_pass) with a third argument, the constant
 * `form` (EDDY_SPH_BLOCK_UNIFORM_MASS | EDDY_SPH_BLOCK_PERIODIC): name_simd[form][path], where form is
 * eddy_sph_block_form(nb). Each instantiation is a function of its own: inlined into one function
 * behind a branch, GCC merged two into one loop with a branch inside, which it then did not vectorize.
 */
#define EDDY_SPH_BLOCK_CLONE_(name, form, path, target)                                                     \
    target static void name##_##path##_##form(void *ctx, const eddy_sph_block *b) { name(ctx, b, form); }
#define EDDY_SPH_BLOCK_CLONES_PATH_(name, path, target)                                                     \
    EDDY_SPH_BLOCK_CLONE_(name, 0, path, target)                                                            \
    EDDY_SPH_BLOCK_CLONE_(name, 1, path, target)                                                            \
    EDDY_SPH_BLOCK_CLONE_(name, 2, path, target)                                                            \
    EDDY_SPH_BLOCK_CLONE_(name, 3, path, target)
#define EDDY_SPH_SIMD_BLOCK_CLONES(name)                                                                    \
    EDDY_SPH_BLOCK_CLONES_PATH_(name, baseline, )                                                           \
    EDDY_SPH_BLOCK_CLONES_PATH_(name, avx2, EDDY_SPH_TARGET_AVX2)                                           \
    EDDY_SPH_BLOCK_CLONES_PATH_(name, avx512, EDDY_SPH_TARGET_AVX512)                                       \
    static const eddy_sph_block_fn name##_simd[EDDY_SPH_BLOCK_FORMS][EDDY_SPH_SIMD_COUNT] = {              \
        {name##_baseline_0, name##_avx2_0, name##_avx512_0},                                                \
        {name##_baseline_1, name##_avx2_1, name##_avx512_1},                                                \
        {name##_baseline_2, name##_avx2_2, name##_avx512_2},                                                \
        {name##_baseline_3, name##_avx2_3, name##_avx512_3}}

/* gather.h's density pass cell (eddy_sph_density_cell over eddy_sph_density_pass_ctx_) as a cell-pass
 * body, compiled for each path by the clones below. */
EDDY_SPH_SIMD_BODY int eddy_sph_density_simd_cell_(void *ctx, uint32_t c, eddy_sph_candidates *cand,
                                                   eddy_sph_candidates *near, float *max)
{
    (void)max;
    const eddy_sph_density_pass_ctx_ *d = (const eddy_sph_density_pass_ctx_ *)ctx;
    return eddy_sph_density_cell(d->g, d->p, d->b, d->gravity, d->h, d->finish, d->ctx, c, cand, near);
}
EDDY_SPH_SIMD_CELL_CLONES(eddy_sph_density_simd_cell_);

/* The same with Wendland C2 sums (eddy_sph_density_pass_kernel_simd). */
EDDY_SPH_SIMD_BODY int eddy_sph_density_wendland_simd_cell_(void *ctx, uint32_t c, eddy_sph_candidates *cand,
                                                            eddy_sph_candidates *near, float *max)
{
    (void)max;
    const eddy_sph_density_pass_ctx_ *d = (const eddy_sph_density_pass_ctx_ *)ctx;
    return eddy_sph_density_cell_kernel(d->g, d->p, d->b, d->gravity, d->h, d->finish, d->ctx, c, cand, near,
                                        EDDY_SPH_WENDLAND);
}
EDDY_SPH_SIMD_CELL_CLONES(eddy_sph_density_wendland_simd_cell_);

/* eddy_sph_density_pass (gather.h) with its sums compiled for `path` (eddy_sph_simd_select): the same
 * sums in the same order, so bit-identical to it on the baseline path. */
static inline int eddy_sph_density_pass_simd(eddy_sph_simd path, const eddy_grid *g, const eddy_particles *p,
                                             const eddy_boundaries *b, const float gravity[3], float h,
                                             eddy_sph_density_fn finish, void *ctx)
{
    eddy_sph_density_pass_ctx_ d = {g, p, b, gravity, h, finish, ctx};
    return eddy_sph_cell_pass(g, p, 0, NULL, eddy_sph_density_simd_cell__simd[path], &d, NULL);
}

/* eddy_sph_density_pass_simd with the sums of `kernel`: EDDY_SPH_POLY6 (that pass) or EDDY_SPH_WENDLAND
 * (Wendland C2 mass terms without the coefficient: the density is eddy_sph_materials.density_scale times
 * the sum plus the self term, eddy_sph_materials_use_kernel). `kernel` must be one that
 * eddy_sph_materials_use_kernel accepted (it refuses the others at create time); any other sums poly6. */
static inline int eddy_sph_density_pass_kernel_simd(eddy_sph_simd path, eddy_sph_kernel kernel, const eddy_grid *g,
                                                    const eddy_particles *p, const eddy_boundaries *b,
                                                    const float gravity[3], float h, eddy_sph_density_fn finish,
                                                    void *ctx)
{
    if (kernel != EDDY_SPH_WENDLAND) return eddy_sph_density_pass_simd(path, g, p, b, gravity, h, finish, ctx);
    eddy_sph_density_pass_ctx_ d = {g, p, b, gravity, h, finish, ctx};
    return eddy_sph_cell_pass(g, p, 0, NULL, eddy_sph_density_wendland_simd_cell__simd[path], &d, NULL);
}

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_SIMD_H */
