/*
 * The uniform neighbor grid: layout, build (domain policy, backend sort, permutation of every
 * field), cell ranges made of 3-cell bars, and CSR neighbor lists. The sort itself lives in the
 * backends (grid_cpu.c, plugins/cuda_grid).
 */
#include <eddy/grid.h>

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "internal.h"

struct eddy_grid_impl {
    const eddy_grid_backend_vtable *backend;
    void *state;
    /* The window (eddy_grid_set_window): `full` is the layout eddy_grid_init got, which the grid
     * returns to when the window is switched off; cell_begin/cell_end hold cell_capacity entries. */
    int window;
    int windowed; /* the layout is a window laid out by update_window, not the one init got */
    eddy_grid_layout full;
    size_t cell_capacity;
    /* Per-particle buffers (perm, grid->particle_cell, grid->occupied) share one capacity. */
    uint32_t *perm;
    size_t capacity;
    /* Neighbor-list storage survives rebuilds; the public pointers are cleared on each grid build so
     * stale lists are never read. */
    uint32_t *offset;
    size_t offset_capacity;
    uint32_t *index;
    size_t index_capacity;
};

static const char axis_name[3] = {'x', 'y', 'z'};

/* Below this many particles per thread an OpenMP region costs more than it saves. */
#define GRID_PARALLEL_MIN 4096

static int grow_u32(uint32_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap && *buf) return 0;
    size_t n = *cap ? *cap : 1024;
    while (n < need) n += n / 2;
    uint32_t *fresh = malloc(sizeof(uint32_t) * n);
    if (!fresh) return -1;
    free(*buf);
    *buf = fresh;
    *cap = n;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Layout                                                                                         */

int eddy_grid_layout_init(eddy_grid_layout *layout, int dimensions, const eddy_real lo[3], const eddy_real hi[3],
                          const int periodic[3], eddy_real h, eddy_error *err)
{
    if (!layout || !lo || !hi)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "grid layout: NULL layout or bounds");
    memset(layout, 0, sizeof *layout);
    if (dimensions != 2 && dimensions != 3)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "grid: dimensions must be 2 or 3, got %d",
                              dimensions);
    if (!(h > 0.0f) || !isfinite(h))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "grid: cell size h must be positive and finite, got %g", (double)h);
    layout->dimensions = dimensions;
    uint64_t total = 1;
    for (int a = 0; a < 3; ++a) {
        if (a >= dimensions) {
            /* The unused z axis of a 2D grid: one stored cell, so the hash formula stays the same. */
            layout->lo[a] = isfinite(lo[a]) ? lo[a] : 0.0f;
            layout->hi[a] = isfinite(hi[a]) ? hi[a] : 0.0f;
            layout->cell_size[a] = h;
            layout->inv_cell_size[a] = 1.0f / h;
            layout->cells[a] = 1;
            layout->dim[a] = 1;
            continue;
        }
        if (!isfinite(lo[a]) || !isfinite(hi[a]) || !(lo[a] < hi[a]))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "grid: axis %c: domain [%g, %g] must be finite with lo < hi", axis_name[a],
                                  (double)lo[a], (double)hi[a]);
        layout->lo[a] = lo[a];
        layout->hi[a] = hi[a];
        /* The period is the float difference, exactly as eddy_grid_min_image computes it. */
        const eddy_real Lf = hi[a] - lo[a];
        const double L = (double)Lf, ratio = L / (double)h;
        const int per = periodic && periodic[a];
        layout->periodic[a] = per;
        double cells;
        if (per) {
            cells = floor(ratio);
            if (cells < 3.0)
                return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                      "grid: periodic axis %c is too short: length %g holds %.0f cells of "
                                      "h = %g, at least 3 are needed (length >= 3h = %g)",
                                      axis_name[a], L, cells, (double)h, 3.0 * h);
        } else {
            cells = ceil(ratio);
            if (cells < 1.0) cells = 1.0;
        }
        if (cells > (double)(INT32_MAX - 2))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "grid: axis %c: length %g / h = %g gives %.0f cells, more than 2^31",
                                  axis_name[a], L, (double)h, cells);
        layout->cells[a] = (int32_t)cells;
        layout->pad[a] = per ? 0 : 1;
        layout->dim[a] = layout->cells[a] + 2 * layout->pad[a];
        if (per) {
            /* Rounding L / cells to float can only land on or above h, because h is a float. */
            layout->cell_size[a] = (eddy_real)(L / cells);
            layout->inv_cell_size[a] = (eddy_real)(cells / L);
        } else {
            layout->cell_size[a] = h;
            layout->inv_cell_size[a] = 1.0f / h;
        }
        /* Saturating, so the product cannot overflow while every axis is still reported. */
        if (total < (UINT64_C(1) << 31)) total *= (uint64_t)layout->dim[a];
    }
    if (total >= (UINT64_C(1) << 31))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "grid: %d x %d x %d stored cells (domain %g x %g x %g, h = %g) do not fit in "
                              "2^31 cells; use a larger smoothing radius or a smaller domain",
                              layout->dim[0], layout->dim[1], dimensions == 3 ? layout->dim[2] : 1,
                              (double)(hi[0] - lo[0]), (double)(hi[1] - lo[1]),
                              dimensions == 3 ? (double)(hi[2] - lo[2]) : 0.0, (double)h);
    layout->cell_count = (size_t)total;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Life cycle                                                                                     */

