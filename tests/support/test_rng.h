/*
 * test_rng.h — the tests' reproducible random numbers (splitmix64), the same sequence on every
 * machine and compiler, so that a random cloud in a test is the same cloud everywhere. One stream per
 * test program; not thread-safe.
 */
#ifndef EDDY_TEST_RNG_H
#define EDDY_TEST_RNG_H

#include <math.h>
#include <stdint.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static uint64_t rng_state;

static inline void rng_seed(uint64_t s) { rng_state = s * 0x9e3779b97f4a7c15ULL + 12345; }

static inline uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 bits. */
static inline double rng_uniform(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }

/* Standard normal (Box–Muller). */
static inline double rng_gauss(void)
{
    double u = rng_uniform(), v = rng_uniform();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

#endif
