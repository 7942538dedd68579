/*
 * eddy_sph/neighbors.h — per-particle neighbour lists swept in blocks of eight particles, and the
 * walls' ghosts within h, for a solver that sweeps the same neighbourhoods many times a step (pbf's
 * Jacobi iterations).
 *
 * Why a second neighbour path beside the cell pass (gather.h): the cell pass gathers a cell's
 * candidates afresh in every pass (~80 in the 3D dam break after the box test) and each particle sums
 * over all of them, ~27 of which are within h. A solver with two passes a step (density, forces) pays
 * that twice; a position-based solver runs 2 x iterations + 2 passes over the same neighbourhoods (10
 * at pbf's default of 4 iterations). Lists of the neighbours within h, built once a step, make each
 * pass a sweep of ~27 entries: pbf's 4 lambda passes on the 3D dam break (103 680 particles, 2
 * threads, 27 neighbours within h) took 48-56 ms from the lists against 159-164 ms on
 * eddy_sph_cell_pass when it was measured (docs/toolkit.md).
 *
 * The build (eddy_sph_neighbors_build) is one pass over the cells on the cell pass's gather: a cell's
 * candidates are gathered once and each of its particles picks those within h. It replaced the core's
 * eddy_grid_build_neighbor_lists here, which tests all ~200 particles of the 3-cell bars per particle,
 * twice (a count pass and a fill pass): 15-16 ms against 10-12 ms of pbf's grid phase at 103 680
 * particles, 2 threads (docs/performance.md). The build then lays the lists out in blocks
 * (eddy_sph_block_pass, below).
 *
 * The lists are those of the positions at the build; a solver that moves particles between its
 * passes (pbf's position corrections, a small fraction of h per iteration) keeps them for the step:
 * a pair that crosses h in between has a kernel weight near 0 either way.
 *
 * Walls: eddy_sph_neighbors_build marks the particles within `reach` of a surface ("near"); only
 * those get mirror images, and eddy_sph_neighbors_ghosts selects, with the lists, the ghosts of their
 * neighbours and of themselves that lie within h.
 *
 * Order: each list holds its neighbours in the gather's fixed order and the mirrors come in the
 * core's order; each particle adds its own terms in that order, so every sum is bit-identical for any
 * number of threads, any vector ISA and any grouping of particles into blocks (MPI ranks hash alike).
 *
 * Threads: build, ghosts and the pass's callbacks run in parallel (OpenMP, inline here so the static
 * library needs none).
 */
#ifndef EDDY_SPH_NEIGHBORS_H
#define EDDY_SPH_NEIGHBORS_H

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <eddy/boundary.h>
#include <eddy/error.h>
#include <eddy/grid.h>
#include <eddy/particles.h>

#include "gather.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A block's lanes: 8 particles, one AVX2 vector of floats (two SSE vectors). */
#define EDDY_SPH_LANES 8u

/* The list build's work units: runs of occupied cells, each writing its lists into its own buffer. */
#define EDDY_SPH_LIST_CHUNKS 256

typedef struct eddy_sph_list_chunk {
    uint32_t *index;
    size_t count, capacity;
} eddy_sph_list_chunk;

/* One image slot of a block's lanes, lane-interleaved: lane k's mirror x -> R x + t (as its
 * eddy_sph_image's r and t), on[k] 1, or R = 0, t = 0 and on[k] 0 where the lane has no image in the slot.
 * eddy_sph_block_image_get reads it in every pass; the lanes' eddy_sph_image records it copies are
 * 128 bytes each, seven slots apart, and read lane by lane they missed the cache (14% of pbf's lambda
 * pass). */
typedef struct eddy_sph_block_mirror {
    float r[3][3][EDDY_SPH_LANES];
    float t[3][EDDY_SPH_LANES];
    float on[EDDY_SPH_LANES];
} eddy_sph_block_mirror;

/* A run of blocks' ghost rows (eddy_sph_neighbors_ghosts): the particle each ghost images (a lane's
 * own particle in its padding) and its weight (1, or 0 for padding); and the blocks' image slots. */
typedef struct eddy_sph_ghost_chunk {
    uint32_t *index;
    float *weight;
    size_t rows, capacity; /* in rows of EDDY_SPH_LANES */
    eddy_sph_block_mirror *mirror;
    size_t mirrors, mirror_capacity;
    size_t first; /* its first row's place among every row, the blocks' neighbour rows first (eddy_sph_row_values) */
} eddy_sph_ghost_chunk;

/* The lists and their scratch, owned by the struct. It has no init function: start from a zeroed
 * struct (`= {0}`, memset or calloc) before the first build, which grows its arrays with realloc from
 * the members (an uninitialized struct hands realloc garbage pointers). Release with
 * eddy_sph_neighbors_free, which leaves it zeroed for another build. */
typedef struct eddy_sph_neighbors {
    uint32_t *offset, *index;       /* CSR lists: particle i's neighbours are index[offset[i] .. offset[i+1]) */
    size_t offset_capacity, index_capacity;
    eddy_sph_list_chunk chunk[EDDY_SPH_LIST_CHUNKS];
    const eddy_grid_layout *layout; /* periodic minimum image; the build's grid's, borrowed: valid while
                                     * that grid is, and not across its next build */
    int periodic;
    uint32_t longest;   /* the longest list */
    float uniform_mass; /* every particle's mass when all are equal, else 0 */
    float pad;          /* 8 h: a lane without an image gets this ghost offset (no kernel reaches it) */
    size_t count;       /* particles at the build */
    unsigned char *near;          /* 1: within reach of a surface at the build */
    unsigned char *image_count;   /* images of a near particle found last */
    uint32_t *image_slot;         /* first of EDDY_MAX_MIRRORS slots of a near particle in images */
    eddy_sph_image *images;
    size_t capacity, image_capacity;
    /* Blocks (eddy_sph_block_pass): the owned particles in order, EDDY_SPH_LANES to a block. */
    uint32_t *block_particle; /* [blocks * LANES]: lane k's particle (a lane past the owned ones: the block's first) */
    uint32_t *block_count;    /* [blocks * LANES]: its neighbours (0 past the owned ones) */
    uint32_t *block_row;      /* [blocks + 1]: each block's first row in block_index */
    uint32_t *block_index;    /* rows of LANES indices, as many per block as its longest list */
    size_t blocks, owned, block_capacity, block_index_capacity;
    float period[3], half_period[3]; /* periodic axes' lengths and halves (0 and FLT_MAX on the others) */
    /* Ghost rows (eddy_sph_neighbors_ghosts): per block and image slot, rows of LANES entries, each run
     * of blocks writing into its own chunk. */
    eddy_sph_ghost_chunk ghost_chunk[EDDY_SPH_LIST_CHUNKS];
    uint32_t *ghost_first;      /* [blocks]: each block's first ghost row in its chunk */
    uint16_t *ghost_chunk_of;   /* [blocks]: its chunk (EDDY_SPH_LIST_CHUNKS fit) */
    uint32_t *ghost_slot_rows;  /* [blocks * EDDY_MAX_MIRRORS]: the rows of each image slot, in slot order */
    uint32_t *ghost_mirror_first; /* [blocks]: each block's first image slot in its chunk's mirrors */
    unsigned char *ghost_slots;   /* [blocks]: its image slots (the most images of a lane) */
    size_t ghost_capacity;
    size_t ghost_rows;          /* of every chunk */
    int ghosts;                 /* 1 once eddy_sph_neighbors_ghosts ran on this build */
} eddy_sph_neighbors;