int eddy_grid_init(eddy_grid *grid, const eddy_grid_layout *layout, const eddy_grid_backend_vtable *backend,
                   eddy_domain_policy policy, eddy_error *err)
{
    return eddy_grid_init_with(grid, layout, backend, NULL, NULL, policy, err);
}

int eddy_grid_init_with(eddy_grid *grid, const eddy_grid_layout *layout,
                        const eddy_grid_backend_vtable *backend, const eddy_param_values *params,
                        const eddy_host *host, eddy_domain_policy policy, eddy_error *err)
{
    if (!grid || !layout) return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "grid: NULL grid or layout");
    memset(grid, 0, sizeof *grid);
    if ((layout->dimensions != 2 && layout->dimensions != 3) || layout->cell_count == 0 ||
        layout->cell_count != (size_t)layout->dim[0] * (size_t)layout->dim[1] * (size_t)layout->dim[2])
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "grid: layout is not initialized (use eddy_grid_layout_init)");
    if (policy != EDDY_DOMAIN_ERROR && policy != EDDY_DOMAIN_REMOVE)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "grid: unknown domain policy %d", (int)policy);
    if (!backend) backend = eddy_cpu_grid_backend();
    /* Vtables only grow at the end: a newer, larger one is fine, as long as the callbacks known here
     * are inside it. */
    const size_t need = offsetof(eddy_grid_backend_vtable, destroy) + sizeof backend->destroy;
    if (backend->size < need || !backend->create || !backend->sort)
        return eddy_error_set(err, EDDY_ERR_PLUGIN,
                              "grid backend: vtable of %zu bytes lacks create or sort (need %zu bytes)",
                              backend->size, need);
    grid->layout = *layout;
    grid->policy = policy;
    grid->impl = calloc(1, sizeof *grid->impl);
    if (grid->impl) {
        grid->impl->full = *layout;
        grid->impl->cell_capacity = layout->cell_count;
    }
    /* Zeroed ranges are the valid prefix sums of an empty grid, so queries before a build are safe. */
    grid->cell_begin = calloc(layout->cell_count, sizeof(uint32_t));
    grid->cell_end = calloc(layout->cell_count, sizeof(uint32_t));
    if (!grid->impl || !grid->cell_begin || !grid->cell_end) {
        eddy_grid_free(grid);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "grid: out of memory for %zu cells",
                              layout->cell_count);
    }
    grid->impl->backend = backend;
    /* The backend always sees parameters and services, so it never tests for NULL. */
    const eddy_param_values no_params = {.size = sizeof(eddy_param_values)};
    const eddy_grid_setup setup = {
        .size = sizeof(eddy_grid_setup),
        .layout = &grid->layout,
        .params = params ? params : &no_params,
        .host = host ? host : eddy_host_silent(),
    };
    /* (an address no create() hands back: a success that leaves it did not set *out, plugin.h) */
    static char unset;
    void *state = &unset;
    int rc = backend->create(&setup, &state, err);
    if (!rc && state == &unset)
        rc = eddy_error_set(err, EDDY_ERR_PLUGIN,
                            "create() returned success without setting *out (set it to the grid's state, or to "
                            "NULL for a grid without state)");
    if (rc) {
        grid->impl->state = NULL;
        eddy_grid_free(grid);
        return rc;
    }
    grid->impl->state = state;
    return EDDY_OK;
}

void eddy_grid_free(eddy_grid *grid)
{
    if (!grid) return;
    struct eddy_grid_impl *im = grid->impl;
    if (im) {
        if (im->state && im->backend->destroy) im->backend->destroy(im->state);
        free(im->perm);
        free(im->offset);
        free(im->index);
        free(im);
    }
    free(grid->cell_begin);
    free(grid->cell_end);
    free(grid->particle_cell);
    free(grid->occupied);
    memset(grid, 0, sizeof *grid);
}

/* ---------------------------------------------------------------------------------------------- */
/* Build                                                                                          */

static int ensure_particle_buffers(eddy_grid *grid, size_t n)
{
    struct eddy_grid_impl *im = grid->impl;
    if (n <= im->capacity && im->perm) return 0;
    size_t cap = im->capacity ? im->capacity : 1024;
    while (cap < n) cap += cap / 2;
    uint32_t *perm = malloc(sizeof(uint32_t) * cap);
    uint32_t *cell = malloc(sizeof(uint32_t) * cap);
    uint32_t *occ = malloc(sizeof(uint32_t) * cap);
    if (!perm || !cell || !occ) {
        free(perm);
        free(cell);
        free(occ);
        return -1;
    }
    free(im->perm);
    free(grid->particle_cell);
    free(grid->occupied);
    im->perm = perm;
    grid->particle_cell = cell;
    grid->occupied = occ;
    im->capacity = cap;
    return 0;
}

/* Brings a coordinate of a periodic axis into [lo, hi): grid.h's definition, the one a CUDA step wraps
 * with on the device. */
static inline eddy_real wrap_coordinate(eddy_real v, eddy_real lo, eddy_real hi)
{
    return eddy_grid_wrap_coordinate(v, lo, hi);
}

