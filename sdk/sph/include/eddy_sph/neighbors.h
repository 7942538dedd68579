/*
 * eddy_sph/neighbors.h — per-particle neighbour lists with the walls' mirror images, for a solver that
 * sweeps the same neighbourhoods many times a step (pbf's Jacobi iterations).
 *
 * Why a second neighbour path beside the cell pass (gather.h): the cell pass gathers the ~170
 * candidates of a cell's 3-cell bars afresh in every pass and each particle sums over all of them,
 * ~27 of which are within h. A solver with two passes a step (density, forces) pays that twice; a
 * position-based solver runs 2 x iterations + 2 passes over the same neighbourhoods (10 at pbf's
 * default of 4 iterations). The core's CSR lists of the neighbours within h
 * (eddy_grid_build_neighbor_lists), built once a step, make each pass a gather of ~27 entries:
 * pbf's 4 lambda passes on the 3D dam break (103 680 particles, 2 threads, 27 neighbours within h)
 * took 48-56 ms from the lists against 159-164 ms on eddy_sph_cell_pass (docs/toolkit.md).
 *
 * The lists are those of the positions at the build; a solver that moves particles between its
 * passes (pbf's position corrections, a small fraction of h per iteration) keeps them for the step:
 * a pair that crosses h in between has a kernel weight near 0 either way.
 *
 * Walls: eddy_sph_neighbors_build marks the particles within `reach` of a surface ("near"); only
 * those get mirror images (eddy_sph_neighbors_find_images, at the positions of that pass; kept for
 * later passes at the same positions: eddy_sph_neighbors_images). A list's last entry is the particle
 * itself (difference 0), so one SIMD loop per mirror over the list's differences, mapped by the
 * image (x_i - M(x_j) = c0 + R (x_i - x_j), eddy_sph_image_origin), covers the ghosts of the
 * neighbours and of the particle itself.
 *
 * Order: each list is sorted by particle index and the mirrors come in the core's order, so every sum
 * over a list is bit-identical for any number of threads.
 *
 * Threads: build, find_images for distinct particles and the pass's callbacks run in parallel; one
 * eddy_sph_list per thread (eddy_sph_particle_pass makes them).
 */
#ifndef EDDY_SPH_NEIGHBORS_H
#define EDDY_SPH_NEIGHBORS_H

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

typedef struct eddy_sph_neighbors {
    const uint32_t *offset, *index; /* the grid's CSR lists: valid until its next build */
    const eddy_grid_layout *layout; /* periodic minimum image */
    int periodic;
    uint32_t longest;   /* the longest list */
    float uniform_mass; /* every particle's mass when all are equal, else 0 */
    size_t count;       /* particles at the build */
    unsigned char *near;          /* 1: within reach of a surface at the build */
    unsigned char *image_count;   /* images of a near particle found last */
    uint32_t *image_slot;         /* first of EDDY_MAX_MIRRORS slots of a near particle in images */
    eddy_sph_image *images;
    size_t capacity, image_capacity;
} eddy_sph_neighbors;

/* The per-particle arrays for n particles (eddy_sph_neighbors_build's helper). Returns 0, or -1 when
 * memory runs out. */
int eddy_sph_neighbors_reserve(eddy_sph_neighbors *nb, size_t n);

/* Image slots for the near particles, counts reset (eddy_sph_neighbors_build's helper). Returns 0, or -1
 * when memory runs out. */
int eddy_sph_neighbors_slots(eddy_sph_neighbors *nb);

/*
 * Builds the grid's CSR lists within h of the particles (the grid must be built on them), marks the
 * particles within `reach` of a surface of `b` (none when b has no collider) and sizes the image
 * slots. `who` prefixes the error message (the solver id). Returns EDDY_OK, or the error of the list
 * build, or EDDY_ERR_OUT_OF_MEMORY. Inline, so the static library needs no OpenMP.
 */
static inline int eddy_sph_neighbors_build(eddy_sph_neighbors *nb, eddy_grid *g, const eddy_particles *p,
                                           const eddy_boundaries *b, float h, float reach, const char *who,
                                           eddy_error *err)
{
    int rc = eddy_grid_build_neighbor_lists(g, p, h, err);
    if (rc) return rc;
    const size_t n = p->count;
    if (eddy_sph_neighbors_reserve(nb, n))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu particles", who, n);
    nb->offset = g->nbr_offset;
    nb->index = g->nbr_index;
    nb->layout = &g->layout;
    nb->periodic = g->layout.periodic[0] || g->layout.periodic[1] || g->layout.periodic[2];
    nb->count = n;
    const long long nl = (long long)n;
    const int walls = b->collider_count > 0;
    const uint32_t *off = g->nbr_offset;
    const float *mass = p->mass;
    unsigned char *near = nb->near;
    uint32_t longest = 0;
    float mmin = n ? mass[0] : 0.0f, mmax = mmin;
    EDDY_SPH_OMP(parallel for schedule(static) reduction(max : longest, mmax) reduction(min : mmin))
    for (long long i = 0; i < nl; ++i) {
        mmin = mass[i] < mmin ? mass[i] : mmin;
        mmax = mass[i] > mmax ? mass[i] : mmax;
        const eddy_real pos[3] = {p->x[i], p->y[i], p->z[i]};
        near[i] = walls && eddy_boundaries_distance(b, pos, NULL, NULL) < reach;
        const uint32_t len = off[i + 1] - off[i];
        longest = len > longest ? len : longest;
    }
    nb->longest = longest;
    nb->uniform_mass = n && mmin == mmax ? mmin : 0.0f;
    if (eddy_sph_neighbors_slots(nb))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory for the wall mirrors", who);
    return EDDY_OK;
}