/* The per-particle arrays for n particles (eddy_sph_neighbors_build's helper). Returns 0, or -1 when
 * memory runs out. */
int eddy_sph_neighbors_reserve(eddy_sph_neighbors *nb, size_t n);

/* Image slots for the near particles, counts reset (eddy_sph_neighbors_build's helper). Returns 0, or -1
 * when memory runs out. */
int eddy_sph_neighbors_slots(eddy_sph_neighbors *nb);

/* Room for `more` entries after chunk->count (eddy_sph_neighbors_build's helper). Returns 0, or -1 when
 * memory runs out. */
int eddy_sph_list_chunk_reserve(eddy_sph_list_chunk *chunk, size_t more);

/* offset[] as the running sum of the counts in offset[1..n], index[] sized for them
 * (eddy_sph_neighbors_build's helper). Returns 0, -1 when memory runs out, or -2 when the total
 * exceeds 2^32 - 1 entries. */
int eddy_sph_neighbors_offsets(eddy_sph_neighbors *nb, size_t n);

/* The owned particles into blocks and each block's rows counted, block_index sized for them
 * (eddy_sph_neighbors_build's helper, after the offsets). Returns 0, -1 when memory runs out, or -2 when
 * the rows exceed 2^32 - 1 entries. */
int eddy_sph_neighbors_block_rows(eddy_sph_neighbors *nb, const eddy_particles *p);

/* The error of a sizing helper's code for `what` of n particles (`who`: EDDY_SPH_WHO): -2, more than
 * 2^32 - 1 entries (EDDY_ERR_INVALID_ARGUMENT); -1, out of memory. Returns the code set. */
static inline int eddy_sph_sizing_error(eddy_error *err, int rc, const char *who, const char *what, size_t n)
{
    if (rc == -2)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              EDDY_SPH_WHO_FMT "the %s of %zu particles hold more than 2^32 - 1 entries",
                              EDDY_SPH_WHO(who), what, n);
    return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, EDDY_SPH_WHO_FMT "out of memory for the %s of %zu particles",
                          EDDY_SPH_WHO(who), what, n);
}

/* Particle i's neighbours within h among a cell's candidates (their positions shifted by the periodic
 * images), i itself left out, appended to the chunk; returns how many. The chunk has room for every
 * candidate. */
static inline uint32_t eddy_sph_list_select(const eddy_sph_candidates *c, const eddy_particles *p, uint32_t i,
                                            float h2, eddy_sph_list_chunk *chunk)
{
    uint32_t *out = chunk->index + chunk->count;
    const size_t hits = eddy_sph_hits(c, p->x[i], p->y[i], p->z[i], h2, out);
    /* Candidate positions to particle indices, in place (k <= t), i itself dropped without a branch. */
    const uint32_t *ci = c->index;
    size_t k = 0;
    for (size_t t = 0; t < hits; ++t) {
        const uint32_t j = ci[out[t]];
        out[k] = j;
        k += j != i;
    }
    chunk->count += k;
    return (uint32_t)k;
}

/*
 * Builds the lists of the neighbours within h of every owned particle (the grid must be built on the
 * particles, with cells of at least h), marks the particles within `reach` of a surface of `b` (none
 * when b has no collider) and sizes the image slots. `who` prefixes the error message (EDDY_SPH_WHO:
 * NULL in a solver, whose errors the host prefixes with its id).
 * Returns EDDY_OK, EDDY_ERR_INVALID_ARGUMENT (a NULL argument other than who and err, a smoothing radius
 * h that is not a positive number, cells smaller than h, a grid built on another count of particles,
 * or more than 2^32 - 1 entries) or EDDY_ERR_OUT_OF_MEMORY. nb starts zeroed (above) and owns what the
 * build allocates; the lists borrow g's layout (nb->layout) until g's next build.
 *
 * One pass over the cells: each cell's candidates are gathered once (eddy_sph_gather, ~80 in the 3D
 * dam break) and every particle of the cell picks its neighbours among them; a run of cells writes its
 * lists into its own buffer, and the buffers are copied into the CSR arrays once the counts are
 * summed. A list holds its neighbours in the gather's fixed order, so the lists do not depend on the
 * thread count. Halo copies get empty lists (their owner computes them). Inline, so the static
 * library needs no OpenMP.
 */
