/*
 * eddy/grid.h — the uniform neighbor grid.
 *
 * Cells have (at least) the smoothing radius h as edge length, so every neighbor of a particle lies in
 * its own cell or one of the 26 (8 in 2D) around it. Building the grid sorts the particles by cell with
 * an O(N) stable counting sort and permutes every registered field (eddy_particles_gather), so that
 * particles close in space are close in memory.
 *
 * Layout: cells are numbered with x fastest, cell = ix + dim[0] * (iy + dim[1] * iz) (the Bullet-Fluids
 * hash, Bullet-Fluids reference (2014) eq. 13), so the three cells along x around a cell are contiguous
 * in particle order and the 27 neighbor cells are 9 "3-cell bars" (3 bars in 2D, Bullet-Fluids reference
 * (2014) §4.3.1). A non-periodic axis gets one empty ghost layer on each side so bars never leave the
 * array; a periodic axis wraps instead, and a bar that wraps is split into two ranges that carry the
 * position shift of the periodic image.
 *
 * Window (decomposed runs): a process of an MPI run holds one slab of the particles, so its grid stores
 * only the cells they occupy on each bounded axis, with slack, plus one empty ghost layer each side
 * (a "window"), instead of the whole domain's cells (memory per process in proportion to its own
 * particles; docs/mpi.md). The window is the full grid's cells shifted by a whole number of cells:
 * lo, hi, cells, cell_size and inv_cell_size stay the whole domain's, a position's cell is computed
 * from the global lo exactly as on one process, and only pad, dim and cell_count describe the stored
 * part. Cells keep their order (x fastest), so the sort, the cell ranges and every sum over them are
 * the same as on the full grid. Periodic axes are never windowed; one process, or a grid backend other
 * than the built-in "cpu", always has the full layout. The window moves only at a build (when the
 * particles leave it, or it stores more than twice the cells a fresh one would): cell indices of one
 * build are not comparable with another's.
 *
 * The domain is bounded: a particle outside it (an explosion, a leak through a wall) is handled as the
 * scene chose (eddy_domain_policy) when the grid is built — never read or written out of range.
 *
 * Threads: build functions are called from one thread and parallelize inside with OpenMP. The query
 * functions are pure and may be called from any number of threads.
 */
#ifndef EDDY_GRID_H
#define EDDY_GRID_H

#include <math.h>

#include "defs.h"
#include "error.h"
#include "host.h"
#include "params.h"
#include "particles.h"

EDDY_BEGIN_DECLS

/* What happens to a particle found outside the domain when the grid is built. */
typedef enum eddy_domain_policy {
    EDDY_DOMAIN_ERROR = 0, /* fail with EDDY_ERR_DOMAIN naming the particle id and position */
    EDDY_DOMAIN_REMOVE = 1 /* delete the particle (eddy_grid.removed counts them); a particle with a
                            * non-finite position is still an EDDY_ERR_DOMAIN error, never removed */
} eddy_domain_policy;

/* Geometry of the grid. Fill with eddy_grid_layout_init(); backends receive it read-only. */
typedef struct eddy_grid_layout {
    int dimensions;       /* 2 or 3 */
    int periodic[3];      /* non-zero: the axis wraps with period (hi - lo) */
    eddy_real lo[3], hi[3];   /* domain bounds, simulation units */
    eddy_real cell_size[3];   /* >= h; equal to h on non-periodic axes, L / floor(L / h) on periodic ones */
    eddy_real inv_cell_size[3];
    int32_t cells[3];     /* interior cells per axis over the whole domain (1 for z in 2D) */
    /* Stored index of interior cell i on an axis: i + pad. Full layout: pad 1 on bounded axes (one
     * ghost layer), 0 on periodic/unused ones. A window storing interior cells first..last of a
     * bounded axis has pad = 1 - first (zero or negative) and dim = last - first + 3. */
    int32_t pad[3];
    int32_t dim[3];       /* stored cells per axis: cells + 2 * pad in the full layout */
    size_t cell_count;    /* dim[0] * dim[1] * dim[2] */
} eddy_grid_layout;