static int domain_error(const eddy_grid *grid, const eddy_particles *p, size_t i, size_t bad,
                        eddy_error *err)
{
    const eddy_grid_layout *l = &grid->layout;
    const eddy_real pos[3] = {p->x[i], p->y[i], p->z[i]};
    const int d = l->dimensions;
    char where[160];
    if (d == 3)
        snprintf(where, sizeof where, "(%g, %g, %g)", (double)pos[0], (double)pos[1], (double)pos[2]);
    else
        snprintf(where, sizeof where, "(%g, %g)", (double)pos[0], (double)pos[1]);
    char box[256];
    int len = 0;
    for (int a = 0; a < d && len < (int)sizeof box; ++a)
        len += snprintf(box + len, sizeof box - (size_t)len, "%s%c in [%g, %g]%s", a ? ", " : "",
                        axis_name[a], (double)l->lo[a], (double)l->hi[a],
                        l->periodic[a] ? " (periodic)" : "");
    int finite = 1;
    for (int a = 0; a < d; ++a) finite &= isfinite(pos[a]) != 0;
    if (!finite)
        return eddy_error_set(err, EDDY_ERR_DOMAIN,
                              "particle id %" PRIu64 " has a non-finite position %s (%zu particle%s outside the "
                              "domain %s); the simulation has probably exploded: lower dt or stiffness",
                              p->id[i], where, bad, bad == 1 ? "" : "s", box);
    return eddy_error_set(err, EDDY_ERR_DOMAIN,
                          "particle id %" PRIu64 " at %s left the domain %s (%zu particle%s outside)",
                          p->id[i], where, box, bad, bad == 1 ? "" : "s");
}

/* The particle with the lowest id of those outside the domain (`nonfinite`: of those with a non-finite
 * coordinate), SIZE_MAX when none: the one a message names. The id, not the storage index, so that the
 * message does not depend on the particle order, which differs between thread counts' sorts of a
 * restart and between one process and several (host/session/decomp.c names the lowest id too). */
static size_t lowest_id_outside(const eddy_grid_layout *l, const eddy_particles *p, size_t n, int nonfinite)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < n; ++i) {
        const int hit = nonfinite ? !isfinite(p->x[i]) || !isfinite(p->y[i]) || !isfinite(p->z[i])
                                  : eddy_grid_outside_domain(l, p->x[i], p->y[i], p->z[i]);
        if (hit && (best == SIZE_MAX || p->id[i] < p->id[best])) best = i;
    }
    return best;
}

/* Fills particle_cell (sorted order) and the occupied cell list from the backend's ranges, checking
 * on the way that they are consistent prefix sums over n particles, so a faulty backend plugin is an
 * error instead of a write out of range. Reading the ranges costs no float work and gives exactly the
 * backend's cell assignment; the backend's own prefix sum already made the build O(cell_count). */
#define FILL_MAX_THREADS 64
static int fill_cells(eddy_grid *grid, size_t n)
{
    const size_t nc = grid->layout.cell_count;
    const uint32_t *cb = grid->cell_begin, *ce = grid->cell_end;
    uint32_t *pc = grid->particle_cell, *occ = grid->occupied;
    int threads = n >= 2 * GRID_PARALLEL_MIN ? omp_get_max_threads() : 1;
    if (threads > FILL_MAX_THREADS) threads = FILL_MAX_THREADS;
    size_t occupied[FILL_MAX_THREADS];
    int block_broken[FILL_MAX_THREADS];
    int broken = cb[0] != 0 || ce[nc - 1] != n;
#pragma omp parallel num_threads(threads)
    {
        const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        const size_t c0 = nc * t / nt, c1 = nc * (t + 1) / nt;
        size_t k = 0;
        int bad = 0;
        uint32_t prev = c0 > 0 ? ce[c0 - 1] : 0;
        for (size_t c = c0; c < c1; ++c) {
            const uint32_t b = cb[c], e = ce[c];
            if (b != prev || e < b || e > n) {
                bad = 1;
                break;
            }
            prev = e;
            for (uint32_t i = b; i < e; ++i) pc[i] = (uint32_t)c;
            k += e > b;
        }
        occupied[t] = k;
        block_broken[t] = bad;
#pragma omp barrier
        /* Occupied cells are written only when every block chained up, so their count is <= n. */
        size_t o = 0;
        int any = 0;
        for (size_t u = 0; u < nt; ++u) any |= block_broken[u];
        for (size_t u = 0; u < t; ++u) o += occupied[u];
        if (!any)
            for (size_t c = c0; c < c1; ++c)
                if (ce[c] > cb[c]) occ[o++] = (uint32_t)c;
        if (t == nt - 1) {
            grid->occupied_count = o;
            if (any) broken = 1;
        }
    }
    return broken;
}

/*
 * A plugin backend's sort held to grid.h's contract, after fill_cells took its ranges (particle_cell[k]
 * = the cell of sorted position k): perm[k] < n, the particle perm[k] in that cell by eddy_grid_cell_of,
 * and within a cell the indices ascending. Together these make perm a permutation (distinct values below
 * n, n of them) and the one stable sort by cell, so a plugin grid gives the built-in grid's state. A
 * backend that duplicated one particle and lost another ran on with exit status 0 until the hash or the
 * resume found two ids, and one that filed particles in the wrong cells gave wrong densities without a
 * word (a grid-plugin trial). O(n), in parallel, before the particles are moved: the first position that
 * breaks it (the lowest) is reported, SIZE_MAX when none does.
 */
static size_t first_unsorted(const eddy_grid *grid, const eddy_particles *p, const uint32_t *perm, size_t n)
{
    const eddy_grid_layout *l = &grid->layout;
    const uint32_t *pc = grid->particle_cell;
    const long long nn = (long long)n;
    long long first = nn;
#pragma omp parallel for schedule(static) reduction(min : first) if (n >= 2 * GRID_PARALLEL_MIN)
    for (long long k = 0; k < nn; ++k) {
        const uint32_t j = perm[k];
        const int bad = j >= n || eddy_grid_cell_of(l, p->x[j], p->y[j], p->z[j]) != pc[k] ||
                        (k > 0 && pc[k] == pc[k - 1] && j <= perm[k - 1]);
        if (bad && k < first) first = k;
    }
    return first < nn ? (size_t)first : SIZE_MAX;
}

