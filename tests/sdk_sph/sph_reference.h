/*
 * tests/sdk_sph/sph_reference.h — what the toolkit's test programs compare against, written once: a
 * deterministic random sequence, lattice sums of the core's reference kernels (<eddy/kernels.h>) and
 * a world of randomly placed particles. Included by test_sdk_sph.c and test_sdk_sph_api.c (static: each
 * program has its own copy), after <cmocka.h> and <eddy/eddy.h>.
 */
#ifndef EDDY_TESTS_SPH_REFERENCE_H
#define EDDY_TESTS_SPH_REFERENCE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <eddy/kernels.h>
#include <eddy_sph/sph.h>

/* Deterministic uniform numbers in [0, 1) (a 64-bit LCG, Knuth's MMIX constants). */
static inline double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* sum_j W(|x_j|) over every point of the lattice square or cube around the origin, with the
 * reference kernels of <eddy/kernels.h>. */
static inline double cube_sum(eddy_sph_kernel kernel, double spacing, float h, int d)
{
    const eddy_kernels k = eddy_kernels_make(h, d);
    const int n = (int)ceil(h / spacing) + 1, nz = d == 3 ? n : 0;
    double sum = 0.0;
    for (int c = -nz; c <= nz; ++c)
        for (int b = -n; b <= n; ++b)
            for (int a = -n; a <= n; ++a) {
                const float r = (float)(spacing * sqrt((double)a * a + (double)b * b + (double)c * c));
                sum += kernel == EDDY_SPH_POLY6   ? eddy_poly6(&k, r * r)
                       : kernel == EDDY_SPH_SPIKY ? eddy_spiky(&k, r)
                       : kernel == EDDY_SPH_CUBIC ? eddy_cubic(&k, r)
                                                  : eddy_wendland(&k, r);
            }
    return sum;
}

/* A 3D world of n particles placed at random in the cube [0, L)^3, walls on its non-periodic axes, at
 * rest or with random velocities in [-1, 1) drawn after the positions; one water-like material, gravity
 * -9.81 in y, the grid built. Fails the test on any error. */
static inline eddy_world *random_world(size_t n, float L, float h, const int periodic[3], uint64_t seed,
                                       int with_velocities)
{
    eddy_error err = {0};
    eddy_world *w = NULL;
    assert_int_equal(eddy_world_create(3, &w, &err), EDDY_OK);
    w->smoothing_radius = h;
    w->gravity[1] = -9.81f;
    eddy_material m = eddy_default_material();
    m.rest_density = 1000.0f;
    m.particle_mass = 1000.0f * powf(0.5f * h, 3);
    if (eddy_world_add_material(w, &m, &err)) fail_msg("material: %s", err.message);
    const float lo[3] = {0, 0, 0}, hi[3] = {L, L, L};
    if (eddy_world_set_container(w, lo, hi, periodic, &err)) fail_msg("container: %s", err.message);
    float *pos = malloc(3 * n * sizeof *pos), *vel = with_velocities ? malloc(3 * n * sizeof *vel) : NULL;
    assert_non_null(pos);
    uint64_t s = seed;
    for (size_t i = 0; i < 3 * n; ++i) pos[i] = (float)(uniform(&s) * L * 0.9999);
    if (with_velocities) {
        assert_non_null(vel);
        for (size_t i = 0; i < 3 * n; ++i) vel[i] = (float)(2.0 * uniform(&s) - 1.0);
    }
    if (eddy_world_add_particles(w, n, pos, vel, 0, &err)) fail_msg("particles: %s", err.message);
    free(pos);
    free(vel);
    if (eddy_world_init_grid(w, lo, hi, periodic, NULL, EDDY_DOMAIN_ERROR, &err)) fail_msg("grid: %s", err.message);
    if (eddy_world_build_grid(w, &err)) fail_msg("build: %s", err.message);
    return w;
}

#endif