/*
 * Computes the full layout (no window) for a domain [lo, hi] and cell size h, simulation units
 * (`periodic` may be NULL: no axis wraps; in 2D the z entries are not checked). Needs dimensions 2 or
 * 3, h > 0 and finite, finite lo < hi on each used axis; a periodic axis needs at least 3 cells
 * (L >= 3h); the total cell count must fit in 2^31. Errors (EDDY_ERR_INVALID_ARGUMENT) name the axis
 * and the sizes; *layout is zeroed then (a NULL layout, lo or hi is EDDY_ERR_INVALID_ARGUMENT too).
 * Pure: [any thread].
 */
EDDY_API int eddy_grid_layout_init(eddy_grid_layout *layout, int dimensions, const eddy_real lo[3],
                                   const eddy_real hi[3], const int periodic[3], eddy_real h, eddy_error *err);

/*
 * A coordinate v of a periodic axis [lo, hi) wrapped into it (sim units): v itself when inside,
 * otherwise lo + ((v - lo) mod (hi - lo)) in double, rounded to eddy_real; a value a hair below lo,
 * which rounds up to hi, is the same point as lo and maps to lo. The grid build wraps with it
 * (eddy_grid_build) and so does a GPU step that wraps on the device (EDDY_HD: the same inline source,
 * defs.h), so both put a particle at the same float. Pure; [any thread].
 */
static inline EDDY_HD eddy_real eddy_grid_wrap_coordinate(eddy_real v, eddy_real lo, eddy_real hi)
{
    if (v >= lo && v < hi) return v;
    const double L = (double)(hi - lo);
    double t = fmod((double)v - (double)lo, L);
    if (t < 0.0) t += L;
    eddy_real r = (eddy_real)((double)lo + t);
    if (!(r < hi) || r < lo) r = lo;
    return r;
}

/* Cell of a position already inside the domain (wrapped on periodic axes). On a windowed grid the
 * result is a stored cell for every particle of the last build and any position whose cell is stored
 * (interior cell i on each axis with 1 <= i + pad <= dim - 2); for positions elsewhere it is not.
 * Plugins built against older headers inline this same formula on the same fields, so they get the
 * same cells. What no plugin may assume any longer: pad == 1 and dim == cells + 2 on a bounded axis
 * (the full layout of eddy_grid_layout_init has them; the grid's own layout may not). EDDY_HD: the
 * CUDA grid's sort key is this function compiled by nvcc, so the device sorts by the CPU's cells.
 * (p - lo) * inv_cell_size is a subtraction then a multiplication, which no compiler contracts into
 * an FMA, so host and device round it alike. */
static inline EDDY_HD uint32_t eddy_grid_cell_of(const eddy_grid_layout *l, eddy_real x, eddy_real y, eddy_real z)
{
    int32_t c[3];
    const eddy_real p[3] = {x, y, z};
    for (int a = 0; a < 3; ++a) {
        if (a >= l->dimensions) { c[a] = 0; continue; }
        int32_t i = (int32_t)((p[a] - l->lo[a]) * l->inv_cell_size[a]);
        if (i < 0) i = 0;
        if (i >= l->cells[a]) i = l->cells[a] - 1;
        c[a] = i + l->pad[a];
    }
    return (uint32_t)(c[0] + l->dim[0] * (c[1] + l->dim[1] * c[2]));
}

/* Non-zero when (x, y, z) is outside the domain as the grid build's out-of-domain policy sees it: a
 * non-finite coordinate, or one beyond [lo, hi] on a bounded axis (periodic axes wrap, so nothing is
 * outside along them). Pure; [any thread]. */
