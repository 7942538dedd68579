/*
 * The first cuts from lattice planes (eddy_decomp_quantile_pairs, host/session/decomp_fill.c: sorted
 * distinct coordinates with their counts) against the rule on every coordinate written out and
 * sorted (quantile_reference.h: decomp.c's quantile_cuts as it was when every process built the whole
 * scene, a binary search for each end of a run of equal coordinates): the same cuts and the same imbalance,
 * bit for bit. Cases: few planes with many particles each (lattices), one plane, every count 1, runs
 * that straddle several quantiles, no coordinate at all (the cuts split [lo, hi] evenly), fewer
 * coordinates than processes, 2 to 9 processes. Needs no MPI. Exits 1 on the first mismatch, naming it.
 */
#include "decomp.h"
#include "quantile_reference.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
    /* xorshift64* (Vigna 2016, "An experimental exploration of Marsaglia's xorshift generators") */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Du;
}

static int check(const char *name, int size, const double *pv, const uint64_t *pc, size_t m)
{
    size_t k = 0;
    for (size_t i = 0; i < m; ++i) k += (size_t)pc[i];
    double *all = malloc(sizeof *all * (k ? k : 1));
    double want[16] = {0}, got[16] = {0};
    if (!all) return 1;
    for (size_t i = 0, at = 0; i < m; ++i)
        for (uint64_t c = 0; c < pc[i]; ++c) all[at++] = pv[i];
    const double lo = -0.25, hi = 1.75;
    const double wi = reference_quantile_cuts(size, lo, hi, all, k, want);
    const double gi = eddy_decomp_quantile_pairs(pv, pc, m, size, lo, hi, got);
    free(all);
    if (memcmp(want + 1, got + 1, sizeof(double) * (size_t)(size - 1)) || memcmp(&wi, &gi, sizeof wi)) {
        fprintf(stderr, "quantile_pairs: %s, %d processes, %zu planes, %zu coordinates: imbalance %.17g, expected %.17g\n",
                name, size, m, k, gi, wi);
        for (int r = 1; r < size; ++r) fprintf(stderr, "  cut %d: %.17g, expected %.17g\n", r, got[r], want[r]);
        return 1;
    }
    return 0;
}

int main(void)
{
    uint64_t seed = 0x9E3779B97F4A7C15u;
    double v[64];
    uint64_t c[64];
    int cases = 0;
    for (int size = 2; size <= 9; ++size) {
        /* No coordinate: the cuts split [lo, hi] evenly. */
        if (check("no coordinate", size, v, c, 0)) return 1;
        /* One plane holding everything. */
        v[0] = 0.5;
        c[0] = 1000;
        if (check("one plane", size, v, c, 1)) return 1;
        cases += 2;
        for (int trial = 0; trial < 400; ++trial) {
            /* Sorted distinct values: lattice planes (a spacing, some planes of two blocks merged). */
            const size_t m = 1 + next(&seed) % 40;
            double x = (double)(next(&seed) % 100) / 64.0 - 0.5;
            const int kind = trial % 4;
            for (size_t i = 0; i < m; ++i) {
                x += 1.0 / 128.0 + (double)(next(&seed) % 3) / 256.0;
                v[i] = x;
                /* lattice-like equal counts; every count 1; wildly uneven; fewer coordinates than processes */
                c[i] = kind == 0 ? 80 : kind == 1 ? 1 : kind == 2 ? 1 + next(&seed) % 500 : (i < 1 ? 1 : 0);
            }
            size_t mm = m;
            if (kind == 3) {
                mm = 1 + next(&seed) % (size_t)(size - 1);
                if (mm > m) mm = m;
                for (size_t i = 0; i < mm; ++i) c[i] = 1;
            }
            char name[64];
            snprintf(name, sizeof name, "case %d (kind %d)", trial, kind);
            if (check(name, size, v, c, mm)) return 1;
            ++cases;
        }
    }
    printf("quantile_pairs: %d cases on 2 to 9 processes, the same cuts and imbalance as on every coordinate\n", cases);
    return 0;
}
