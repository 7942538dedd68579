/*
 * The exact accumulator of the diagnostics and probes (host/observe/exact_sum.h): the same terms in
 * any order, split in any way between accumulators (processes) and combined through the packed
 * integer words, give the same bits; small sums equal the exact long-double sum rounded once; and the
 * edge cases (cancellation across the whole range, ties, subnormals, overflow, NaN and infinities)
 * give what IEEE 754 says of the exact sum. Python's math.fsum (correctly rounded, Shewchuk 1997)
 * checks wide random sums independently (xsum_fsum.py with the xsum_cli program).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exact_sum.h"

/* xorshift64* (Vigna 2016): the test's own generator, the same sequence on every platform. */
static uint64_t g_state = 0x9E3779B97F4A7C15u;
static uint64_t next_u64(void)
{
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return g_state * 0x2545F4914F6CDD1Du;
}

/* A finite double of random sign, mantissa and exponent over the whole range, subnormals included. */
static double random_finite(void)
{
    for (;;) {
        uint64_t b = next_u64();
        double x;
        memcpy(&x, &b, sizeof x);
        if (isfinite(x)) return x;
    }
}

/* A double of random sign and mantissa with its exponent in [lo, hi]. */
static double random_in(int lo, int hi)
{
    double m = (double)(next_u64() >> 11) * 0x1p-53 + 0.5; /* [0.5, 1) */
    double x = ldexp(m, lo + (int)(next_u64() % (uint64_t)(hi - lo + 1)));
    return next_u64() & 1 ? -x : x;
}

static uint64_t bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double sum_of(const double *x, size_t n)
{
    eddy_xsum s;
    eddy_xsum_init(&s);
    for (size_t i = 0; i < n; ++i) eddy_xsum_add(&s, x[i]);
    return eddy_xsum_round(&s);
}

static void shuffle(double *x, size_t n)
{
    for (size_t i = n; i > 1; --i) {
        size_t j = (size_t)(next_u64() % i);
        double t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
    }
}

/* The terms split at random between `parts` accumulators, packed, the words summed as integers (what
 * MPI_SUM on MPI_INT64_T does) and unpacked. */
static double sum_in_parts(const double *x, size_t n, int parts)
{
    eddy_xsum *acc = malloc(sizeof *acc * (size_t)parts);
    assert_non_null(acc);
    for (int p = 0; p < parts; ++p) eddy_xsum_init(&acc[p]);
    for (size_t i = 0; i < n; ++i) eddy_xsum_add(&acc[next_u64() % (uint64_t)parts], x[i]);
    int64_t total[EDDY_XSUM_WORDS] = {0}, w[EDDY_XSUM_WORDS];
    for (int p = 0; p < parts; ++p) {
        eddy_xsum_pack(&acc[p], w);
        for (int k = 0; k < EDDY_XSUM_WORDS; ++k) total[k] += w[k];
    }
    free(acc);
    eddy_xsum s;
    eddy_xsum_unpack(&s, total);
    return eddy_xsum_round(&s);
}

static void any_order_any_split_same_bits(void **state)
{
    (void)state;
    enum { N = 3000 };
    static double x[N];
    for (int round = 0; round < 4; ++round) {
        /* Whole range; a narrow one (every term's bits overlap, carries everywhere); huge magnitudes
         * that cancel to a small rest. */
        for (size_t i = 0; i < N; ++i)
            x[i] = round == 0 ? random_finite() : round == 1 ? random_in(-3, 3) : random_in(900, 1023);
        if (round == 3)
            for (size_t i = 0; i < N; i += 2) {
                x[i] = random_in(1000, 1023);
                x[i + 1] = -x[i] + (i % 10 == 0 ? random_in(-20, 0) : 0.0);
            }
        const uint64_t first = bits(sum_of(x, N));
        for (int k = 0; k < 20; ++k) {
            shuffle(x, N);
            assert_int_equal(bits(sum_of(x, N)), first);
            assert_int_equal(bits(sum_in_parts(x, N, 1 + k % 7)), first);
        }
        /* Merging accumulators equals adding every term to one. */
        eddy_xsum a, b;
        eddy_xsum_init(&a);
        eddy_xsum_init(&b);
        for (size_t i = 0; i < N; ++i) eddy_xsum_add(i % 3 ? &a : &b, x[i]);
        eddy_xsum_merge(&a, &b);
        assert_int_equal(bits(eddy_xsum_round(&a)), first);
    }
}