static inline EDDY_HD int eddy_grid_outside_domain(const eddy_grid_layout *l, eddy_real x, eddy_real y, eddy_real z)
{
    const eddy_real p[3] = {x, y, z};
    for (int a = 0; a < l->dimensions; ++a) {
        if (!isfinite(p[a])) return 1;
        if (!l->periodic[a] && !(p[a] >= l->lo[a] && p[a] <= l->hi[a])) return 1;
    }
    return 0;
}

/* Minimum-image difference on periodic axes: shifts (dx, dy, dz) by whole periods into [-L/2, L/2]
 * (one period at most: for differences of positions inside the domain). Pure; [any thread]. */
static inline EDDY_HD void eddy_grid_min_image(const eddy_grid_layout *l, eddy_real *dx, eddy_real *dy, eddy_real *dz)
{
    eddy_real *d[3] = {dx, dy, dz};
    for (int a = 0; a < l->dimensions; ++a) {
        if (!l->periodic[a]) continue;
        eddy_real L = l->hi[a] - l->lo[a];
        if (*d[a] > 0.5f * L) *d[a] -= L;
        else if (*d[a] < -0.5f * L) *d[a] += L;
    }
}

/* A contiguous run of candidate neighbors [begin, end), whose positions must be shifted by `shift`
 * (non-zero only for periodic images) before computing distances. */
typedef struct eddy_range {
    uint32_t begin, end;
    eddy_real shift[3];
} eddy_range;

/* Upper bound on the ranges a cell can have: 9 bars, each split in two where x wraps. */
#define EDDY_MAX_CELL_RANGES 18

/*
 * The 3-cell bars around a cell as runs of stored cells, for a walk that reads its own cell offsets
 * (eddy_grid_cell_ranges turns them into particle ranges with the grid's cell_begin and cell_end; a
 * GPU step reads its device offsets). EDDY_HD, so the host and a device walk the same bars in the same
 * order: rows by z, then y (dz, dy = -1, 0, 1; dz = 0 only in 2D), each row one bar of consecutive
 * cells, or two pieces where x wraps periodically (the image beyond the edge first when the cell is on
 * the low edge, last when it is on the high edge). A piece is an eddy_range of cells: stored cells
 * begin .. end - 1, consecutive along x, whose particles are shifted by `shift` (the periodic image,
 * sim units). Pure; [any thread].
 */
/* Bar rows of a cell: 9 in 3D, 3 in 2D. */
static inline EDDY_HD int eddy_grid_bar_rows(const eddy_grid_layout *l) { return l->dimensions == 3 ? 9 : 3; }

/* The stored coordinates ix, iy, iz of a stored cell (x fastest). */
static inline EDDY_HD void eddy_grid_cell_coords(const eddy_grid_layout *l, uint32_t cell, int32_t c[3])
{
    const uint32_t d0 = (uint32_t)l->dim[0], d1 = (uint32_t)l->dim[1];
    c[0] = (int32_t)(cell % d0);
    c[1] = (int32_t)((cell / d0) % d1);
    c[2] = (int32_t)(cell / (d0 * d1));
}

/* A neighbour coordinate i of axis a as a stored index (*out), with the periodic image shift (*shift,
 * sim units); 0 when it is off a bounded grid (only beside a ghost cell). */
static inline EDDY_HD int eddy_grid_neighbor_coord(const eddy_grid_layout *l, int a, int32_t i, int32_t *out,
                                                   eddy_real *shift)
{
    *shift = 0.0f;
    if (l->periodic[a]) {
        if (i < 0) {
            i += l->cells[a];
            *shift = -(l->hi[a] - l->lo[a]);
        } else if (i >= l->cells[a]) {
            i -= l->cells[a];
            *shift = l->hi[a] - l->lo[a];
        }
    } else if (i < 0 || i >= l->dim[a]) {
        return 0;
    }
    *out = i;
    return 1;
}

/* Row `row` (0 .. eddy_grid_bar_rows - 1) of the bars around the cell at stored coordinates c
 * (eddy_grid_cell_coords): its pieces in out[0], out[1] as runs of cells, and how many (0 off a
 * bounded grid, 1, or 2 where x wraps). */