static inline int eddy_sph_neighbors_build(eddy_sph_neighbors *nb, eddy_grid *g, const eddy_particles *p,
                                           const eddy_boundaries *b, float h, float reach, const char *who,
                                           eddy_error *err)
{
    if (!nb || !g || !p || !b)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, EDDY_SPH_WHO_FMT "neighbour lists: NULL %s",
                              EDDY_SPH_WHO(who), !nb ? "lists" : !g ? "grid" : !p ? "particles" : "boundaries");
    /* A negative h would pass the cell test and square into a positive reach. */
    if (!(h > 0.0f) || !isfinite(h))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              EDDY_SPH_WHO_FMT "neighbour lists: the smoothing radius is %g, expected a positive number",
                              EDDY_SPH_WHO(who), (double)h);
    const eddy_grid_layout *lay = &g->layout;
    for (int a = 0; a < lay->dimensions; ++a)
        if (!(lay->cell_size[a] >= h))
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  EDDY_SPH_WHO_FMT "the grid's cells (%g on axis %d) are smaller than the smoothing radius %g",
                                  EDDY_SPH_WHO(who), (double)lay->cell_size[a], a, (double)h);
    const size_t n = p->count;
    if (n != g->particle_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              EDDY_SPH_WHO_FMT "the grid holds %zu particles but the set has %zu; build the grid first",
                              EDDY_SPH_WHO(who),
                              g->particle_count, n);
    if (eddy_sph_neighbors_reserve(nb, n))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, EDDY_SPH_WHO_FMT "out of memory for %zu particles",
                              EDDY_SPH_WHO(who), n);
    nb->layout = lay;
    nb->ghosts = 0;
    nb->periodic = lay->periodic[0] || lay->periodic[1] || lay->periodic[2];
    nb->count = n;
    nb->pad = 8.0f * h;
    uint32_t *count = nb->offset + 1; /* the counts, summed in place below */
    const long long cells = (long long)g->occupied_count;
    const long long chunks = cells < EDDY_SPH_LIST_CHUNKS ? cells : EDDY_SPH_LIST_CHUNKS;
    const float h2 = h * h;
    int failed = 0;
    EDDY_SPH_OMP(parallel reduction(| : failed))
    {
        eddy_sph_candidates cand = eddy_sph_candidates_make(0);
        EDDY_SPH_OMP(for schedule(dynamic, 1))
        for (long long k = 0; k < chunks; ++k) {
            eddy_sph_list_chunk *chunk = &nb->chunk[k];
            chunk->count = 0;
            for (long long ci = cells * k / chunks; ci < cells * (k + 1) / chunks && !failed; ++ci) {
                const uint32_t c = g->occupied[ci], begin = g->cell_begin[c], end = g->cell_end[c];
                if (!eddy_sph_cell_owned(g, p, c)) {
                    for (uint32_t i = begin; i < end; ++i) count[i] = 0;
                    continue;
                }
                if (eddy_sph_gather(&cand, g, p, c)) {
                    failed = 1;
                    break;
                }
                for (uint32_t i = begin; i < end; ++i) {
                    if (eddy_particle_is_halo(p, i)) {
                        count[i] = 0;
                    } else if (eddy_sph_list_chunk_reserve(chunk, cand.count)) {
                        failed = 1;
                        break;
                    } else {
                        count[i] = eddy_sph_list_select(&cand, p, i, h2, chunk);
                    }
                }
            }
        }
        eddy_sph_candidates_free(&cand);
    }
    if (failed)
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, EDDY_SPH_WHO_FMT "out of memory for the neighbour lists",
                              EDDY_SPH_WHO(who));
    const int offsets = eddy_sph_neighbors_offsets(nb, n);
    if (offsets) return eddy_sph_sizing_error(err, offsets, who, "neighbour lists", n);
    const uint32_t *off = nb->offset;
    uint32_t *index = nb->index;
    EDDY_SPH_OMP(parallel for schedule(dynamic, 1))
    for (long long k = 0; k < chunks; ++k) {
        /* The chunk's lists in the order they were written: its cells, then their particles. */
        const long long first = cells * k / chunks;
        const eddy_sph_list_chunk *chunk = &nb->chunk[k];
        if (chunk->count)
            memcpy(index + off[g->cell_begin[g->occupied[first]]], chunk->index, chunk->count * sizeof(uint32_t));
    }
    const int rows = eddy_sph_neighbors_block_rows(nb, p);
    if (rows) return eddy_sph_sizing_error(err, rows, who, "neighbour blocks", n);
    const long long blocks = (long long)nb->blocks;
    EDDY_SPH_OMP(parallel for schedule(dynamic, 64))
    for (long long k = 0; k < blocks; ++k) {
        /* Lane-interleaved: row q holds each lane's neighbour q, or the lane's own particle past its
         * count (a valid index, weighted 0 by eddy_sph_block_on). */
        const uint32_t rows_k = nb->block_row[k + 1] - nb->block_row[k];
        uint32_t *dst = nb->block_index + (size_t)nb->block_row[k] * EDDY_SPH_LANES;
        for (uint32_t lane = 0; lane < EDDY_SPH_LANES; ++lane) {
            const uint32_t i = nb->block_particle[(size_t)k * EDDY_SPH_LANES + lane];
            const uint32_t cnt = nb->block_count[(size_t)k * EDDY_SPH_LANES + lane];
            const uint32_t *src = index + off[i];
            for (uint32_t q = 0; q < cnt; ++q) dst[q * EDDY_SPH_LANES + lane] = src[q];
            for (uint32_t q = cnt; q < rows_k; ++q) dst[q * EDDY_SPH_LANES + lane] = i;
        }
    }
    for (int a = 0; a < 3; ++a) {
        const int wraps = a < lay->dimensions && lay->periodic[a];
        nb->period[a] = wraps ? lay->hi[a] - lay->lo[a] : 0.0f;
        nb->half_period[a] = wraps ? 0.5f * (lay->hi[a] - lay->lo[a]) : FLT_MAX;
    }
    const long long nl = (long long)n;
    const int walls = b->collider_count > 0;
    const float *mass = p->mass;
    unsigned char *near = nb->near;
    uint32_t longest = 0;
    float mmin = n ? mass[0] : 0.0f, mmax = mmin;
    EDDY_SPH_OMP(parallel for schedule(static) reduction(max : longest, mmax) reduction(min : mmin))
    for (long long i = 0; i < nl; ++i) {
        mmin = mass[i] < mmin ? mass[i] : mmin;
        mmax = mass[i] > mmax ? mass[i] : mmax;
        const uint32_t len = off[i + 1] - off[i];
        longest = len > longest ? len : longest;
    }
    /* Near a surface: a cell clear of every wall by more than reach answers for all its particles
     * (eddy_sph_cell_near_walls; the same flags as a distance per particle, 1.6% of pbf's step). */
    EDDY_SPH_OMP(parallel for schedule(dynamic, 64))
    for (long long ci = 0; ci < cells; ++ci) {
        const uint32_t c = g->occupied[ci], begin = g->cell_begin[c], end = g->cell_end[c];
        const int maybe = walls && eddy_sph_cell_near_walls(b, g, p, c, reach);
        for (uint32_t i = begin; i < end; ++i) {
            const eddy_real pos[3] = {p->x[i], p->y[i], p->z[i]};
            near[i] = maybe && eddy_boundaries_distance(b, pos, NULL, NULL) < reach;
        }
    }
    nb->longest = longest;
    nb->uniform_mass = n && mmin == mmax ? mmin : 0.0f;
    if (eddy_sph_neighbors_slots(nb))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, EDDY_SPH_WHO_FMT "out of memory for the wall mirrors",
                              EDDY_SPH_WHO(who));
    return EDDY_OK;
}

/* Frees every array of the lists, blocks, images and ghost rows, and zeroes the struct (ready for a
 * new build, or a second free). NULL-safe. */
void eddy_sph_neighbors_free(eddy_sph_neighbors *nb);

/*
 * The mirror images of the walls within h of particle i at its current position (gravity: the
 * hydrostatic pressure continuation, or NULL), stored for eddy_sph_neighbors_images; 0 for a particle
 * that was not near a surface at the build (eddy_sph_neighbors_ghosts calls it for every owned
 * particle). Threads: distinct particles in parallel.
 */
int eddy_sph_neighbors_find_images(eddy_sph_neighbors *nb, const eddy_boundaries *b, const float gravity[3],
                                   float h, const eddy_particles *p, uint32_t i);

/* The images find_images stored for particle i (the count; *img their first, NULL when 0). */
static inline int eddy_sph_neighbors_images(const eddy_sph_neighbors *nb, uint32_t i, const eddy_sph_image **img)
{
    const int n = nb->near && nb->near[i] ? nb->image_count[i] : 0;
    *img = n ? nb->images + nb->image_slot[i] : NULL;
    return n;
}