/* With at most 8 terms whose exponents lie within 6 of each other, the exact sum needs at most
 * 53 + 6 + 3 bits: a long double with a 64-bit mantissa holds it, and its one rounding to double is
 * the correctly rounded sum. */
static void small_sums_equal_long_double_reference(void **state)
{
    (void)state;
    if (LDBL_MANT_DIG < 64) skip();
    for (int t = 0; t < 200000; ++t) {
        double x[8];
        const int n = 1 + (int)(next_u64() % 8);
        const int e = (int)(next_u64() % 2000) - 1000;
        long double ref = 0.0L;
        for (int i = 0; i < n; ++i) {
            x[i] = random_in(e, e + 6);
            ref += (long double)x[i];
        }
        const double want = (double)ref + 0.0; /* (+ 0.0: an exact zero is +0) */
        assert_int_equal(bits(sum_of(x, (size_t)n)), bits(want));
    }
}

static void cancellation_across_the_range(void **state)
{
    (void)state;
    const double a[] = {1e308, 1.0, -1e308};
    assert_true(sum_of(a, 3) == 1.0);
    const double b[] = {0x1p53, 1.0, -0x1p53};
    assert_true(sum_of(b, 3) == 1.0);
    /* The smallest subnormal survives the largest double on both sides. */
    const double c[] = {DBL_MAX, DBL_TRUE_MIN, -DBL_MAX};
    assert_true(sum_of(c, 3) == DBL_TRUE_MIN);
    const double d[] = {1e300, -1e300, 1e-300, 2e-300};
    assert_true(sum_of(d, 4) == 1e-300 + 2e-300);
    /* x + (-x) is +0, as IEEE 754 gives in round to nearest; so is a lone -0 (a sum from +0). */
    const double e[] = {0.1, -0.1};
    assert_int_equal(bits(sum_of(e, 2)), bits(0.0));
    const double f[] = {-0.0};
    assert_int_equal(bits(sum_of(f, 1)), bits(0.0));
    assert_int_equal(bits(sum_of(NULL, 0)), bits(0.0));
    /* Negative results round symmetrically. */
    const double g[] = {-0x1p53, -1.0};
    assert_true(sum_of(g, 2) == -0x1p53);
    const double h[] = {-0x1p53, -3.0};
    assert_true(sum_of(h, 2) == -0x1p53 - 4.0);
}

static void ties_round_to_even_and_sticky_bits_break_them(void **state)
{
    (void)state;
    const double a[] = {0x1p53, 1.0}; /* halfway, even below */
    assert_true(sum_of(a, 2) == 0x1p53);
    const double b[] = {0x1p53, 3.0}; /* halfway, even above */
    assert_true(sum_of(b, 2) == 0x1p53 + 4.0);
    const double c[] = {0x1p53, 1.0, 0x1p-1074}; /* just above halfway, by the smallest subnormal */
    assert_true(sum_of(c, 3) == 0x1p53 + 2.0);
    const double d[] = {0x1p53, 1.0, -0x1p-1074}; /* just below */
    assert_true(sum_of(d, 3) == 0x1p53);
    /* Sequential double addition gets this one wrong (0.1 + 0.2 + 0.3 = 0.6000000000000001). */
    const double e[] = {0.1, 0.2, 0.3};
    assert_true(sum_of(e, 3) == 0.6);
}