static inline EDDY_HD int eddy_grid_bar_row(const eddy_grid_layout *l, const int32_t c[3], int row,
                                            eddy_range out[2])
{
    const int dz = l->dimensions == 3 ? row / 3 - 1 : 0, dy = (l->dimensions == 3 ? row % 3 : row) - 1;
    int32_t y, z;
    eddy_real sy, sz;
    if (!eddy_grid_neighbor_coord(l, 2, c[2] + dz, &z, &sz) || !eddy_grid_neighbor_coord(l, 1, c[1] + dy, &y, &sy))
        return 0;
    const int32_t d0 = l->dim[0], ix = c[0];
    const uint32_t base = (uint32_t)d0 * ((uint32_t)y + (uint32_t)l->dim[1] * (uint32_t)z);
    for (int k = 0; k < 2; ++k) {
        out[k].shift[0] = 0.0f;
        out[k].shift[1] = sy;
        out[k].shift[2] = sz;
    }
    if (!l->periodic[0]) {
        out[0].begin = base + (uint32_t)(ix > 0 ? ix - 1 : 0);
        out[0].end = base + (uint32_t)(ix + 1 < d0 ? ix + 1 : d0 - 1) + 1;
        return 1;
    }
    const int32_t cx = l->cells[0]; /* >= 3, so the two pieces never overlap */
    const eddy_real L = l->hi[0] - l->lo[0];
    if (ix == 0) {
        out[0].begin = base + (uint32_t)(cx - 1);
        out[0].end = base + (uint32_t)cx;
        out[0].shift[0] = -L;
        out[1].begin = base;
        out[1].end = base + 2;
        return 2;
    }
    if (ix == cx - 1) {
        out[0].begin = base + (uint32_t)(ix - 1);
        out[0].end = base + (uint32_t)ix + 1;
        out[1].begin = base;
        out[1].end = base + 1;
        out[1].shift[0] = L;
        return 2;
    }
    out[0].begin = base + (uint32_t)(ix - 1);
    out[0].end = base + (uint32_t)(ix + 1) + 1;
    return 1;
}

/*
 * The built grid. Owned by the world (world.h); solvers read it after eddy_world_build_grid(). Its
 * layout (and with it cell_count and the cell arrays) may change at every build on a decomposed run
 * (the window above): read it after the build, never keep a copy across builds.
 * cell_begin/cell_end are exclusive prefix sums, defined for every stored cell including empty and
 * ghost cells, so that [cell_begin[c], cell_end[c + 2]) is the 3-cell bar starting at c.
 */
typedef struct eddy_grid {
    eddy_grid_layout layout;
    uint32_t *cell_begin;     /* [layout.cell_count] */
    uint32_t *cell_end;       /* [layout.cell_count] */
    uint32_t *particle_cell;  /* [particle_count] cell of each particle, in sorted order */
    uint32_t *occupied;       /* [occupied_count] cells that hold particles, increasing */
    size_t occupied_count;
    size_t particle_count;    /* particles sorted by the last build */
    size_t removed;           /* particles removed by EDDY_DOMAIN_REMOVE, cumulative */
    eddy_domain_policy policy;
    /* Optional CSR neighbor lists (eddy_grid_build_neighbor_lists): the neighbors of particle i are
     * nbr_index[nbr_offset[i] .. nbr_offset[i+1]), sorted by index, i itself excluded. Owned by the
     * grid; NULL until built and again after every grid build. */
    uint32_t *nbr_offset;     /* [particle_count + 1], NULL until built */
    uint32_t *nbr_index;
    eddy_real nbr_radius;         /* radius the lists were built for; 0 when not built */
    struct eddy_grid_impl *impl; /* private */
} eddy_grid;

