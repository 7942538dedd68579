/*
 * host/observe/exact_sum.h — sums of doubles that are exact until one final rounding, so that they do
 * not depend on the order of the terms: the diagnostics and the probes of a run on N processes
 * (docs/mpi.md) are each process's partial sums combined, and equal one process's bit for bit.
 *
 * The accumulator is a long fixed-point number (Kulisch & Miranker 1981, "Computer Arithmetic in
 * Theory and Practice", the "long accumulator"; Neal 2015, arXiv:1505.05571, the "large
 * superaccumulator"): bit 0 weighs 2^-1074, the smallest subnormal, so every double is an integer
 * there, and 68 limbs of 32 bits cover every double's bits (up to 2^1024) with 2^63 terms of headroom.
 * A limb is kept in an int64_t, so a term adds a signed 32-bit chunk to three limbs without a carry;
 * carries are propagated every 2^30 terms and before reading. Combining accumulators is adding their
 * limbs: on several processes an integer MPI_SUM of the packed words (every order gives the same
 * integers).
 *
 * Rounding: eddy_xsum_round() gives the exact sum rounded once to nearest, ties to even; beyond the
 * largest double, +-infinity. An exact zero is +0 (a sum that starts from +0, like `s = 0.0; s +=`).
 * Special terms are counted, not added: any NaN term, or +infinity and -infinity both, gives NaN
 * (quiet, positive); otherwise an infinite term gives that infinity.
 *
 * Cost: a few integer operations per term; 68 * 8 + 32 bytes per accumulator. Threads: an accumulator
 * belongs to one thread at a time; merge per-thread ones.
 */
#ifndef EDDY_HOST_EXACT_SUM_H
#define EDDY_HOST_EXACT_SUM_H

#include <stdint.h>

#define EDDY_XSUM_LIMBS 68
/* The packed form (eddy_xsum_pack): the limbs, then the NaN, +inf and -inf counts. */
#define EDDY_XSUM_WORDS (EDDY_XSUM_LIMBS + 3)

typedef struct eddy_xsum {
    int64_t limb[EDDY_XSUM_LIMBS]; /* value = sum limb[k] 2^(32k - 1074) */
    int64_t nan, pinf, ninf;       /* special terms seen */
    uint32_t pending;              /* terms since the last carry propagation */
} eddy_xsum;

/* An empty sum (value +0). */
void eddy_xsum_init(eddy_xsum *s);

/* Adds one term exactly. */
void eddy_xsum_add(eddy_xsum *s, double x);

/* Adds the sum `from` into `into` (the order of merges does not matter). */
void eddy_xsum_merge(eddy_xsum *into, const eddy_xsum *from);

/* The sum rounded once (to nearest, ties to even); see above for zero, NaN and infinities. */
double eddy_xsum_round(const eddy_xsum *s);

/*
 * The sum as EDDY_XSUM_WORDS integers: limbs with their carries propagated (each in [0, 2^32), the
 * last signed and small) and the special counts. Element-wise integer sums of the packed words of up
 * to 2^31 accumulators (an MPI_SUM over processes) unpack to the sum of them all.
 */
void eddy_xsum_pack(const eddy_xsum *s, int64_t *words);
void eddy_xsum_unpack(eddy_xsum *s, const int64_t *words);

#endif /* EDDY_HOST_EXACT_SUM_H */