/*
 * Blocks: lanes across particles. The first list pass walked one particle's list at a time, the lanes
 * of a vector holding eight of its neighbours: each list had to be gathered into contiguous buffers
 * first (a scalar loop of loads and stores, a quarter of pbf's step) and each particle ended with a
 * horizontal sum. A block pass gives each lane its own particle instead: eight consecutive owned
 * particles (sorted by cell, so mostly one cell's) walk their lists side by side, row q holding every
 * lane's neighbour q, so a row is one vector load of indices and the positions are read straight
 * into the registers; each lane adds its own list in order, and the sum of a particle does not depend
 * on its block's other lanes, the ISA or the thread count. A block has as many rows as its longest
 * list; a lane past its count reads its own particle, weighted 0 (eddy_sph_block_on). 103 680
 * particles of the 3D dam break: docs/performance.md.
 */
typedef struct eddy_sph_block {
    const uint32_t *index;    /* `rows` rows of EDDY_SPH_LANES particle indices */
    const uint32_t *particle; /* lane k's particle */
    const uint32_t *count;    /* lane k's neighbours */
    uint32_t rows;            /* the longest list of the block */
    uint32_t first_row;       /* the block's first row among every block's rows (eddy_sph_row_values) */
    uint32_t lanes;           /* lanes holding an owned particle: EDDY_SPH_LANES except in the last block */
    float x[EDDY_SPH_LANES], y[EDDY_SPH_LANES], z[EDDY_SPH_LANES]; /* the lanes' positions at the pass */
    float period[3], half_period[3];
    float uniform_mass; /* every particle's mass when all are equal, else 0 (eddy_sph_block_mass) */
    const uint32_t *ghost_index; /* the block's ghost rows (eddy_sph_neighbors_ghosts), NULL without */
    const float *ghost_weight;
    uint32_t ghost_row[EDDY_MAX_MIRRORS + 1]; /* image slot s: rows [ghost_row[s], ghost_row[s + 1]) */
    const eddy_sph_block_mirror *ghost_mirror; /* its image slots (eddy_sph_neighbors_ghosts), NULL without */
    int ghost_slots;
    size_t ghost_first; /* ghost row g's place among every row: ghost_first + g (eddy_sph_row_values) */
} eddy_sph_block;

/* The periodic minimum image of a difference, as eddy_grid_min_image, without a branch: period 0 and
 * half FLT_MAX on an axis that does not wrap. */
EDDY_SPH_INLINE void eddy_sph_wrap(const float period[3], const float half[3], float *dx, float *dy, float *dz)
{
    /* Every load unconditional: a load under a condition would keep GCC from vectorizing. */
    const float px = period[0], py = period[1], pz = period[2], hx = half[0], hy = half[1], hz = half[2];
    float ex = *dx, ey = *dy, ez = *dz;
    ex -= ex > hx ? px : 0.0f;
    ex += ex < -hx ? px : 0.0f;
    ey -= ey > hy ? py : 0.0f;
    ey += ey < -hy ? py : 0.0f;
    ez -= ez > hz ? pz : 0.0f;
    ez += ez < -hz ? pz : 0.0f;
    *dx = ex;
    *dy = ey;
    *dz = ez;
}

/* Lane k's entry of a row of indices: returns its particle j and stores x_i - x_j (periodic minimum
 * image, as eddy_grid_min_image). Branch-free, for an `omp simd` loop over the lanes. */
EDDY_SPH_INLINE uint32_t eddy_sph_block_row_diff(const eddy_sph_block *b, const uint32_t *row, const float *x,
                                                const float *y, const float *z, uint32_t k, float *dx, float *dy,
                                                float *dz)
{
    const uint32_t j = row[k];
    *dx = b->x[k] - x[j];
    *dy = b->y[k] - y[j];
    *dz = b->z[k] - z[j];
    eddy_sph_wrap(b->period, b->half_period, dx, dy, dz);
    return j;
}

/* Lane k's neighbour row q (eddy_sph_block_row_diff). */
EDDY_SPH_INLINE uint32_t eddy_sph_block_diff(const eddy_sph_block *b, const float *x, const float *y, const float *z,
                                            uint32_t q, uint32_t k, float *dx, float *dy, float *dz)
{
    return eddy_sph_block_row_diff(b, b->index + (size_t)q * EDDY_SPH_LANES, x, y, z, k, dx, dy, dz);
}

/* Lane k's ghost row g (eddy_sph_block_ghost_rows): the imaged particle j and x_i - x_j, its weight
 * (1, or 0 for padding) in *w. */
EDDY_SPH_INLINE uint32_t eddy_sph_block_ghost_diff(const eddy_sph_block *b, const float *x, const float *y,
                                                  const float *z, uint32_t g, uint32_t k, float *dx, float *dy,
                                                  float *dz, float *w)
{
    *w = b->ghost_weight[(size_t)g * EDDY_SPH_LANES + k];
    return eddy_sph_block_row_diff(b, b->ghost_index + (size_t)g * EDDY_SPH_LANES, x, y, z, k, dx, dy, dz);
}

/* The compile-time form of a block body (EDDY_SPH_SIMD_BLOCK_CLONES compiles one function per form;
 * eddy_sph_block_form(nb) picks one a pass). Each bit drops work from every row of eight: */
#define EDDY_SPH_BLOCK_UNIFORM_MASS 1 /* every particle has the same mass: no mass is loaded */
#define EDDY_SPH_BLOCK_PERIODIC 2     /* an axis wraps: differences take the minimum image (else none) */
#define EDDY_SPH_BLOCK_FORMS 4

/* m_j (`form` a constant at the call): with equal masses no mass is loaded. */
EDDY_SPH_INLINE float eddy_sph_block_mass(const eddy_sph_block *b, const float *mass, uint32_t j, const int form)
{
    return (form & EDDY_SPH_BLOCK_UNIFORM_MASS) ? b->uniform_mass : mass[j];
}

/* 1 for a neighbour of lane k in row q, 0 past its count: the weight of every neighbour term. */
EDDY_SPH_INLINE float eddy_sph_block_on(const eddy_sph_block *b, uint32_t q, uint32_t k)
{
    return q < b->count[k] ? 1.0f : 0.0f;
}

/*
 * Rows of records. A pass reads, per neighbour, its position and a field or two: eight lanes' loads
 * from separate arrays are 8 scalar loads and 7 inserts per array (a hardware gather was slower on the
 * machines measured). Records of four floats (the position and one more value) are read as eight
 * 16-byte loads and a 4 x 8 transpose: pbf's delta pass with (x, y, z, lambda) records ran in ~0.9x
 * the time (docs/performance.md). A solver packs the records once a pass (eddy_sph_records_pack) and
 * loads one row at a time (eddy_sph_block_load) before its lane loop.
 */
typedef struct eddy_sph_records {
    float (*v)[4]; /* particle j's record: v[j][0..3] */
    size_t capacity;
} eddy_sph_records;

/* Room for n records (existing ones kept). Start from a zeroed struct, as for eddy_sph_neighbors.
 * Returns 0, or -1 when memory runs out (the records are then unchanged). */
int eddy_sph_records_reserve(eddy_sph_records *r, size_t n);
/* Frees the records and zeroes the struct. NULL-safe. */
void eddy_sph_records_free(eddy_sph_records *r);