/* The message of first_unsorted's position k: what the backend did there, against grid.h. */
static int unsorted_error(const eddy_grid *grid, const eddy_particles *p, const uint32_t *perm, size_t n, size_t k,
                          eddy_error *err)
{
    const uint32_t j = perm[k];
    if (j >= n)
        return eddy_error_set(err, EDDY_ERR_PLUGIN,
                              "grid build: the grid backend's sort puts particle %u at sorted position %zu, but there "
                              "are %zu particles (grid.h: perm[i] is the index of the particle that goes to "
                              "position i, each particle once)", j, k, n);
    const uint32_t cell = eddy_grid_cell_of(&grid->layout, p->x[j], p->y[j], p->z[j]);
    if (cell != grid->particle_cell[k])
        return eddy_error_set(err, EDDY_ERR_PLUGIN,
                              "grid build: the grid backend's sort files particle %u (id %llu, at %.9g, %.9g, %.9g) "
                              "in cell %u, but eddy_grid_cell_of puts it in cell %u (grid.h: a stable sort by "
                              "eddy_grid_cell_of; the core's queries and the solvers read the cells as it files them)",
                              j, (unsigned long long)p->id[j], (double)p->x[j], (double)p->y[j], (double)p->z[j],
                              grid->particle_cell[k], cell);
    if (j == perm[k - 1])
        return eddy_error_set(err, EDDY_ERR_PLUGIN,
                              "grid build: the grid backend's sort puts particle %u twice, at sorted positions %zu and "
                              "%zu (grid.h: perm holds each particle once)", j, k - 1, k);
    return eddy_error_set(err, EDDY_ERR_PLUGIN,
                          "grid build: the grid backend's sort is not stable: in cell %u it puts particle %u after "
                          "particle %u, at sorted positions %zu and %zu (grid.h: a stable sort keeps each cell's "
                          "particles in increasing index, each once)", cell, j, perm[k - 1], k - 1, k);
}

/* True when every coordinate is already inside the domain ([lo, hi) on periodic axes), the case of
 * almost every build: branch-free comparisons (NaN fails them) that vectorize, instead of the
 * per-particle wrap and policy logic. */
static int all_inside(const eddy_grid_layout *l, const eddy_particles *p, size_t n)
{
    const eddy_real *pos[3] = {p->x, p->y, p->z};
    const long long nn = (long long)n;
    int out = 0;
#pragma omp parallel reduction(| : out) if (n >= 2 * GRID_PARALLEL_MIN)
    for (int a = 0; a < l->dimensions; ++a) {
        const eddy_real *v = pos[a], lo = l->lo[a], hi = l->hi[a];
        if (l->periodic[a]) {
#pragma omp for schedule(static) nowait
            for (long long i = 0; i < nn; ++i) out |= !(v[i] >= lo) | !(v[i] < hi);
        } else {
#pragma omp for schedule(static) nowait
            for (long long i = 0; i < nn; ++i) out |= !(v[i] >= lo) | !(v[i] <= hi);
        }
    }
    return !out;
}

/* Whether every particle is still in the cell the last build sorted it into, at the same index. The
 * backend's result (a stable sort by cell, the ranges) and fill_cells' are functions of the sequence of
 * cells alone, and this sequence is the last build's sorted one, so the sort would be the identity and
 * every array the last build filled would come out as it is: the build has nothing left to do. Two
 * builds a step are the rule (the canonical order before the solver's step, the solver's own at its
 * start, with no position written in between), and in a splash the second was a third of the grid's
 * time (docs/performance.md, "The grid build of a developed flow"). Blocks end the scan at the first
 * particle that changed cells, the common case of the first build of a step. */
#define UNCHANGED_BLOCK 512
static int cells_unchanged(const eddy_grid *grid, const eddy_particles *p, size_t n)
{
    /* eddy_grid_cell_of's arithmetic, operation for operation, with the layout in locals and the
     * axes written out: a loop the compiler vectorizes (through the layout pointer it did not, and
     * the scan cost as much as the sort it saves). */
    const eddy_grid_layout *l = &grid->layout;
    const eddy_real lo0 = l->lo[0], lo1 = l->lo[1], lo2 = l->lo[2];
    const eddy_real s0 = l->inv_cell_size[0], s1 = l->inv_cell_size[1], s2 = l->inv_cell_size[2];
    const int32_t m0 = l->cells[0] - 1, m1 = l->cells[1] - 1, m2 = l->cells[2] - 1;
    const int32_t p0 = l->pad[0], p1 = l->pad[1], p2 = l->pad[2], d0 = l->dim[0], d1 = l->dim[1];
    const int three = l->dimensions == 3;
    const uint32_t *pc = grid->particle_cell;
    const eddy_real *x = p->x, *y = p->y, *z = p->z;
    const long long blocks = (long long)((n + UNCHANGED_BLOCK - 1) / UNCHANGED_BLOCK);
    int changed = 0;
#pragma omp parallel for schedule(static) reduction(| : changed) if (n >= 2 * GRID_PARALLEL_MIN)
    for (long long b = 0; b < blocks; ++b) {
        if (changed) continue; /* this thread found one: the rest of its blocks cannot matter */
        const size_t i0 = (size_t)b * UNCHANGED_BLOCK, i1 = i0 + UNCHANGED_BLOCK < n ? i0 + UNCHANGED_BLOCK : n;
        uint32_t diff = 0;
        for (size_t i = i0; i < i1; ++i) {
            int32_t ix = (int32_t)((x[i] - lo0) * s0), iy = (int32_t)((y[i] - lo1) * s1);
            ix = ix < 0 ? 0 : ix;
            ix = ix > m0 ? m0 : ix;
            iy = iy < 0 ? 0 : iy;
            iy = iy > m1 ? m1 : iy;
            int32_t iz = 0;
            if (three) {
                iz = (int32_t)((z[i] - lo2) * s2);
                iz = iz < 0 ? 0 : iz;
                iz = (iz > m2 ? m2 : iz) + p2;
            }
            diff |= (uint32_t)((ix + p0) + d0 * ((iy + p1) + d1 * iz)) ^ pc[i];
        }
        changed |= diff != 0;
    }
    return !changed;
}

