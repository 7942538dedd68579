/*
 * The built-in CPU grid backend: a stable counting sort of particles by cell index.
 *
 * Parallel scheme (T threads): each thread histograms a contiguous chunk of particles into its own
 * row of counts; one prefix sum over (cell, thread) in that order turns the rows into write offsets;
 * each thread then scatters its chunk. Within a cell, thread t's particles land after those of
 * threads < t and in their original order inside the chunk, so the result is the unique stable sort,
 * whatever T is.
 */
#include <eddy/grid.h>

#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "internal.h"

/* More threads than this do not help a memory-bound sort and multiply the histogram memory. */
#define CPU_SORT_MAX_THREADS 8
/* Below this many particles per thread the OpenMP region costs more than it saves. */
#define CPU_SORT_MIN_CHUNK 4096
/* Upper bound on histogram entries over all threads (256 MiB); a huge sparse grid runs with fewer. */
#define CPU_SORT_MAX_HIST ((size_t)1 << 26)

typedef struct cpu_state {
    uint32_t *cell; /* [n] cell of each particle in input order */
    size_t cell_capacity;
    uint32_t *hist; /* [threads * cell_count] counts, then write offsets */
    size_t hist_capacity;
} cpu_state;

static int grow(uint32_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap && *buf) return 0;
    size_t n = need + need / 4 + 64;
    uint32_t *fresh = malloc(sizeof(uint32_t) * n);
    if (!fresh) return -1;
    free(*buf);
    *buf = fresh;
    *cap = n;
    return 0;
}

static int cpu_create(const eddy_grid_setup *setup, void **state, eddy_error *err)
{
    (void)setup;
    *state = calloc(1, sizeof(cpu_state));
    if (!*state) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "cpu grid: out of memory");
    return EDDY_OK;
}

static void cpu_destroy(void *state)
{
    cpu_state *s = state;
    if (!s) return;
    free(s->cell);
    free(s->hist);
    free(s);
}

static int cpu_sort(void *state, const eddy_grid_layout *layout, size_t n, const eddy_real *x,
                    const eddy_real *y, const eddy_real *z, uint32_t *perm, uint32_t *cell_begin, uint32_t *cell_end, eddy_error *err)
{
    cpu_state *s = state;
    const size_t nc = layout->cell_count;
    if (n > UINT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "cpu grid: %zu particles exceed 2^32", n);

    int threads = omp_get_max_threads();
    if (threads > CPU_SORT_MAX_THREADS) threads = CPU_SORT_MAX_THREADS;
    if ((size_t)threads > n / CPU_SORT_MIN_CHUNK) threads = (int)(n / CPU_SORT_MIN_CHUNK);
    if ((size_t)threads * nc > CPU_SORT_MAX_HIST) threads = (int)(CPU_SORT_MAX_HIST / nc);
    if (threads < 1) threads = 1;

    /* A windowed grid (grid.c) that shrank well below the histogram's size gives the memory back: the
     * first builds of a decomposed run may have seen more cells than its slab needs. */
    const size_t hist_need = (size_t)threads * nc;
    if (s->hist && hist_need < s->hist_capacity / 4) {
        free(s->hist);
        s->hist = NULL;
        s->hist_capacity = 0;
    }
    if (grow(&s->cell, &s->cell_capacity, n ? n : 1) || grow(&s->hist, &s->hist_capacity, hist_need))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY,
                              "cpu grid: out of memory for %zu particles in %zu cells", n, nc);
    uint32_t *const cell = s->cell, *const hist = s->hist;
    uint64_t block_sum[CPU_SORT_MAX_THREADS];
    /* A private copy the stores below cannot alias, so the compiler keeps its fields in registers. */
    const eddy_grid_layout lay = *layout;

#pragma omp parallel num_threads(threads)
    {
        /* The runtime may grant fewer threads than asked; partition by what we got. */
        const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        const size_t i0 = n * t / nt, i1 = n * (t + 1) / nt;
        uint32_t *const h = hist + t * nc;
        memset(h, 0, sizeof(uint32_t) * nc);
        /* Input sorted by the previous build comes in runs of one cell; counting runs in a register
         * avoids a chain of increments of the same memory word (store-to-load forwarding stalls). */
        uint32_t last = 0, same = 0;
        for (size_t i = i0; i < i1; ++i) {
            const uint32_t c = eddy_grid_cell_of(&lay, x[i], y[i], z[i]);
            cell[i] = c;
            if (c != last) {
                h[last] += same;
                last = c;
                same = 0;
            }
            ++same;
        }
        h[last] += same;
#pragma omp barrier
        /* Prefix sum over cells, split into one block of cells per thread: block totals first, then
         * each thread offsets its block by the totals of the blocks before it. */
        const size_t c0 = nc * t / nt, c1 = nc * (t + 1) / nt;
        uint64_t sum = 0;
        for (size_t c = c0; c < c1; ++c)
            for (size_t u = 0; u < nt; ++u) sum += hist[u * nc + c];
        block_sum[t] = sum;
#pragma omp barrier
        uint32_t run = 0;
        for (size_t u = 0; u < t; ++u) run += (uint32_t)block_sum[u];
        if (nt == 1) {
            for (size_t c = c0; c < c1; ++c) {
                const uint32_t count = h[c];
                cell_begin[c] = run;
                h[c] = run;
                run += count;
                cell_end[c] = run;
            }
        } else {
            for (size_t c = c0; c < c1; ++c) {
                cell_begin[c] = run;
                for (size_t u = 0; u < nt; ++u) {
                    const uint32_t count = hist[u * nc + c];
                    hist[u * nc + c] = run;
                    run += count;
                }
                cell_end[c] = run;
            }
        }
#pragma omp barrier
        for (size_t i = i0; i < i1;) {
            const uint32_t c = cell[i];
            uint32_t o = h[c];
            do perm[o++] = (uint32_t)i++;
            while (i < i1 && cell[i] == c);
            h[c] = o;
        }
    }
    return EDDY_OK;
}

const eddy_grid_backend_vtable eddy_cpu_grid_vtable = {
    .size = sizeof(eddy_grid_backend_vtable),
    .create = cpu_create,
    .sort = cpu_sort,
    .destroy = cpu_destroy,
};

const eddy_grid_backend_vtable *eddy_cpu_grid_backend(void)
{
    return &eddy_cpu_grid_vtable;
}