/* Records {a[j], b[j], c[j], d[j]} (d NULL: 0) of particles 0 .. n-1, in parallel, into records with
 * room for n (eddy_sph_records_reserve, e.g. where the solver sizes its scratch; asserted in debug
 * builds, and never written past the capacity). */
static inline void eddy_sph_records_pack(eddy_sph_records *r, size_t n, const float *a, const float *b, const float *c,
                                         const float *d)
{
    assert(n <= r->capacity);
    float(*v)[4] = r->v;
    const long long nl = (long long)(n < r->capacity ? n : r->capacity);
    EDDY_SPH_OMP(parallel for schedule(static))
    for (long long j = 0; j < nl; ++j) {
        v[j][0] = a[j];
        v[j][1] = b[j];
        v[j][2] = c[j];
        v[j][3] = d ? d[j] : 0.0f;
    }
}

/* The fourth value of records 0 .. n-1 from d, the rest kept: a pass that reads the same positions
 * as the last pack with another field (pbf: lambda after the lambda pass) rewrites only that. */
static inline void eddy_sph_records_set_d(eddy_sph_records *r, size_t n, const float *d)
{
    assert(n <= r->capacity);
    float(*v)[4] = r->v;
    const long long nl = (long long)(n < r->capacity ? n : r->capacity);
    EDDY_SPH_OMP(parallel for schedule(static))
    for (long long j = 0; j < nl; ++j) v[j][3] = d[j];
}

/*
 * One value per entry of the blocks' neighbour rows and ghost rows (row q of a block, lane k), for a pair
 * quantity that a pass computes and a later pass over the same positions reads back instead of
 * computing it again (pbf: delta-p's spiky gradient factor, with its square root and division, from the
 * lambda pass of the same iteration). Sized for a build (and its ghost rows) with
 * eddy_sph_row_values_reserve after them; neighbour row q of block b at eddy_sph_block_values(values, b,
 * q), ghost row g at eddy_sph_block_ghost_values(values, b, g), lane k at [k].
 */
typedef struct eddy_sph_row_values {
    float *v;
    size_t capacity; /* in entries */
} eddy_sph_row_values;

/* Room for every entry of nb's neighbour rows and ghost rows (existing values not kept). Start from a
 * zeroed struct, as for eddy_sph_neighbors. Returns 0, or -1 when memory runs out. */
int eddy_sph_row_values_reserve(eddy_sph_row_values *r, const eddy_sph_neighbors *nb);
/* Frees the values and zeroes the struct. NULL-safe. */
void eddy_sph_row_values_free(eddy_sph_row_values *r);

/* The EDDY_SPH_LANES values of row q of block b. */
EDDY_SPH_INLINE float *eddy_sph_block_values(const eddy_sph_row_values *r, const eddy_sph_block *b, uint32_t q)
{
    return r->v + ((size_t)b->first_row + q) * EDDY_SPH_LANES;
}

/* The EDDY_SPH_LANES values of ghost row g of block b. */
EDDY_SPH_INLINE float *eddy_sph_block_ghost_values(const eddy_sph_row_values *r, const eddy_sph_block *b, uint32_t g)
{
    return r->v + (b->ghost_first + g) * EDDY_SPH_LANES;
}

/* One row's records as lane vectors: lane k holds record row[k] in a[k], b[k], c[k], d[k]. */
typedef struct eddy_sph_row4 {
    float a[EDDY_SPH_LANES], b[EDDY_SPH_LANES], c[EDDY_SPH_LANES], d[EDDY_SPH_LANES];
} eddy_sph_row4;

/* Row q of a block's neighbour rows, and ghost row g. */
EDDY_SPH_INLINE const uint32_t *eddy_sph_block_row(const eddy_sph_block *b, uint32_t q)
{
    return b->index + (size_t)q * EDDY_SPH_LANES;
}
EDDY_SPH_INLINE const uint32_t *eddy_sph_block_ghost_row(const eddy_sph_block *b, uint32_t g)
{
    return b->ghost_index + (size_t)g * EDDY_SPH_LANES;
}

/* The transpose needs __builtin_shufflevector (GCC 12, Clang); other compilers, and nvcc, read the row
 * lane by lane (the same values). */
#if defined(__has_builtin) && !defined(__CUDACC__)
#if __has_builtin(__builtin_shufflevector)
#define EDDY_SPH_SHUFFLE_ 1
#endif
#endif
#ifdef EDDY_SPH_SHUFFLE_
typedef float eddy_sph_v4_ __attribute__((vector_size(16), aligned(4)));
typedef float eddy_sph_v8_ __attribute__((vector_size(32), aligned(4)));

/* The records of a row of eight particles, transposed into lanes (GCC/Clang vector extensions, so each
 * vector ISA path compiles its own shuffles). Call it before the lane loop, not inside it. */
static inline __attribute__((always_inline)) void eddy_sph_block_load(const eddy_sph_records *r, const uint32_t *row,
                                                                     eddy_sph_row4 *out)
{
#if EDDY_SPH_LANES != 8
#error "eddy_sph_block_load's transpose is written for eight lanes"
#endif
    float(*v)[4] = r->v;
    const eddy_sph_v4_ a0 = *(const eddy_sph_v4_ *)v[row[0]], a1 = *(const eddy_sph_v4_ *)v[row[1]],
                       a2 = *(const eddy_sph_v4_ *)v[row[2]], a3 = *(const eddy_sph_v4_ *)v[row[3]],
                       a4 = *(const eddy_sph_v4_ *)v[row[4]], a5 = *(const eddy_sph_v4_ *)v[row[5]],
                       a6 = *(const eddy_sph_v4_ *)v[row[6]], a7 = *(const eddy_sph_v4_ *)v[row[7]];
    /* Lanes 0-3 in the low halves, 4-7 in the high ones; then a 4 x 4 transpose within each half. */
    const eddy_sph_v8_ p04 = __builtin_shufflevector(a0, a4, 0, 1, 2, 3, 4, 5, 6, 7);
    const eddy_sph_v8_ p15 = __builtin_shufflevector(a1, a5, 0, 1, 2, 3, 4, 5, 6, 7);
    const eddy_sph_v8_ p26 = __builtin_shufflevector(a2, a6, 0, 1, 2, 3, 4, 5, 6, 7);
    const eddy_sph_v8_ p37 = __builtin_shufflevector(a3, a7, 0, 1, 2, 3, 4, 5, 6, 7);
    const eddy_sph_v8_ t0 = __builtin_shufflevector(p04, p15, 0, 8, 1, 9, 4, 12, 5, 13);
    const eddy_sph_v8_ t1 = __builtin_shufflevector(p04, p15, 2, 10, 3, 11, 6, 14, 7, 15);
    const eddy_sph_v8_ t2 = __builtin_shufflevector(p26, p37, 0, 8, 1, 9, 4, 12, 5, 13);
    const eddy_sph_v8_ t3 = __builtin_shufflevector(p26, p37, 2, 10, 3, 11, 6, 14, 7, 15);
    *(eddy_sph_v8_ *)out->a = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
    *(eddy_sph_v8_ *)out->b = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    *(eddy_sph_v8_ *)out->c = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
    *(eddy_sph_v8_ *)out->d = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
}
#else
static inline void eddy_sph_block_load(const eddy_sph_records *r, const uint32_t *row, eddy_sph_row4 *out)
{
    for (uint32_t k = 0; k < EDDY_SPH_LANES; ++k) {
        const float *v = r->v[row[k]];
        out->a[k] = v[0];
        out->b[k] = v[1];
        out->c[k] = v[2];
        out->d[k] = v[3];
    }
}
#endif