/*
 * Fills `out` with the candidate-neighbor ranges of cell `cell` (its own bar and the bars around it);
 * returns how many (at most EDDY_MAX_CELL_RANGES). `cell` is a stored cell index of the last build's
 * layout, [0, layout.cell_count): an entry of grid->occupied or grid->particle_cell, typically; a
 * ghost cell's ranges stop at the grid's edge. 0 for a cell past the count or a grid without cell
 * arrays (before eddy_grid_init); before the first build every range is empty. Empty ranges are
 * omitted. The order depends only on the cell and the layout (bars by z, then y offset; a bar split by
 * a periodic wrap gives its pieces in a fixed order), never on threads, so a gather loop over them
 * visits neighbors in a fixed order. It is not sorted by particle index when a periodic axis wraps.
 * `grid` and `out` must not be NULL (the grid may be zeroed or freed: 0). `shift` is in sim units.
 * Pure: [any thread], while no build runs on the grid.
 */
EDDY_API int eddy_grid_cell_ranges(const eddy_grid *grid, uint32_t cell, eddy_range out[EDDY_MAX_CELL_RANGES]);

/*
 * Builds CSR neighbor lists of every particle (halo copies too) strictly within `radius` (> 0 and <=
 * the smallest cell size) from the current grid, into storage the grid owns (nbr_offset, nbr_index).
 * Call after the grid build, with the set it sorted; invalidated by the next build. Errors: a NULL or
 * uninitialized grid, a NULL p, a bad radius or a grid not built for p (count or dimensions differ) are
 * EDDY_ERR_INVALID_ARGUMENT and leave lists built earlier as they were; more than 2^32 entries
 * (EDDY_ERR_INVALID_ARGUMENT) and EDDY_ERR_OUT_OF_MEMORY leave the lists NULL. Deterministic for any
 * thread count. OpenMP-parallel; a build function (one thread).
 */
EDDY_API int eddy_grid_build_neighbor_lists(eddy_grid *grid, const eddy_particles *p, eddy_real radius,
                                            eddy_error *err);

/* Mean number of neighbors within `radius` per particle (self excluded), for statistics and tests; 0
 * for no particle. NAN when grid or p is NULL, the grid is not built for `p` or `radius` is not in
 * (0, smallest cell size]. Reuses the neighbor lists when they were built for this radius. A build
 * function (OpenMP-parallel, one thread). */
EDDY_API double eddy_grid_mean_neighbors(const eddy_grid *grid, const eddy_particles *p, eddy_real radius);

/*
 * A grid backend sorts particles into cells. The core's CPU backend is built in (id "cpu");
 * plugins/cuda_grid provides another (id "cuda"). Both must produce the same permutation and ranges
 * for the same input: a stable sort by cell index.
 */
/* What a backend's create() receives. Owned by the host; valid during create() only (copy what you
 * keep; `host` itself stays valid for the backend's lifetime). */
typedef struct eddy_grid_setup {
    size_t size;                      /* sizeof(eddy_grid_setup) as compiled by the host */
    const eddy_grid_layout *layout;   /* the grid's layout (never NULL); copy it, do not keep it */
    const eddy_param_values *params;  /* the component's validated parameters (never NULL) */
    const eddy_host *host;            /* services (host.h); never NULL */
} eddy_grid_setup;