/* After a failed build the ranges may describe an order that no longer holds (or be a faulty
 * backend's garbage): leave an empty grid, so queries and solvers read nothing out of range. */
static void invalidate(eddy_grid *grid)
{
    grid->particle_count = 0;
    grid->occupied_count = 0;
    memset(grid->cell_begin, 0, sizeof(uint32_t) * grid->layout.cell_count);
    memset(grid->cell_end, 0, sizeof(uint32_t) * grid->layout.cell_count);
}

/* ---------------------------------------------------------------------------------------------- */
/* Window (decomposed runs)                                                                       */

/* Slack a new window leaves beyond the particles' cells on each side of a bounded axis: a fixed few
 * cells plus an eighth of their extent. Particles move well under a cell a step (the CFL limit), so
 * a front re-lays the window out every few dozen steps at most, and a slab that grows by rebalancing
 * by a fraction of itself. */
#define WINDOW_SLACK_CELLS 4
#define WINDOW_SLACK_DIV 8

void eddy_grid_set_window(eddy_grid *grid, int on)
{
    if (!grid || !grid->impl) return;
    /* The built-in backend only: a plugin backend may have sized its state for the layout create()
     * saw (plugins/cuda_grid keeps device arrays of cell_count entries). Known by its sort, since the
     * registry hands out a copy of the built-in vtable. */
    grid->impl->window = on && grid->impl->backend->sort == eddy_cpu_grid_vtable.sort;
}

/* The interior cell of coordinate v on axis a of the full layout: eddy_grid_cell_of's arithmetic on
 * one axis, so it is that function's cell to the bit. It never decreases as v grows (a float
 * subtraction, a product with a positive factor and a truncation all keep order), so the cells of
 * the smallest and largest coordinates bound every particle's. */
static inline int32_t axis_cell(const eddy_grid_layout *f, int a, eddy_real v)
{
    int32_t i = (int32_t)((v - f->lo[a]) * f->inv_cell_size[a]);
    if (i < 0) i = 0;
    if (i >= f->cells[a]) i = f->cells[a] - 1;
    return i;
}

static int same_layout(const eddy_grid_layout *a, const eddy_grid_layout *b)
{
    for (int k = 0; k < 3; ++k)
        if (a->pad[k] != b->pad[k] || a->dim[k] != b->dim[k]) return 0;
    return a->cell_count == b->cell_count;
}

/* The layout the next sort uses: the full one without a window; with one, the current window while
 * it holds every particle and is at most twice the cells a fresh one would store, else a fresh window
 * over the cells they occupy with slack (only bounded axes; periodic ones keep their whole extent,
 * their wrap needs it).
 * Cell arrays are allocated at exactly the size needed, so a window that shrank gives memory back.
 * Returns -1 when out of memory (the grid is unchanged then). */
static int update_window(eddy_grid *grid, const eddy_particles *p, size_t n)
{
    struct eddy_grid_impl *im = grid->impl;
    const eddy_grid_layout *f = &im->full, *cur = &grid->layout;
    eddy_grid_layout want = *f;
    if (im->window) {
        /* No particle: nothing tells where the window belongs; keep it. */
        if (n == 0) return 0;
        const long long nn = (long long)n;
        const eddy_real *pos[3] = {p->x, p->y, p->z};
        int relayout = 0;
        uint64_t total = 1;
        for (int a = 0; a < f->dimensions; ++a) {
            if (f->periodic[a]) {
                total *= (uint64_t)f->dim[a];
                continue;
            }
            /* Every position is inside the domain here (the domain policy ran), so finite. */
            const eddy_real *v = pos[a];
            eddy_real mn = v[0], mx = v[0];
#pragma omp parallel for schedule(static) reduction(min : mn) reduction(max : mx) \
    if (n >= 2 * GRID_PARALLEL_MIN)
            for (long long i = 0; i < nn; ++i) {
                mn = v[i] < mn ? v[i] : mn;
                mx = v[i] > mx ? v[i] : mx;
            }
            const int32_t c0 = axis_cell(f, a, mn), c1 = axis_cell(f, a, mx);
            const int32_t extent = c1 - c0 + 1, slack = WINDOW_SLACK_CELLS + extent / WINDOW_SLACK_DIV;
            const int32_t first = 1 - cur->pad[a], last = first + cur->dim[a] - 3;
            if (c0 < first || c1 > last) relayout = 1;
            const int32_t lo = c0 - slack > 0 ? c0 - slack : 0;
            const int32_t hi = c1 + slack < f->cells[a] - 1 ? c1 + slack : f->cells[a] - 1;
            /* Global interior cell i is stored at i + pad: the window's first cell lands on 1, after
             * one empty ghost layer, as cell 0 does in the full layout. */
            want.pad[a] = 1 - lo;
            want.dim[a] = hi - lo + 3;
            total *= (uint64_t)want.dim[a];
        }
        want.cell_count = (size_t)total; /* at most the full layout's, which fits in 2^31 */
        /* The first window replaces the full layout; later ones replace a window that no longer holds
         * the particles or stores more than twice the cells a fresh one would. */
        if (!relayout && im->windowed && 2 * want.cell_count >= cur->cell_count) return 0;
    }
    if (same_layout(&want, cur)) {
        im->windowed = im->window;
        return 0;
    }
    if (want.cell_count != im->cell_capacity) {
        uint32_t *b = malloc(sizeof(uint32_t) * want.cell_count), *e = malloc(sizeof(uint32_t) * want.cell_count);
        if (!b || !e) {
            free(b);
            free(e);
            return -1;
        }
        free(grid->cell_begin);
        free(grid->cell_end);
        grid->cell_begin = b;
        grid->cell_end = e;
        im->cell_capacity = want.cell_count;
    }
    /* The sort below writes every entry of both arrays. */
    grid->layout = want;
    im->windowed = im->window;
    return 0;
}