/* x_i - x_j for lane k from its neighbour's position in r (a, b, c), the minimum image when the form
 * says an axis wraps: bit-identical to eddy_sph_block_diff. */
EDDY_SPH_INLINE void eddy_sph_block_row_diff4(const eddy_sph_block *b, const eddy_sph_row4 *r, uint32_t k,
                                             const int form, float *dx, float *dy, float *dz)
{
    *dx = b->x[k] - r->a[k];
    *dy = b->y[k] - r->b[k];
    *dz = b->z[k] - r->c[k];
    if (form & EDDY_SPH_BLOCK_PERIODIC) eddy_sph_wrap(b->period, b->half_period, dx, dy, dz);
}

/* Lane k's neighbour row q as a pass sums it, from the row's records r (positions in a, b, c;
 * eddy_sph_block_load of eddy_sph_block_row(b, q)): returns j, stores x_i - x_j and m_j weighted by
 * eddy_sph_block_on (0 past the lane's count). */
EDDY_SPH_INLINE uint32_t eddy_sph_block_neighbor(const eddy_sph_block *b, const eddy_sph_row4 *r, const float *mass,
                                                uint32_t q, uint32_t k, const int form, float *dx, float *dy,
                                                float *dz, float *mj)
{
    const uint32_t j = eddy_sph_block_row(b, q)[k];
    eddy_sph_block_row_diff4(b, r, k, form, dx, dy, dz);
    *mj = eddy_sph_block_on(b, q, k) * eddy_sph_block_mass(b, mass, j, form);
    return j;
}

/* One mirror per lane as lane vectors: x_i - M(x_j) = c0 + R (x_i - x_j) (eddy_sph_image_origin). */
typedef struct eddy_sph_block_image {
    float r[3][3][EDDY_SPH_LANES];
    float c0[3][EDDY_SPH_LANES];
    float on[EDDY_SPH_LANES]; /* 1 where the lane has this image; elsewhere R = 0 and c0 = 8 h */
} eddy_sph_block_image;

/* Image `slot` of each lane's particle (as eddy_sph_neighbors_find_images stored it) at the lanes'
 * positions; returns how many lanes have one: a loop over slots stops at 0. After
 * eddy_sph_neighbors_ghosts, from the block's slots it kept (eddy_sph_block_mirror). */
static inline int eddy_sph_block_image_get(const eddy_sph_neighbors *nb, const eddy_sph_block *b, int slot,
                                           eddy_sph_block_image *out)
{
    int any = 0;
    if (b->ghost_mirror) {
        /* The slot as eddy_sph_neighbors_ghosts laid it out: the same maps, the same origin's
         * arithmetic (eddy_sph_image_origin), no per-lane lookup. */
        if (slot >= b->ghost_slots) return 0;
        const eddy_sph_block_mirror *m = &b->ghost_mirror[slot];
        for (uint32_t k = 0; k < EDDY_SPH_LANES; ++k) {
            const float xi = b->x[k], yi = b->y[k], zi = b->z[k], x[3] = {xi, yi, zi};
            for (int a = 0; a < 3; ++a) {
                const float c0 = x[a] - (m->r[a][0][k] * xi + m->r[a][1][k] * yi + m->r[a][2][k] * zi) - m->t[a][k];
                out->c0[a][k] = m->on[k] > 0.0f ? c0 : nb->pad;
                for (int c = 0; c < 3; ++c) out->r[a][c][k] = m->r[a][c][k];
            }
            out->on[k] = m->on[k];
            any += m->on[k] > 0.0f;
        }
        return any;
    }
    for (uint32_t k = 0; k < EDDY_SPH_LANES; ++k) {
        const eddy_sph_image *img = NULL;
        const int n = k < b->lanes ? eddy_sph_neighbors_images(nb, b->particle[k], &img) : 0;
        if (slot < n) {
            const eddy_sph_image *M = &img[slot];
            float c0[3];
            eddy_sph_image_origin(M, b->x[k], b->y[k], b->z[k], c0);
            for (int a = 0; a < 3; ++a) {
                out->c0[a][k] = c0[a];
                for (int c = 0; c < 3; ++c) out->r[a][c][k] = M->r[a][c];
            }
            out->on[k] = 1.0f;
            ++any;
        } else {
            for (int a = 0; a < 3; ++a) {
                out->c0[a][k] = nb->pad;
                for (int c = 0; c < 3; ++c) out->r[a][c][k] = 0.0f;
            }
            out->on[k] = 0.0f;
        }
    }
    return any;
}

/*
 * The first image slot from `slot` on that holds ghost rows in block b, each lane's image of it in *out
 * (eddy_sph_block_image_get); -1 when none is left. A pass's mirror loop:
 *   for (int s = 0; (s = eddy_sph_block_next_image(nb, b, s, &img)) >= 0; ++s)
 *       for (uint32_t g = b->ghost_row[s]; g < b->ghost_row[s + 1]; ++g) ...
 * Why not image_get over every slot: it fills eight lanes' images (or padding) in each pass, also in the
 * blocks without a ghost row, which are most of them (their lanes are not near a wall, or their images
 * have no ghost within h); on pbf's 3D dam break that was 15% of the delta-p pass.
 */
static inline int eddy_sph_block_next_image(const eddy_sph_neighbors *nb, const eddy_sph_block *b, int slot,
                                            eddy_sph_block_image *out)
{
    for (; slot < EDDY_MAX_MIRRORS; ++slot)
        if (b->ghost_row[slot + 1] > b->ghost_row[slot]) {
            eddy_sph_block_image_get(nb, b, slot, out);
            return slot;
        }
    return -1;
}

/* Lane k's ghost difference c0 + R d for a difference d = x_i - x_j (as eddy_sph_image_of_diff). */
EDDY_SPH_INLINE void eddy_sph_block_image_diff(const eddy_sph_block_image *g, uint32_t k, float dx, float dy,
                                              float dz, float *ex, float *ey, float *ez)
{
    *ex = g->c0[0][k] + g->r[0][0][k] * dx + g->r[0][1][k] * dy + g->r[0][2][k] * dz;
    *ey = g->c0[1][k] + g->r[1][0][k] * dx + g->r[1][1][k] * dy + g->r[1][2][k] * dz;
    *ez = g->c0[2][k] + g->r[2][0][k] * dx + g->r[2][1][k] * dy + g->r[2][2][k] * dz;
}