typedef struct eddy_grid_backend_vtable {
    size_t size; /* sizeof(eddy_grid_backend_vtable) as compiled by the provider */
    /* Creates backend state for a layout. On success *state is set (NULL for none) and owned by the
     * backend until destroy(); a success that leaves it unset is refused (EDDY_ERR_PLUGIN).
     * [main thread] */
    int (*create)(const eddy_grid_setup *setup, void **state, eddy_error *err);
    /*
     * Given n positions inside the domain (wrapped on periodic axes; n may be 0), writes perm[i] =
     * index of the particle that goes to sorted position i (a stable sort by cell, eddy_grid_cell_of),
     * and cell_begin/cell_end for every stored cell (layout->cell_count entries each). Must not keep
     * the pointers after returning. On error it fills err and returns a negative status; the grid is
     * left empty. The core checks a plugin backend's whole result after every sort, O(n), before any
     * particle moves: ranges that are prefix sums over n particles in increasing cell order, perm a
     * permutation, each particle in the cell eddy_grid_cell_of gives it, indices ascending within a
     * cell; anything else fails the build with EDDY_ERR_PLUGIN saying what (docs/plugin-guide.md,
     * "Grids"). A plugin backend always gets the layout create() saw; only the built-in one is handed
     * windows. [main thread]
     */
    int (*sort)(void *state, const eddy_grid_layout *layout, size_t n, const eddy_real *x,
                const eddy_real *y, const eddy_real *z, uint32_t *perm, uint32_t *cell_begin,
                uint32_t *cell_end, eddy_error *err);
    /* Releases the state. NULL-safe. [main thread] */
    void (*destroy)(void *state);
} eddy_grid_backend_vtable;

/* The built-in CPU backend (OpenMP counting sort): a static vtable, never NULL, never freed. [any
 * thread] */
EDDY_API const eddy_grid_backend_vtable *eddy_cpu_grid_backend(void);

/*
 * Prepares `grid` for `layout` (copied; from eddy_grid_layout_init) with a backend (NULL: the CPU
 * backend) and a domain policy. *grid is overwritten (free a previous grid first). The grid keeps a
 * pointer to the vtable, which must outlive it. Errors: a NULL grid or layout, a layout not
 * initialized or an unknown policy (EDDY_ERR_INVALID_ARGUMENT), a vtable too short or without create
 * or sort (EDDY_ERR_PLUGIN), EDDY_ERR_OUT_OF_MEMORY, or create()'s error; the grid (when not NULL) is
 * then zeroed (eddy_grid_free is safe).
 * Release with eddy_grid_free(). [main thread]
 */
EDDY_API int eddy_grid_init(eddy_grid *grid, const eddy_grid_layout *layout,
                            const eddy_grid_backend_vtable *backend, eddy_domain_policy policy,
                            eddy_error *err);

/* As eddy_grid_init, handing the backend its validated parameters and the host's services (either
 * may be NULL: no parameters, eddy_host_silent()); both must outlive the grid. */
EDDY_API int eddy_grid_init_with(eddy_grid *grid, const eddy_grid_layout *layout,
                                 const eddy_grid_backend_vtable *backend,
                                 const eddy_param_values *params, const eddy_host *host,
                                 eddy_domain_policy policy, eddy_error *err);

/* Frees the grid's arrays and the backend state (its destroy()), and zeroes the struct. NULL-safe. */
EDDY_API void eddy_grid_free(eddy_grid *grid);

/*
 * Wraps positions on periodic axes, applies the domain policy to particles outside the domain, sorts
 * the particles by cell (permuting every field) and fills the cell ranges. Invalidates neighbor lists.
 * Errors: EDDY_ERR_INVALID_ARGUMENT (a NULL or uninitialized grid, a NULL p, p of other dimensions,
 * more than 2^32 particles), EDDY_ERR_DOMAIN (a particle outside the domain under EDDY_DOMAIN_ERROR, a
 * non-finite position under either policy: the message names the one with the lowest id, whatever the
 * storage order), EDDY_ERR_OUT_OF_MEMORY, EDDY_ERR_PLUGIN (a backend whose ranges are not prefix sums
 * over the particles), or the backend's error. Every error drops the neighbor lists. After the
 * argument errors and an out-of-memory for the per-particle buffers, checked first, the grid and p are
 * otherwise as they were; after any later error the grid is empty (particle_count 0, every range
 * empty), positions on periodic axes may already be wrapped, escaped particles may already be removed
 * (EDDY_DOMAIN_REMOVE, counted in `removed`) and the particles may already be reordered. [main thread]
 */
EDDY_API int eddy_grid_build(eddy_grid *grid, eddy_particles *p, eddy_error *err);

EDDY_END_DECLS

#endif /* EDDY_GRID_H */
