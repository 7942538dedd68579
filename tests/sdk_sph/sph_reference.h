/*
 * tests/sdk_sph/sph_reference.h — what the toolkit's test programs compare against, written once: a
 * deterministic random sequence and lattice sums of the core's reference kernels (<eddy/kernels.h>).
 * Included by test_sdk_sph.c and test_sdk_sph_api.c (static: each program has its own copy).
 */
#ifndef EDDY_TESTS_SPH_REFERENCE_H
#define EDDY_TESTS_SPH_REFERENCE_H

#include <math.h>
#include <stdint.h>

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

#endif