/* Lane k's ghost row g through its image img as a pass sums it, from the row's records r
 * (eddy_sph_block_load of eddy_sph_block_ghost_row(b, g)): returns the imaged particle j, stores
 * x_i - M(x_j) and m_j weighted by the row's weight (0 for padding). */
EDDY_SPH_INLINE uint32_t eddy_sph_block_ghost(const eddy_sph_block *b, const eddy_sph_block_image *img,
                                             const eddy_sph_row4 *r, const float *mass, uint32_t g, uint32_t k,
                                             const int form, float *ex, float *ey, float *ez, float *mj)
{
    const uint32_t j = eddy_sph_block_ghost_row(b, g)[k];
    float dx, dy, dz;
    eddy_sph_block_row_diff4(b, r, k, form, &dx, &dy, &dz);
    eddy_sph_block_image_diff(img, k, dx, dy, dz, ex, ey, ez);
    *mj = b->ghost_weight[(size_t)g * EDDY_SPH_LANES + k] * eddy_sph_block_mass(b, mass, j, form);
    return j;
}

/* The form of a pass over nb's blocks (EDDY_SPH_BLOCK_UNIFORM_MASS, EDDY_SPH_BLOCK_PERIODIC): the
 * index of the body compiled for it (EDDY_SPH_SIMD_BLOCK_CLONES). */
static inline int eddy_sph_block_form(const eddy_sph_neighbors *nb)
{
    return (nb->uniform_mass > 0.0f ? EDDY_SPH_BLOCK_UNIFORM_MASS : 0) | (nb->periodic ? EDDY_SPH_BLOCK_PERIODIC : 0);
}

/* Per-block ghost arrays for nb->blocks blocks; room for `more` rows after chunk->rows
 * (eddy_sph_neighbors_ghosts' helpers). Return 0, or -1 when memory runs out. */
int eddy_sph_neighbors_ghost_blocks(eddy_sph_neighbors *nb);
int eddy_sph_ghost_chunk_reserve(eddy_sph_ghost_chunk *chunk, size_t more);
int eddy_sph_ghost_chunk_reserve_mirrors(eddy_sph_ghost_chunk *chunk, size_t more);

/* The entries of lane `lane` of block k (its neighbours, then itself) whose ghost in image M lies
 * within h (|x_i - M(x_j)|^2 < h2) at the current positions, in row order: writes each one's particle
 * to out[n * stride] and returns how many (out has room for the lane's count + 1). */
static inline uint32_t eddy_sph_ghost_select(const eddy_sph_neighbors *nb, const eddy_particles *p, size_t k,
                                             uint32_t lane, const eddy_sph_image *M, float h2, uint32_t *out,
                                             size_t stride)
{
    const size_t at = k * EDDY_SPH_LANES + lane;
    const uint32_t i = nb->block_particle[at], count = nb->block_count[at];
    const uint32_t *index = nb->block_index + (size_t)nb->block_row[k] * EDDY_SPH_LANES + lane;
    const float *x = p->x, *y = p->y, *z = p->z, xi = x[i], yi = y[i], zi = z[i];
    const float *period = nb->period, *half = nb->half_period;
    float c0[3];
    eddy_sph_image_origin(M, xi, yi, zi, c0);
    /* 64 squared distances at a time in a SIMD loop, then a branch-free compaction (each entry is
     * written, and kept by advancing n: out has room for one entry past the ghosts). */
    uint32_t n = 0;
    float e2[64];
    for (uint32_t q0 = 0; q0 < count; q0 += 64) {
        const uint32_t m = count - q0 < 64 ? count - q0 : 64;
        EDDY_SPH_OMP(simd)
        for (uint32_t t = 0; t < m; ++t) {
            const uint32_t j = index[(size_t)(q0 + t) * EDDY_SPH_LANES];
            float dx = xi - x[j], dy = yi - y[j], dz = zi - z[j], ex, ey, ez;
            eddy_sph_wrap(period, half, &dx, &dy, &dz);
            eddy_sph_image_of_diff(M, c0, dx, dy, dz, &ex, &ey, &ez);
            e2[t] = ex * ex + ey * ey + ez * ez;
        }
        for (uint32_t t = 0; t < m; ++t) {
            out[(size_t)n * stride] = index[(size_t)(q0 + t) * EDDY_SPH_LANES];
            n += e2[t] < h2;
        }
    }
    /* The particle's own ghost: x_i - M(x_i) = c0. */
    if (c0[0] * c0[0] + c0[1] * c0[1] + c0[2] * c0[2] < h2) out[(size_t)n++ * stride] = i;
    return n;
}

/*
 * Preconditions, not checked: nb built by eddy_sph_neighbors_build on these particles and positions,
 * h the build's smoothing radius.
 * Ghost rows: the mirror images of the walls within h of each near particle (gravity: the hydrostatic
 * pressure continuation, or NULL), found once at the current positions and kept (as
 * eddy_sph_neighbors_images), and for each block and image slot the ghosts within h of their lane's
 * particle, lane-interleaved like the neighbour rows: a lane's ghosts of its neighbours and of itself
 * through its image `slot`, then padding (its own particle, weight 0) to the slot's longest lane.
 *
 * Why: a mirror loop over every neighbour row computes ~37 ghosts per image of which ~5 lie within h
 * (those of the neighbours as close to the wall as the particle is far from it); a solver that sweeps
 * the same neighbourhoods many times a step (pbf: 2 x iterations passes with mirrors) selects them
 * once. Like the lists, the selection is that of the positions at this call: a ghost that comes
 * within h during the step's later passes has a kernel weight near 0, and the images are the tangent
 * planes at these positions (exact for flat walls).
 *
 * Call after eddy_sph_neighbors_build, on the same positions; eddy_sph_block_pass then hands each
 * block its rows (eddy_sph_block_ghost_diff between b->ghost_row[slot] and b->ghost_row[slot + 1]).
 * One parallel pass over runs of blocks, each writing into its own chunk. Returns 0, -1 when memory
 * runs out, or -2 when a chunk's rows would exceed 2^32 - 1.
 */