void eddy_sph_neighbors_free(eddy_sph_neighbors *nb);

/*
 * The mirror images of the walls within h of particle i at its current position (gravity: the
 * hydrostatic pressure continuation, or NULL), stored for eddy_sph_neighbors_images; 0 for a particle
 * that was not near a surface at the build. Threads: distinct particles in parallel.
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
 * One particle's list, gathered contiguous for SIMD loops: differences x_i - x_j (periodic minimum
 * image applied), masses and up to EDDY_SPH_MAX_EXTRA solver arrays. Entries [0, count) are the
 * neighbours, entry [count] the particle itself (difference 0).
 */
typedef struct eddy_sph_list {
    uint32_t count;
    const uint32_t *index; /* the neighbours' particle indices (count entries) */
    float *dx, *dy, *dz, *m;
    float *extra[EDDY_SPH_MAX_EXTRA];
    int extra_count;
    size_t capacity;
    void *block;
} eddy_sph_list;

static inline eddy_sph_list eddy_sph_list_make(int extra_count)
{
    eddy_sph_list l;
    memset(&l, 0, sizeof l);
    l.extra_count = extra_count < 0 ? 0 : extra_count > EDDY_SPH_MAX_EXTRA ? EDDY_SPH_MAX_EXTRA : extra_count;
    return l;
}

/* Room for the longest list of nb and the particle itself; with a uniform mass the masses are filled
 * here once and eddy_sph_list_gather leaves them alone. Returns 0, or -1 when memory runs out. */
int eddy_sph_list_reserve(eddy_sph_list *l, const eddy_sph_neighbors *nb);

void eddy_sph_list_free(eddy_sph_list *l);

/* Gathers particle i's list (differences, masses) at the current positions. */
static inline void eddy_sph_list_gather(eddy_sph_list *l, const eddy_sph_neighbors *nb, const eddy_particles *p,
                                        uint32_t i)
{
    const uint32_t begin = nb->offset[i], nn = nb->offset[i + 1] - begin;
    const uint32_t *idx = nb->index + begin;
    const float *x = p->x, *y = p->y, *z = p->z, *mass = p->mass;
    const float xi = x[i], yi = y[i], zi = z[i];
    const int masses = !(nb->uniform_mass > 0.0f);
    float *dx = l->dx, *dy = l->dy, *dz = l->dz, *m = l->m;
    for (uint32_t q = 0; q < nn; ++q) {
        const uint32_t j = idx[q];
        dx[q] = xi - x[j];
        dy[q] = yi - y[j];
        dz[q] = zi - z[j];
        if (masses) m[q] = mass[j];
    }
    dx[nn] = dy[nn] = dz[nn] = 0.0f;
    if (masses) m[nn] = mass[i];
    if (nb->periodic)
        for (uint32_t q = 0; q < nn; ++q) eddy_grid_min_image(nb->layout, &dx[q], &dy[q], &dz[q]);
    l->count = nn;
    l->index = idx;
}

/* extra[slot][q] = src[index[q]] for the neighbours and src[i] for the particle itself. */
static inline void eddy_sph_list_field(eddy_sph_list *l, int slot, const float *src, uint32_t i)
{
    float *dst = l->extra[slot];
    const uint32_t *idx = l->index, nn = l->count;
    for (uint32_t q = 0; q < nn; ++q) dst[q] = src[idx[q]];
    dst[nn] = src[i];
}

/* What a particle pass hands a solver for each owned particle i: its gathered list (solver arrays not
 * yet). Called from several threads at once, each for its own particles. */
typedef void (*eddy_sph_particle_fn)(void *ctx, uint32_t i, eddy_sph_list *list);

/*
 * The loop every list pass shares: parallel over the particles in a dynamic schedule, halo copies
 * skipped (their owner computes them), one list per thread with `extra_count` solver arrays, the
 * gather, then fn(ctx, i, list). Inline, so the solver's static callback inlines into the loop and
 * the static library needs no OpenMP. Returns 0, or -1 when memory ran out (the caller reports
 * EDDY_ERR_OUT_OF_MEMORY).
 */
static inline int eddy_sph_particle_pass(const eddy_sph_neighbors *nb, const eddy_particles *p, int extra_count,
                                         eddy_sph_particle_fn fn, void *ctx)
{
    const long long n = (long long)p->count;
    int failed = 0;
    EDDY_SPH_OMP(parallel reduction(| : failed))
    {
        eddy_sph_list l = eddy_sph_list_make(extra_count);
        if (eddy_sph_list_reserve(&l, nb)) failed = 1;
        EDDY_SPH_OMP(for schedule(dynamic, 256))
        for (long long i = 0; i < n; ++i) {
            if (failed || eddy_particle_is_halo(p, (size_t)i)) continue;
            eddy_sph_list_gather(&l, nb, p, (uint32_t)i);
            fn(ctx, (uint32_t)i, &l);
        }
        eddy_sph_list_free(&l);
    }
    return failed ? -1 : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_NEIGHBORS_H */