int eddy_grid_build(eddy_grid *grid, eddy_particles *p, eddy_error *err)
{
    if (!grid || !grid->impl || !p)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "grid build: grid is not initialized");
    const eddy_grid_layout *l = &grid->layout;
    struct eddy_grid_impl *im = grid->impl;
    grid->nbr_offset = NULL;
    grid->nbr_index = NULL;
    grid->nbr_radius = 0.0f;
    if (p->dimensions != l->dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "grid build: %dD particles in a %dD grid",
                              p->dimensions, l->dimensions);
    size_t n = p->count;
    if (n > UINT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "grid build: %zu particles exceed 2^32", n);
    if (ensure_particle_buffers(grid, n))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "grid build: out of memory for %zu particles", n);

    /* Wrap periodic axes and count escaped particles (the message names the lowest id of them). */
    eddy_real *pos[3] = {p->x, p->y, p->z};
    const long long nn = (long long)n;
    size_t bad = 0;
    if (!all_inside(l, p, n)) {
#pragma omp parallel for schedule(static) reduction(+ : bad) \
    if (n >= 2 * GRID_PARALLEL_MIN)
        for (long long i = 0; i < nn; ++i) {
            for (int a = 0; a < l->dimensions; ++a)
                if (l->periodic[a] && isfinite(pos[a][i]))
                    pos[a][i] = wrap_coordinate(pos[a][i], l->lo[a], l->hi[a]);
            if (eddy_grid_outside_domain(l, pos[0][i], pos[1][i], pos[2][i])) ++bad;
        }
    }
    int rc;
    if (bad) {
        if (grid->policy == EDDY_DOMAIN_ERROR) {
            invalidate(grid);
            return domain_error(grid, p, lowest_id_outside(l, p, n, 0), bad, err);
        }
        /* Removal is for particles that left the domain, not for broken ones: a non-finite position
         * (a solver that blew up and rebuilt the grid within its step) is an error under any policy,
         * or the particle would vanish without a word. */
        const size_t broken = lowest_id_outside(l, p, n, 1);
        if (broken != SIZE_MAX) {
            invalidate(grid);
            return domain_error(grid, p, broken, bad, err);
        }
        size_t k = 0;
        for (size_t i = 0; i < n; ++i)
            if (!eddy_grid_outside_domain(l, p->x[i], p->y[i], p->z[i])) im->perm[k++] = (uint32_t)i;
        rc = eddy_particles_gather(p, im->perm, k, err);
        if (rc) {
            invalidate(grid);
            return eddy_error_prefix(err, "grid build: removing %zu escaped particles: ", bad);
        }
        grid->removed += bad;
        n = k;
    }

    const eddy_grid_layout before = grid->layout;
    if (update_window(grid, p, n)) {
        invalidate(grid);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "grid build: out of memory for the cells of %zu particles",
                              n);
    }
    /* The built-in backend only: a plugin's sort may do more than sort (plugins/cuda_grid keeps device
     * copies of what it sorted). particle_count is 0 after a failed build (invalidate). */
    if (n > 0 && n == grid->particle_count && im->backend->sort == eddy_cpu_grid_vtable.sort &&
        same_layout(&before, l) && cells_unchanged(grid, p, n))
        return EDDY_OK;
    rc = im->backend->sort(im->state, l, n, p->x, p->y, p->z, im->perm, grid->cell_begin, grid->cell_end,
                           err);
    if (rc) {
        invalidate(grid);
        return eddy_error_prefix(err, "grid build: ");
    }

    /* The ranges first (they read no particle), then a plugin's sort against them, before any particle
     * moves: a faulty backend is an error, not a particle set with one lost and one twice. */
    if (fill_cells(grid, n)) {
        invalidate(grid);
        return eddy_error_set(err, EDDY_ERR_PLUGIN,
                              "grid build: the grid backend's cell ranges are not prefix sums over %zu particles "
                              "(grid.h: cell_begin[0] = 0, cell_begin[c] = cell_end[c - 1] in increasing cell index, "
                              "cell_end[last] = n)", n);
    }
    const uint32_t *perm = im->perm;
    if (im->backend->sort != eddy_cpu_grid_vtable.sort) {
        const size_t k = first_unsorted(grid, p, perm, n);
        if (k != SIZE_MAX) {
            rc = unsorted_error(grid, p, perm, n, k, err);
            invalidate(grid);
            return rc;
        }
    }
    /* Particles that stayed in their cells leave the permutation the identity; moving every field
     * for nothing would dominate the build then. */
    int moved = 0;
    const long long nk = (long long)n;
