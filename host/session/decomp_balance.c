/*
 * The slab cuts of several processes and their rebalancing (decomp.h, docs/mpi.md "Rebalancing"): the
 * first cuts at attach, and new cuts once the owned counts drift apart (EDDY_REBALANCE). decomp.c keeps
 * the slabs, halos and migration; they share decomp_internal.h.
 *
 * The cuts are the particle-count quantiles of the coordinate along the cut axis, each moved to the
 * nearer end of its run of equal coordinates (eddy_decomp_quantile_pairs, the rule on sorted
 * coordinates as (value, count) pairs; tests/mpi/quantile_reference.h, written out).
 * No process holds every coordinate: decomp_select_cuts finds the same cuts by a 16-way search over
 * the coordinates' ordered bit patterns, every process counting its own, one MPI_Allreduce of
 * 15 (size - 1) counts a round (16 rounds at most), O(size) memory beyond a sorted copy of its own keys.
 */
#include "decomp.h"
#include "decomp_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef EDDY_HAVE_MPI
#include <mpi.h>

#define KEY_SIGN 0x8000000000000000u

/* Keys in the order of the values: the sign bit flipped for positive doubles, every bit for negative
 * ones. -0 is taken as +0, as the comparisons of the reference rule take them (one run). */
uint64_t decomp_cut_key(double x)
{
    if (x == 0) x = 0.0;
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u & KEY_SIGN ? ~u : u | KEY_SIGN;
}

static double key_value(uint64_t k)
{
    const uint64_t u = k & KEY_SIGN ? k & ~KEY_SIGN : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static int by_key(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The number of the sorted keys k[0..n) below x. */
static long long keys_below(const uint64_t *k, size_t n, uint64_t x)
{
    size_t a = 0, b = n;
    while (a < b) {
        const size_t m = a + (b - a) / 2;
        if (k[m] < x) a = m + 1;
        else b = m;
    }
    return (long long)a;
}

/* Keys at most x: those below x + 1, and all of them for the largest key. */
static long long keys_upto(const uint64_t *k, size_t n, uint64_t x)
{
    return x == UINT64_MAX ? (long long)n : keys_below(k, n, x + 1);
}

/*
 * Each round splits every open interval [a, b] into SPLIT parts at once, so that 16 rounds cover the 64
 * bits where bisection took 64: a round costs one Allreduce, whose latency (0.2 ms and more between
 * processes sharing cores) dominates, and SPLIT - 1 counts per cut are still O(size).
 */
#define SPLIT 16
/* The i-th of the SPLIT - 1 split points of [a, b] (a < b): the last key of part i, b at most. */
static uint64_t split_at(uint64_t a, uint64_t b, int i)
{
    const uint64_t step = (b - a) / SPLIT + 1, offset = (uint64_t)i * step - 1;
    return offset >= b - a ? b : a + offset;
}

int decomp_select_cuts(int size, double lo, double hi, uint64_t *keys, size_t n, double *cut, double *imbalance,
                       eddy_error *err)
{
    const int ok = keys != NULL;
    if (ok && n) qsort(keys, n, sizeof *keys, by_key);
    /* Every process learns whether all have their keys (none waits alone in a later round), and k. */
    long long head[2] = {(long long)n, ok ? 0 : 1};
    DECOMP_TIMED_MPI(TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, head, 2, MPI_LONG_LONG, MPI_SUM, eddy_decomp_comm())));
    if (head[1])
        return ok ? eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "rebalancing: another process ran out of memory")
                  : eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "rebalancing: out of memory for %zu coordinates", n);
    const unsigned long long k = (unsigned long long)head[0];
    if (k == 0) {
        *imbalance = eddy_decomp_quantile_pairs(NULL, NULL, 0, size, lo, hi, cut); /* even split */
        return EDDY_OK;
    }
    const size_t m = (size_t)size - 1; /* interior cuts */
    uint64_t *a = malloc(sizeof *a * (m ? m : 1)), *b = malloc(sizeof *b * (m ? m : 1));
    unsigned long long *j = malloc(sizeof *j * (m ? m : 1));
    long long *count = malloc(sizeof *count * (SPLIT - 1) * (m ? m : 1));
    int mine = a && b && j && count, all = 0;
    DECOMP_TIMED_MPI(TALLY_REDUCE(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, eddy_decomp_comm())));
    int rc = EDDY_OK;
    if (!all) {
        rc = eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "rebalancing: out of memory for %d cuts", size);
        goto done;
    }
    /* Cut r is the key of the particle of rank j = k r / size in sorted order: the smallest key K with
     * more than j keys at most K. Every round keeps a[r] <= K <= b[r], the part of [a, b] where the
     * count first exceeds j; every process takes the same steps from the same summed counts, so all
     * leave the loop together. */
    for (size_t r = 0; r < m; ++r) {
        a[r] = 0;
        b[r] = UINT64_MAX;
        j[r] = k * (unsigned long long)(r + 1) / (unsigned long long)size;
    }
    for (;;) {
        int open = 0;
        for (size_t r = 0; r < m; ++r) {
            for (int i = 1; i < SPLIT; ++i)
                count[r * (SPLIT - 1) + (size_t)(i - 1)] =
                    a[r] < b[r] ? keys_upto(keys, n, split_at(a[r], b[r], i)) : 0;
            open |= a[r] < b[r];
        }
        if (!open) break;
        DECOMP_TIMED_MPI(TALLY_REDUCE(
            MPI_Allreduce(MPI_IN_PLACE, count, (int)(m * (SPLIT - 1)), MPI_LONG_LONG, MPI_SUM, eddy_decomp_comm())));
        for (size_t r = 0; r < m; ++r) {
            if (a[r] >= b[r]) continue;
            int i = 1;
            while (i < SPLIT && (unsigned long long)count[r * (SPLIT - 1) + (size_t)(i - 1)] <= j[r]) ++i;
            const uint64_t below = i > 1 ? split_at(a[r], b[r], i - 1) + 1 : a[r];
            if (i < SPLIT) b[r] = split_at(a[r], b[r], i);
            a[r] = below;
        }
    }
    /* The run of key K: the keys below it and at most it (where the rule moves the cut), and the next
     * key above it (the cut when the run's far end is nearer). */
    for (size_t r = 0; r < m; ++r) {
        count[r] = keys_below(keys, n, a[r]);
        count[m + r] = keys_upto(keys, n, a[r]);
        const long long above = count[m + r];
        b[r] = (size_t)above < n ? keys[above] : UINT64_MAX;
    }
    DECOMP_TIMED_MPI(
        TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, count, (int)(2 * m), MPI_LONG_LONG, MPI_SUM, eddy_decomp_comm())));
    DECOMP_TIMED_MPI(TALLY_REDUCE(MPI_Allreduce(MPI_IN_PLACE, b, (int)m, MPI_UINT64_T, MPI_MIN, eddy_decomp_comm())));
    unsigned long long first = 0, largest = 0;
    for (int r = 1; r <= size; ++r) {
        unsigned long long at = k;
        if (r < size) {
            const size_t i = (size_t)r - 1;
            const unsigned long long below = (unsigned long long)count[i], upto = (unsigned long long)count[m + i];
            at = upto < k && upto - j[i] < j[i] - below ? upto : below;
            cut[r] = key_value(at == below ? a[i] : b[i]);
        }
        if (at - first > largest) largest = at - first;
        first = at;
    }
    *imbalance = (double)largest * size / (double)k - 1.0;
