/*
 * tests/mpi/quantile_reference.h — the slab cut rule written the plain way, the oracle of the tests that
 * check the two ways eddy computes it (decomp_select_cuts across processes, eddy_decomp_quantile_pairs
 * from lattice planes): every coordinate sorted in one place, cut r at the coordinate of particle
 * k r / size, moved to the nearer end of its run of equal coordinates (a lattice column, which one slab
 * owns whole since a slab is [cut[r], cut[r + 1])); the cuts spread evenly over [lo, hi] when k = 0.
 * Returns the imbalance they give, largest count / mean - 1. It is what rebalancing computed on rank 0
 * before the selection was distributed, kept here and not in the host: only the tests need it.
 */
#ifndef EDDY_TESTS_QUANTILE_REFERENCE_H
#define EDDY_TESTS_QUANTILE_REFERENCE_H

#include <math.h>
#include <stddef.h>

/* The first index of the sorted v[0..k) whose value is not below x. */
static inline size_t reference_lower_bound(const double *v, size_t k, double x)
{
    size_t a = 0, b = k;
    while (a < b) {
        const size_t m = a + (b - a) / 2;
        if (v[m] < x) a = m + 1;
        else b = m;
    }
    return a;
}

static inline double reference_quantile_cuts(int size, double lo, double hi, const double *v, size_t k,
                                             double *cut)
{
    size_t first = 0, largest = 0;
    for (int r = 1; r <= size; ++r) {
        size_t at = k;
        if (r < size && k == 0) {
            cut[r] = lo + (hi - lo) * r / size;
        } else if (r < size) {
            const size_t j = k * (size_t)r / (size_t)size;
            const size_t a = reference_lower_bound(v, k, v[j]),
                         b = reference_lower_bound(v, k, nextafter(v[j], INFINITY));
            at = b < k && b - j < j - a ? b : a;
            cut[r] = v[at];
        }
        if (at - first > largest) largest = at - first;
        first = at;
    }
    return k ? (double)largest * size / (double)k - 1.0 : 0.0;
}

#endif /* EDDY_TESTS_QUANTILE_REFERENCE_H */