#pragma omp parallel for schedule(static) reduction(| : moved) if (n >= 2 * GRID_PARALLEL_MIN)
    for (long long i = 0; i < nk; ++i) moved |= perm[i] != (uint32_t)i;
    if (moved) {
        rc = eddy_particles_gather(p, perm, n, err);
        if (rc) {
            invalidate(grid);
            return eddy_error_prefix(err, "grid build: ");
        }
    }
    grid->particle_count = n;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Queries                                                                                        */

int eddy_grid_cell_ranges(const eddy_grid *grid, uint32_t cell, eddy_range out[EDDY_MAX_CELL_RANGES])
{
    const eddy_grid_layout *l = &grid->layout;
    if (!grid->cell_begin || cell >= l->cell_count) return 0;
    int32_t c[3];
    eddy_grid_cell_coords(l, cell, c);
    int n = 0;
    for (int row = 0, rows = eddy_grid_bar_rows(l); row < rows; ++row) {
        eddy_range bar[2];
        for (int k = 0, pieces = eddy_grid_bar_row(l, c, row, bar); k < pieces; ++k) {
            const uint32_t b = grid->cell_begin[bar[k].begin], e = grid->cell_end[bar[k].end - 1];
            if (b >= e) continue; /* empty ranges are left out */
            out[n].begin = b;
            out[n].end = e;
            for (int a = 0; a < 3; ++a) out[n].shift[a] = bar[k].shift[a];
            ++n;
        }
    }
    return n;
}

/* Ranges of one cell ordered by begin. They are disjoint (distinct cells, at least 3 per periodic
 * axis), so scanning them in this order yields neighbor indices already ascending. */
static int sorted_ranges(const eddy_grid *grid, uint32_t cell, eddy_range r[EDDY_MAX_CELL_RANGES])
{
    int n = eddy_grid_cell_ranges(grid, cell, r);
    for (int i = 1; i < n; ++i) {
        eddy_range v = r[i];
        int j = i - 1;
        while (j >= 0 && r[j].begin > v.begin) {
            r[j + 1] = r[j];
            --j;
        }
        r[j + 1] = v;
    }
    return n;
}

/* (xj - xi) + shift, the same operations as eddy_grid_min_image on (xj - xi), so lists agree bit for
 * bit with a minimum-image brute force. */
static inline uint32_t count_neighbors(const eddy_particles *p, int dims, uint32_t i, const eddy_range *r,
                                       int nr, eddy_real r2)
{
    const eddy_real *x = p->x, *y = p->y, *z = p->z;
    const eddy_real xi = x[i], yi = y[i], zi = z[i];
    uint32_t count = 0;
    for (int k = 0; k < nr; ++k) {
        const eddy_real sx = r[k].shift[0], sy = r[k].shift[1], sz = r[k].shift[2];
        if (dims == 3) {
            for (uint32_t j = r[k].begin; j < r[k].end; ++j) {
                eddy_real dx = (x[j] - xi) + sx, dy = (y[j] - yi) + sy, dz = (z[j] - zi) + sz;
                count += dx * dx + dy * dy + dz * dz < r2;
            }
        } else {
            for (uint32_t j = r[k].begin; j < r[k].end; ++j) {
                eddy_real dx = (x[j] - xi) + sx, dy = (y[j] - yi) + sy;
                count += dx * dx + dy * dy < r2;
            }
        }
    }
    return count - 1; /* itself: distance 0 in its own cell, unshifted */
}

/* Two stages per block of candidates: the distance tests write a hit flag per candidate in a loop
 * the compiler vectorizes like the count pass, then a branch-free scalar loop compacts the hits (a
 * conditional store would mispredict on most candidates, the hit pattern being close to random). */
#define FILL_BLOCK 64
#define FILL_BUFFER 256
static inline void fill_neighbors(const eddy_particles *p, int dims, uint32_t i, const eddy_range *r, int nr,
                                  eddy_real r2, uint32_t *out)
{
    const eddy_real *x = p->x, *y = p->y, *z = p->z;
    const eddy_real xi = x[i], yi = y[i], zi = z[i];
    uint32_t buf[FILL_BUFFER];
    uint32_t hit[FILL_BLOCK];
    uint32_t k = 0;
    for (int q = 0; q < nr; ++q) {
        const eddy_real sx = r[q].shift[0], sy = r[q].shift[1], sz = r[q].shift[2];
        for (uint32_t j0 = r[q].begin; j0 < r[q].end; j0 += FILL_BLOCK) {
            const uint32_t len = r[q].end - j0 < FILL_BLOCK ? r[q].end - j0 : FILL_BLOCK;
            const eddy_real *xj = x + j0, *yj = y + j0, *zj = z + j0;
            if (dims == 3) {
                for (uint32_t t = 0; t < len; ++t) {
                    eddy_real dx = (xj[t] - xi) + sx, dy = (yj[t] - yi) + sy, dz = (zj[t] - zi) + sz;
                    hit[t] = dx * dx + dy * dy + dz * dz < r2;
                }
            } else {
                for (uint32_t t = 0; t < len; ++t) {
                    eddy_real dx = (xj[t] - xi) + sx, dy = (yj[t] - yi) + sy;
                    hit[t] = dx * dx + dy * dy < r2;
                }
            }
            if (i - j0 < len) hit[i - j0] = 0; /* itself */
            if (k + FILL_BLOCK > FILL_BUFFER) {
                memcpy(out, buf, sizeof buf[0] * k);
                out += k;
                k = 0;
            }
            for (uint32_t t = 0; t < len; ++t) {
                buf[k] = j0 + t;
                k += hit[t];
            }
        }
    }
    memcpy(out, buf, sizeof buf[0] * k);
}