done:
    free(count);
    free(j);
    free(b);
    free(a);
    return rc;
}

/*
 * The first cuts, from the particles every process built (the whole scene on each: a run that fills
 * only its own slab hands its cuts in through eddy_decomp_resume_cuts instead). Each process counts a
 * disjoint share, the k-th of every size particles in index order, so that no process sorts more than
 * n / size keys and the counting work is split; the union is every particle, so the cuts are those of
 * every coordinate.
 */
int decomp_make_cuts(decomp *d, eddy_error *err)
{
    const eddy_particles *p = &d->w->particles;
    const eddy_real *xa = coord_array(p, d->axis);
    const size_t n = p->count, begin = n * (size_t)d->rank / (size_t)d->size,
                 end = n * ((size_t)d->rank + 1) / (size_t)d->size;
    d->cut[0] = d->periodic ? d->lo : -INFINITY;
    d->cut[d->size] = d->periodic ? d->hi : INFINITY;
    uint64_t *keys = malloc(sizeof *keys * (end > begin ? end - begin : 1));
    size_t k = 0;
    if (keys)
        for (size_t i = begin; i < end; ++i)
            if (isfinite(xa[i])) keys[k++] = decomp_cut_key(axis_coord(d, xa[i]));
    const int rc = decomp_select_cuts(d->size, d->lo, d->hi, keys, k, d->cut, &d->floor, err);
    free(keys);
    return rc;
}

