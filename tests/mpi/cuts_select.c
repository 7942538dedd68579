/*
 * The slab cuts selected together (decomp_select_cuts: bisection over the coordinates' keys, each
 * process counting its own) against the reference rule on every coordinate gathered and sorted on rank
 * 0 (quantile_reference.h, what rebalancing did before): the same cuts, bit for bit but for the sign of
 * a zero, and the same imbalance. Run under mpirun -np 2, 3, 4. Every rank draws coordinates with many
 * equal runs (lattice planes shared between processes), a few distinct values, a rank without any,
 * zeros of both signs, infinities and fewer coordinates than processes; exits 1 on the first mismatch,
 * naming the case.
 */
#include "decomp_internal.h"
#include "quantile_reference.h"

#include <math.h>
#include <mpi.h>
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

static int by_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Case c on this rank: n coordinates into v (room for 4096). */
static size_t draw(int c, int rank, int size, double *v)
{
    uint64_t s = 0x9E3779B97F4A7C15u * (uint64_t)(c * 64 + rank + 1);
    for (int i = 0; i < 4; ++i) next(&s);
    const int kind = c % 8;
    size_t n = (size_t)(next(&s) % 3000);
    if (kind == 1 && rank == size - 1) n = 0;     /* a process without particles */
    if (kind == 2) n = (size_t)(next(&s) % 2);    /* fewer coordinates than processes, maybe none */
    if (kind == 3) n = rank == 0 ? 5 : 0;         /* all on one process */
    const int planes = 1 + (int)(next(&s) % (kind == 4 ? 3 : 200)); /* kind 4: very few values */
    for (size_t i = 0; i < n; ++i) {
        const uint64_t u = next(&s);
        if (kind == 5 && u % 7 == 0) {
            v[i] = (double)(u % 2 ? 0.0 : -0.0); /* zeros of both signs in one run */
        } else if (kind == 6 && u % 50 == 0) {
            v[i] = u % 100 ? INFINITY : -INFINITY;
        } else if (kind == 7 && u % 3 == 0) {
            v[i] = ldexp((double)(u >> 11), -53) * 2 - 1; /* distinct values, negative too */
        } else {
            /* lattice planes as float coordinates become: spacing 0.01 from -0.3, rounded to float */
            v[i] = (double)(float)(-0.3 + 0.01 * (double)(int)(u % (uint64_t)planes));
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *v = malloc(sizeof(double) * 4096), *all = malloc(sizeof(double) * 4096 * (size_t)size);
    uint64_t *keys = malloc(sizeof(uint64_t) * 4096);
    double *cut = malloc(sizeof(double) * ((size_t)size + 1)), *ref = malloc(sizeof(double) * ((size_t)size + 1));
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int failed = 0, cases = 0, moved_to_far_end = 0;
    for (int c = 0; c < 400 && !failed; ++c) {
        const int n = (int)draw(c, rank, size, v);
        for (int i = 0; i < n; ++i) keys[i] = decomp_cut_key(v[i]);
        double imbalance = -1;
        eddy_error err = {0};
        if (decomp_select_cuts(size, -1.0, 2.0, keys, (size_t)n, cut, &imbalance, &err)) {
            fprintf(stderr, "cuts_select: case %d: %s\n", c, err.message);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
        int total = 0;
        if (rank == 0)
            for (int r = 0; r < size; ++r) {
                displs[r] = total;
                total += counts[r];
            }
        MPI_Gatherv(v, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            qsort(all, (size_t)total, sizeof *all, by_double);
            const double want = reference_quantile_cuts(size, -1.0, 2.0, all, (size_t)total, ref);
            for (int r = 1; r < size; ++r) {
                if (!(cut[r] == ref[r]) || (cut[r] != 0 && memcmp(&cut[r], &ref[r], sizeof(double)))) {
                    fprintf(stderr,
                            "cuts_select: np %d case %d (%d coordinates): cut %d is %.17g, the gathered rule "
                            "gives %.17g\n", size, c, total, r, cut[r], ref[r]);
                    failed = 1;
                }
                /* the rule's far end of a run taken: the cut is above the quantile's own coordinate */
                if (total) {
                    const size_t j = (size_t)total * (size_t)r / (size_t)size;
                    moved_to_far_end += ref[r] > all[j];
                }
            }
            if (!(imbalance == want)) {
                fprintf(stderr, "cuts_select: np %d case %d: imbalance %.17g, the gathered rule gives %.17g\n", size,
                        c, imbalance, want);
                failed = 1;
            }
            ++cases;
        }
        MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    /* The cases must reach the rule's second branch, or half of it would go unchecked. */
    if (rank == 0 && !failed && moved_to_far_end == 0) {
        fprintf(stderr, "cuts_select: no case moved a cut to the far end of its run\n");
        failed = 1;
    }
    if (rank == 0 && !failed)
        printf("cuts_select: np %d: %d cases, same cuts (%d moved to a run's far end)\n", size, cases,
               moved_to_far_end);
    free(v);
    free(all);
    free(keys);
    free(cut);
    free(ref);
    free(counts);
    free(displs);
    MPI_Finalize();
    return failed;
}