static inline int eddy_sph_neighbors_ghosts(eddy_sph_neighbors *nb, const eddy_boundaries *bd,
                                            const float gravity[3], float h, const eddy_particles *p)
{
    if (eddy_sph_neighbors_ghost_blocks(nb)) return -1;
    const long long blocks = (long long)nb->blocks;
    const long long chunks = blocks < EDDY_SPH_LIST_CHUNKS ? blocks : EDDY_SPH_LIST_CHUNKS;
    const float h2 = h * h;
    int failed = 0;
    EDDY_SPH_OMP(parallel for schedule(dynamic, 1) reduction(| : failed))
    for (long long c = 0; c < chunks; ++c) {
        eddy_sph_ghost_chunk *chunk = &nb->ghost_chunk[c];
        chunk->rows = 0;
        chunk->mirrors = 0;
        for (long long k = blocks * c / chunks; k < blocks * (c + 1) / chunks && !failed; ++k) {
            const size_t first = (size_t)k * EDDY_SPH_LANES;
            const uint32_t lanes =
                (uint32_t)(nb->owned - first < EDDY_SPH_LANES ? nb->owned - first : EDDY_SPH_LANES);
            /* A lane's most ghosts per image: its neighbours' and its own. */
            const uint32_t rows = nb->block_row[k + 1] - nb->block_row[k] + 1;
            const eddy_sph_image *img[EDDY_SPH_LANES];
            int n[EDDY_SPH_LANES], slots = 0;
            for (uint32_t lane = 0; lane < EDDY_SPH_LANES; ++lane) {
                const uint32_t i = nb->block_particle[first + lane];
                if (lane < lanes) eddy_sph_neighbors_find_images(nb, bd, gravity, h, p, i);
                n[lane] = lane < lanes ? eddy_sph_neighbors_images(nb, i, &img[lane]) : 0;
                slots = n[lane] > slots ? n[lane] : slots;
            }
            nb->ghost_first[k] = (uint32_t)chunk->rows;
            nb->ghost_chunk_of[k] = (uint16_t)c;
            for (int s = 0; s < EDDY_MAX_MIRRORS; ++s) nb->ghost_slot_rows[(size_t)k * EDDY_MAX_MIRRORS + s] = 0;
            if (slots && chunk->rows + (size_t)slots * rows > UINT32_MAX) {
                failed |= 2;
                break;
            }
            if (slots && (eddy_sph_ghost_chunk_reserve(chunk, (size_t)slots * rows) ||
                          eddy_sph_ghost_chunk_reserve_mirrors(chunk, (size_t)slots))) {
                failed |= 1;
                break;
            }
            nb->ghost_mirror_first[k] = (uint32_t)chunk->mirrors;
            nb->ghost_slots[k] = (unsigned char)slots;
            for (int s = 0; s < slots; ++s) {
                eddy_sph_block_mirror *m = &chunk->mirror[chunk->mirrors++];
                for (uint32_t lane = 0; lane < EDDY_SPH_LANES; ++lane) {
                    const eddy_sph_image *M = s < n[lane] ? &img[lane][s] : NULL;
                    for (int a = 0; a < 3; ++a) {
                        m->t[a][lane] = M ? M->t[a] : 0.0f;
                        for (int c = 0; c < 3; ++c) m->r[a][c][lane] = M ? M->r[a][c] : 0.0f;
                    }
                    m->on[lane] = M ? 1.0f : 0.0f;
                }
            }
            for (int s = 0; s < slots; ++s) {
                /* Each lane's ghosts down its column, then padding to the slot's longest column. */
                uint32_t *out = chunk->index + chunk->rows * EDDY_SPH_LANES;
                float *w = chunk->weight + chunk->rows * EDDY_SPH_LANES;
                uint32_t got[EDDY_SPH_LANES], most = 0;
                for (uint32_t lane = 0; lane < EDDY_SPH_LANES; ++lane) {
                    got[lane] = s < n[lane] ? eddy_sph_ghost_select(nb, p, (size_t)k, lane, &img[lane][s], h2,
                                                                     out + lane, EDDY_SPH_LANES)
                                            : 0;
                    most = got[lane] > most ? got[lane] : most;
                }
                for (uint32_t lane = 0; lane < EDDY_SPH_LANES; ++lane)
                    for (uint32_t g = 0; g < most; ++g) {
                        const size_t e = (size_t)g * EDDY_SPH_LANES + lane;
                        if (g >= got[lane]) out[e] = nb->block_particle[first + lane];
                        w[e] = g < got[lane] ? 1.0f : 0.0f;
                    }
                nb->ghost_slot_rows[(size_t)k * EDDY_MAX_MIRRORS + s] = most;
                chunk->rows += most;
            }
        }
    }
    if (failed) return failed & 2 ? -2 : -1;
    size_t row = nb->blocks ? nb->block_row[nb->blocks] : 0;
    for (long long c = 0; c < chunks; ++c) {
        nb->ghost_chunk[c].first = row;
        row += nb->ghost_chunk[c].rows;
    }
    nb->ghost_rows = row - (nb->blocks ? nb->block_row[nb->blocks] : 0);
    nb->ghosts = 1;
    return 0;
}

/* What a block pass hands a solver: one block of owned particles at a time, from several threads. */
typedef void (*eddy_sph_block_fn)(void *ctx, const eddy_sph_block *block);

/* Every block of nb, in parallel (dynamic schedule), the lanes' positions read from p. */
static inline void eddy_sph_block_pass(const eddy_sph_neighbors *nb, const eddy_particles *p, eddy_sph_block_fn fn,
                                       void *ctx)
{
    const long long blocks = (long long)nb->blocks;
    EDDY_SPH_OMP(parallel for schedule(dynamic, 16))
    for (long long k = 0; k < blocks; ++k) {
        eddy_sph_block b;
        b.first_row = nb->block_row[k];
        b.index = nb->block_index + (size_t)b.first_row * EDDY_SPH_LANES;
        b.particle = nb->block_particle + (size_t)k * EDDY_SPH_LANES;
        b.count = nb->block_count + (size_t)k * EDDY_SPH_LANES;
        b.rows = nb->block_row[k + 1] - nb->block_row[k];
        const size_t first = (size_t)k * EDDY_SPH_LANES;
        b.lanes = (uint32_t)(nb->owned - first < EDDY_SPH_LANES ? nb->owned - first : EDDY_SPH_LANES);
        for (uint32_t l = 0; l < EDDY_SPH_LANES; ++l) {
            const uint32_t i = b.particle[l];
            b.x[l] = p->x[i];
            b.y[l] = p->y[i];
            b.z[l] = p->z[i];
        }
        for (int a = 0; a < 3; ++a) {
            b.period[a] = nb->period[a];
            b.half_period[a] = nb->half_period[a];
        }
        b.uniform_mass = nb->uniform_mass;
        const eddy_sph_ghost_chunk *gc = nb->ghosts ? &nb->ghost_chunk[nb->ghost_chunk_of[k]] : NULL;
        b.ghost_index = gc ? gc->index : NULL;
        b.ghost_weight = gc ? gc->weight : NULL;
        uint32_t row = gc ? nb->ghost_first[k] : 0;
        for (int slot = 0; slot < EDDY_MAX_MIRRORS; ++slot) {
            b.ghost_row[slot] = row;
            row += nb->ghosts ? nb->ghost_slot_rows[(size_t)k * EDDY_MAX_MIRRORS + slot] : 0;
        }
        b.ghost_row[EDDY_MAX_MIRRORS] = row;
        b.ghost_mirror = gc && gc->mirror ? gc->mirror + nb->ghost_mirror_first[k] : NULL;
        b.ghost_slots = gc ? nb->ghost_slots[k] : 0;
        b.ghost_first = gc ? gc->first : 0;
        fn(ctx, &b);
    }
}

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_NEIGHBORS_H */