/*
 * After a migration: the imbalance of the owned counts, and new cuts when it exceeds threshold + floor
 * (decomp.h). Every process takes the same decision from the same allgathered counts; the cuts are
 * selected together (decomp_select_cuts) and applied only when they give less than the present
 * imbalance. Collective.
 *
 * The floor (what the last cuts achieved, or would have) decays at every check without new cuts,
 * halving every FLOOR_HALF_LIFE checks: cuts taken at a lumpy moment of the flow set a high floor
 * that would otherwise lock out the recuts a later, smoother flow could use. A floor the particles
 * really impose (lattice columns) comes back at the next attempt, whose cuts are then not applied.
 */
#define FLOOR_HALF_LIFE 10.0
int decomp_balance(decomp *d, eddy_error *err)
{
    const eddy_particles *p = &d->w->particles;
    const int size = d->size;
    long long mine = (long long)(p->count - p->halo_count), total = 0, largest = 0;
    long long *count = malloc(sizeof(long long) * (size_t)size);
    if (!count) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    DECOMP_TIMED_MPI(
        TALLY_REDUCE(MPI_Allgather(&mine, 1, MPI_LONG_LONG, count, 1, MPI_LONG_LONG, eddy_decomp_comm())));
    for (int r = 0; r < size; ++r) {
        total += count[r];
        if (count[r] > largest) largest = count[r];
    }
    free(count);
    d->imbalance = total ? (double)largest * size / (double)total - 1.0 : 0.0;
    if (!(d->imbalance > d->threshold + d->floor)) {
        d->imbalance_sum += d->imbalance;
        d->checks++;
        d->floor *= exp2(-1.0 / FLOOR_HALF_LIFE);
        return EDDY_OK;
    }
    const double t0 = MPI_Wtime();
    double *cut = malloc(sizeof(double) * ((size_t)size + 1));
    uint64_t *keys = malloc(sizeof *keys * (size_t)(mine ? mine : 1));
    if (!cut) { /* said as the keys' failure, so that every process learns it in the selection */
        free(keys);
        keys = NULL;
    }
    if (keys) {
        const eddy_real *xa = coord_array(p, d->axis);
        for (size_t i = 0, k = 0; i < p->count; ++i)
            if (!(p->flags[i] & EDDY_PARTICLE_HALO)) keys[k++] = decomp_cut_key(axis_coord(d, xa[i]));
    }
    double achieved = 0;
    int rc = decomp_select_cuts(size, d->lo, d->hi, keys, (size_t)mine, cut, &achieved, err);
    free(keys);
    if (!rc) {
        d->floor = achieved;
        if (achieved < d->imbalance) {
            memcpy(d->cut + 1, cut + 1, sizeof(double) * (size_t)(size - 1));
            d->imbalance = achieved;
            d->rebalances++;
            rc = decomp_migrate(d, err);
        }
        d->imbalance_sum += d->imbalance;
        d->checks++;
        d->rebalance_s += MPI_Wtime() - t0;
    }
    free(cut);
    return rc;
}

/*
 * The rebalancing threshold of this run (decomp.h): EDDY_REBALANCE, a number >= 0 or "off"
 * (INFINITY), EDDY_DECOMP_REBALANCE_DEFAULT when unset. Rank 0 reads and checks it and sends it to all,
 * so every decision agrees. A bad value is refused by every process with rank 0's message (the value
 * travels with the threshold), recorded as agreed: main says it once and every process ends normally
 * with status 1, as after a bad EDDY_DECOMP_FILL (each process once waited for rank 0 to stop it with
 * MPI_Abort, and Open MPI's abort notice followed the message).
 */
int decomp_rebalance_threshold(double *out, eddy_error *err)
{
    int rank = 0;
    MPI_Comm_rank(eddy_decomp_comm(), &rank);
    struct {
        double t;
        char value[48];
    } msg;
    memset(&msg, 0, sizeof msg);
    msg.t = EDDY_DECOMP_REBALANCE_DEFAULT;
    const char *v = getenv("EDDY_REBALANCE");
    if (rank == 0 && v && strcmp(v, "off") == 0) {
        msg.t = INFINITY;
    } else if (rank == 0 && v) {
        char *end = NULL;
        msg.t = strtod(v, &end);
        if (end == v || *end || !(msg.t >= 0)) {
            msg.t = NAN;
            snprintf(msg.value, sizeof msg.value, "%.40s", v);
        }
    }
    MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, eddy_decomp_comm());
    if (isnan(msg.t)) {
        eddy_decomp_set_agreed(EDDY_ERR_INVALID_ARGUMENT);
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "environment variable EDDY_REBALANCE: expected a number >= 0 (the imbalance, "
                              "largest owned particle count / mean - 1, above which the slabs are cut "
                              "again) or 'off', got '%s'", msg.value);
    }
    *out = msg.t;
    return EDDY_OK;
}

#endif /* EDDY_HAVE_MPI */