static void subnormals_are_exact(void **state)
{
    (void)state;
    double x[1000];
    for (int i = 0; i < 1000; ++i) x[i] = DBL_TRUE_MIN;
    assert_true(sum_of(x, 1000) == 1000 * DBL_TRUE_MIN);
    const double a[] = {DBL_MIN, -DBL_TRUE_MIN};
    assert_true(sum_of(a, 2) == nextafter(DBL_MIN, 0.0));
    const double b[] = {DBL_MIN / 2, DBL_MIN / 2};
    assert_true(sum_of(b, 2) == DBL_MIN);
    const double c[] = {-DBL_TRUE_MIN, -DBL_TRUE_MIN};
    assert_true(sum_of(c, 2) == -2 * DBL_TRUE_MIN);
}

static void overflow_only_in_the_result(void **state)
{
    (void)state;
    /* The intermediate 2 DBL_MAX is held exactly, not as infinity. */
    const double a[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
    assert_true(sum_of(a, 3) == DBL_MAX);
    const double b[] = {DBL_MAX, DBL_MAX};
    assert_true(sum_of(b, 2) == INFINITY);
    const double c[] = {-DBL_MAX, -DBL_MAX};
    assert_true(sum_of(c, 2) == -INFINITY);
    /* Half an ulp above DBL_MAX (an odd mantissa): the tie rounds up, to infinity; just below stays. */
    const double d[] = {DBL_MAX, 0x1p970};
    assert_true(sum_of(d, 2) == INFINITY);
    const double e[] = {DBL_MAX, 0x1p969};
    assert_true(sum_of(e, 2) == DBL_MAX);
    /* A million largest terms and as many negated: headroom for the carries, the exact 0 at the end. */
    eddy_xsum s;
    eddy_xsum_init(&s);
    for (int i = 0; i < 1000000; ++i) eddy_xsum_add(&s, DBL_MAX);
    for (int i = 0; i < 999999; ++i) eddy_xsum_add(&s, -DBL_MAX);
    assert_true(eddy_xsum_round(&s) == DBL_MAX);
}

static void nan_and_infinities(void **state)
{
    (void)state;
    const double a[] = {1.0, NAN, 2.0};
    assert_true(isnan(sum_of(a, 3)));
    const double b[] = {1.0, INFINITY, -5.0};
    assert_true(sum_of(b, 3) == INFINITY);
    const double c[] = {-INFINITY, 1e308, 1e308};
    assert_true(sum_of(c, 3) == -INFINITY);
    const double d[] = {INFINITY, -INFINITY};
    assert_true(isnan(sum_of(d, 2)));
    const double e[] = {INFINITY, -NAN};
    assert_true(isnan(sum_of(e, 2)));
    /* A NaN's sign is not kept: one NaN, positive, whatever the terms' NaNs were. */
    const double f[] = {-NAN};
    assert_int_equal(signbit(sum_of(f, 1)), 0);
    /* The counts travel through the packed words: +inf on one process, -inf on another is NaN. */
    eddy_xsum p, q;
    eddy_xsum_init(&p);
    eddy_xsum_init(&q);
    eddy_xsum_add(&p, INFINITY);
    eddy_xsum_add(&q, -INFINITY);
    int64_t wp[EDDY_XSUM_WORDS], wq[EDDY_XSUM_WORDS];
    eddy_xsum_pack(&p, wp);
    eddy_xsum_pack(&q, wq);
    for (int k = 0; k < EDDY_XSUM_WORDS; ++k) wp[k] += wq[k];
    eddy_xsum r;
    eddy_xsum_unpack(&r, wp);
    assert_true(isnan(eddy_xsum_round(&r)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(any_order_any_split_same_bits),
        cmocka_unit_test(small_sums_equal_long_double_reference),
        cmocka_unit_test(cancellation_across_the_range),
        cmocka_unit_test(ties_round_to_even_and_sticky_bits_break_them),
        cmocka_unit_test(subnormals_are_exact),
        cmocka_unit_test(overflow_only_in_the_result),
        cmocka_unit_test(nan_and_infinities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