static eddy_real min_cell_size(const eddy_grid_layout *l)
{
    eddy_real m = l->cell_size[0];
    for (int a = 1; a < l->dimensions; ++a)
        if (l->cell_size[a] < m) m = l->cell_size[a];
    return m;
}

static int check_query(const eddy_grid *grid, const eddy_particles *p, eddy_real radius, eddy_error *err)
{
    if (!grid || !grid->impl || !p)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "neighbor lists: grid is not initialized");
    eddy_real cs = min_cell_size(&grid->layout);
    if (!(radius > 0.0f) || !(radius <= cs))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "neighbor lists: radius %g must be positive and at most the cell size %g",
                              (double)radius, (double)cs);
    if (p->count != grid->particle_count || p->dimensions != grid->layout.dimensions)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "neighbor lists: the grid holds %zu particles but the set has %zu; build the "
                              "grid first",
                              grid->particle_count, p->count);
    return EDDY_OK;
}

int eddy_grid_build_neighbor_lists(eddy_grid *grid, const eddy_particles *p, eddy_real radius, eddy_error *err)
{
    int rc = check_query(grid, p, radius, err);
    if (rc) return rc;
    struct eddy_grid_impl *im = grid->impl;
    const size_t n = grid->particle_count;
    grid->nbr_offset = NULL;
    grid->nbr_index = NULL;
    grid->nbr_radius = 0.0f;
    if (grow_u32(&im->offset, &im->offset_capacity, n + 1))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "neighbor lists: out of memory for %zu particles",
                              n);
    uint32_t *off = im->offset;
    const int dims = grid->layout.dimensions;
    const eddy_real r2 = radius * radius;
    const long long nocc = (long long)grid->occupied_count;
    const uint32_t *occ = grid->occupied, *cb = grid->cell_begin, *ce = grid->cell_end;

    /* Count pass: each particle's count lands in its own slot, so the thread schedule cannot matter. */
#pragma omp parallel for schedule(dynamic, 32) if (n >= GRID_PARALLEL_MIN)
    for (long long k = 0; k < nocc; ++k) {
        eddy_range r[EDDY_MAX_CELL_RANGES];
        uint32_t c = occ[k];
        int nr = sorted_ranges(grid, c, r);
        if (dims == 3)
            for (uint32_t i = cb[c]; i < ce[c]; ++i) off[i + 1] = count_neighbors(p, 3, i, r, nr, r2);
        else
            for (uint32_t i = cb[c]; i < ce[c]; ++i) off[i + 1] = count_neighbors(p, 2, i, r, nr, r2);
    }
    off[0] = 0;
    uint64_t total = 0;
    for (size_t i = 1; i <= n; ++i) {
        total += off[i];
        if (total > UINT32_MAX) break;
        off[i] = (uint32_t)total;
    }
    if (total > UINT32_MAX)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "neighbor lists: more than 2^32 neighbor entries at radius %g", (double)radius);
    if (grow_u32(&im->index, &im->index_capacity, total ? (size_t)total : 1))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "neighbor lists: out of memory for %llu entries",
                              (unsigned long long)total);
    uint32_t *idx = im->index;
#pragma omp parallel for schedule(dynamic, 32) if (n >= GRID_PARALLEL_MIN)
    for (long long k = 0; k < nocc; ++k) {
        eddy_range r[EDDY_MAX_CELL_RANGES];
        uint32_t c = occ[k];
        int nr = sorted_ranges(grid, c, r);
        if (dims == 3)
            for (uint32_t i = cb[c]; i < ce[c]; ++i) fill_neighbors(p, 3, i, r, nr, r2, idx + off[i]);
        else
            for (uint32_t i = cb[c]; i < ce[c]; ++i) fill_neighbors(p, 2, i, r, nr, r2, idx + off[i]);
    }
    grid->nbr_offset = off;
    grid->nbr_index = idx;
    grid->nbr_radius = radius;
    return EDDY_OK;
}

double eddy_grid_mean_neighbors(const eddy_grid *grid, const eddy_particles *p, eddy_real radius)
{
    if (check_query(grid, p, radius, NULL)) return NAN;
    const size_t n = grid->particle_count;
    if (n == 0) return 0.0;
    if (grid->nbr_offset && grid->nbr_radius == radius) return (double)grid->nbr_offset[n] / (double)n;
    const int dims = grid->layout.dimensions;
    const eddy_real r2 = radius * radius;
    const long long nocc = (long long)grid->occupied_count;
    const uint32_t *occ = grid->occupied, *cb = grid->cell_begin, *ce = grid->cell_end;
    unsigned long long total = 0;
#pragma omp parallel for schedule(dynamic, 32) reduction(+ : total) if (n >= GRID_PARALLEL_MIN)
    for (long long k = 0; k < nocc; ++k) {
        eddy_range r[EDDY_MAX_CELL_RANGES];
        uint32_t c = occ[k];
        int nr = eddy_grid_cell_ranges(grid, c, r);
        for (uint32_t i = cb[c]; i < ce[c]; ++i) total += count_neighbors(p, dims, i, r, nr, r2);
    }
    return (double)total / (double)n;
}
