/*
 * eddy_sph/gather.h — candidate neighbours of a cell, and the mirror ghosts as affine images of them.
 *
 * A solver's pass runs over the occupied cells of the grid; for each cell it gathers the candidates of
 * the cell's 3-cell bars (eddy_grid_cell_ranges, in their fixed order) that the cell's particles can
 * reach (eddy_sph_box: ~80 of ~200 at rest) into contiguous arrays with the periodic shift applied, and
 * every particle of the cell then runs one long SIMD loop over them instead of up to eighteen short
 * ones (Bullet-Fluids reference (2014) §4.3.1). The gather is shared by the ~8 particles of a cell. The
 * candidates include the particle itself.
 *
 * Mirror ghosts (<eddy/boundary.h>): the ghost of candidate j seen from particle i is M(x_j) =
 * R x_j + t, so x_i - M(x_j) = (x_i - t) - R x_j, an affine image of the gathered positions. Every
 * ghost within h of i is the image of a candidate within h of i, so one more SIMD loop over the same
 * buffer per mirror finds them all, with no test per candidate (pbf's trick, generalized).
 *
 * Order: every sum visits the candidates in the grid's fixed order and the mirrors in the core's
 * order, so results do not depend on the number of threads.
 *
 * Threads: one eddy_sph_candidates per thread; the functions are otherwise pure.
 *
 * Units: positions and distances in sim units, masses in kg (kg/m in 2D), as the particles hold them.
 *
 * Preconditions (the functions here return no status, or only -1 for memory, and do not check them):
 * pointers not NULL unless a comment says so; the grid built on the particles it is passed with
 * (eddy_world_build_grid) and a cell index one of its cells; h > 0 where a support radius is taken
 * (h = 0 sums nothing, h < 0 and NaN give meaningless sums); extra slots in 0 .. extra_count - 1 and
 * every per-particle or per-material array long enough for the indices it is read with. The checked
 * entry points are the neighbour lists' build (neighbors.h) and the material tables (materials.h).
 */
#ifndef EDDY_SPH_GATHER_H
#define EDDY_SPH_GATHER_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <eddy/boundary.h>
#include <eddy/grid.h>
#include <eddy/particles.h>

#include "defs.h"
#include "kernels.h"
#include "simd_path.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `omp simd reduction(+ : a, b, ...)` where OpenMP (or -fopenmp-simd) is on, nothing otherwise (so
 * a plugin built without OpenMP gets no unknown-pragma warning). */
#define EDDY_SPH_STR_(...) #__VA_ARGS__
#if defined(_OPENMP) && !defined(__CUDACC__)
#define EDDY_SPH_SIMD_SUM(...) _Pragma(EDDY_SPH_STR_(omp simd reduction(+ : __VA_ARGS__)))
#else
#define EDDY_SPH_SIMD_SUM(...)
#endif

/* `omp parallel ...` and `omp for ...` in the toolkit's inline passes, nothing without OpenMP. */
#if defined(_OPENMP) && !defined(__CUDACC__)
#define EDDY_SPH_OMP(...) _Pragma(EDDY_SPH_STR_(omp __VA_ARGS__))
#else
#define EDDY_SPH_OMP(...)
#endif

/* Per-candidate arrays a solver may add to the positions (e.g. velocities, pressure, volumes). */
#define EDDY_SPH_MAX_EXTRA 16

struct eddy_sph_group;

typedef struct eddy_sph_candidates {
    size_t count, capacity;
    float *x, *y, *z;  /* positions with the periodic shift applied */
    float *m;          /* masses */
    uint32_t *index;   /* particle index of each candidate */
    float *extra[EDDY_SPH_MAX_EXTRA]; /* slots 0 .. extra_count-1, filled by the solver */
    int extra_count;
    void *block;
    /* The gather's record of where the candidates came from, eight particles at a time, which lets
     * eddy_sph_gather_fields load particle arrays in rows instead of through the indices (AVX2 path
     * only). Valid while count is the count it was recorded for (grouped_count, SIZE_MAX for none):
     * code that narrows the buffer in order (a subset, in the same order) changes count when it drops
     * anything; code that rewrites index[] in any other way must set grouped_count to SIZE_MAX. */
    struct eddy_sph_group *group;
    size_t group_count, grouped_count;
} eddy_sph_candidates;

/* An empty buffer with `extra_count` (0 .. EDDY_SPH_MAX_EXTRA; a value outside is clamped to that
 * range) solver arrays; memory comes with the first gather and is owned by the buffer. Free with
 * eddy_sph_candidates_free. */
static inline eddy_sph_candidates eddy_sph_candidates_make(int extra_count)
{
    eddy_sph_candidates c;
    memset(&c, 0, sizeof c); /* not = {0}: C++ callers warn about the members it leaves out */
    c.extra_count = extra_count < 0 ? 0 : extra_count > EDDY_SPH_MAX_EXTRA ? EDDY_SPH_MAX_EXTRA : extra_count;
    return c;
}

/* Frees the buffer's memory and empties it, keeping extra_count, so the buffer may gather again (it
 * then allocates anew) or be freed twice. NULL-safe. */
void eddy_sph_candidates_free(eddy_sph_candidates *c);

/*
 * Where a gather keeps candidates: within sqrt(reach2) of the box [lo, hi]. The box bounds the
 * particles a pass computes for, reach is the grid's smallest cell size (>= h, eddy_grid_layout), so
 * every neighbour within h of those particles is kept and the candidates no particle of the cell can
 * reach are not. The 3-cell bars hold 27 cell volumes; the points within h of one cell hold at most
 * 20.6 (the Minkowski sum of the cube and the ball), and of the ~8 particles of a cell on a lattice of
 * h/2, whose box is (h/2)^3, 10.5: about 80 of ~200 candidates, so every pair loop after the gather
 * runs 2.5 times fewer iterations. reach2 carries a margin of 1e-5 so that the test never drops a
 * pair that a pass's own distance, in whatever order it rounds, puts within h.
 */
typedef struct eddy_sph_box {
    float lo[3], hi[3];
    float reach2;
} eddy_sph_box;

/* An empty box (it reaches nothing) with the reach of grid layout `l`. */
static inline eddy_sph_box eddy_sph_box_empty(const eddy_grid_layout *l)
{
    eddy_sph_box b;
    float reach = (float)l->cell_size[0];
    for (int a = 1; a < l->dimensions; ++a)
        if ((float)l->cell_size[a] < reach) reach = (float)l->cell_size[a];
    b.reach2 = reach * reach * (1.0f + 1e-5f);
    for (int a = 0; a < 3; ++a) b.lo[a] = INFINITY, b.hi[a] = -INFINITY;
    return b;
}

/* The box grown to hold the point (x, y, z). */
static inline void eddy_sph_box_add(eddy_sph_box *b, float x, float y, float z)
{
    const float v[3] = {x, y, z};
    for (int a = 0; a < 3; ++a) {
        b->lo[a] = v[a] < b->lo[a] ? v[a] : b->lo[a];
        b->hi[a] = v[a] > b->hi[a] ? v[a] : b->hi[a];
    }
}

/* Squared distance of coordinate v from [lo, hi] (0 inside). Branch-free. */
EDDY_SPH_INLINE float eddy_sph_box_gap2(float v, float lo, float hi)
{
    const float below = lo - v, above = v - hi;
    float d = below > above ? below : above;
    d = d > 0.0f ? d : 0.0f;
    return d * d;
}

/* Whether a gather keeps a candidate at (x, y, z) (its position as the buffer holds it, shifted into
 * the cell's periodic image). Monotone in the box: a box inside another keeps a subset of its
 * candidates, exactly, as float rounding is monotone; a pass that drops some particles of a cell
 * (vpm_hybrid's tracers) can so narrow the candidates to its own box after the gather. */
EDDY_SPH_INLINE int eddy_sph_box_reaches(const eddy_sph_box *b, float x, float y, float z)
{
    return eddy_sph_box_gap2(x, b->lo[0], b->hi[0]) + eddy_sph_box_gap2(y, b->lo[1], b->hi[1]) +
               eddy_sph_box_gap2(z, b->lo[2], b->hi[2]) <=
           b->reach2;
}

/*
 * Gathers the candidates of `cell`: the particles of its 3-cell bars that the box of the cell's
 * particles reaches (eddy_sph_box; none for an empty cell), positions shifted into the cell's periodic
 * image, masses and indices, in the grid's fixed order. Every neighbour within h of a particle of the
 * cell is among them, each once. Returns 0, or -1 when memory runs out (the caller reports
 * EDDY_ERR_OUT_OF_MEMORY; the buffer is then as before the call). g must be built on p and `cell` be
 * one of its cells (not checked). The buffer's extra arrays are not written.
 */
int eddy_sph_gather(eddy_sph_candidates *c, const eddy_grid *g, const eddy_particles *p, uint32_t cell);

/*
 * extra[slot[f]][q] = src[f][index[q]] for every candidate and each of the n per-particle arrays src
 * (slots in 0 .. extra_count - 1). On the AVX2 path, right after eddy_sph_gather, each array is read
 * in rows of eight particles the gather recorded and packed with one permutation (a quarter of
 * sph_mueller's force pass went to these copies through the indices); the values are the same either
 * way. The rows include particles that are not candidates (up to 7 before a cell range), so no thread
 * may write a source array during the pass that reads it. Writes extra[slot[f]][0 .. count + 7] at
 * most (within capacity). Preconditions, asserted in debug builds only: n >= 0 and every slot[f] in
 * 0 .. extra_count - 1 (another slot writes through a missing array); each src[f] holds a value for
 * every particle of the gather's grid. A candidate buffer edited after the gather follows the rule at
 * grouped_count (above).
 */
void eddy_sph_gather_fields(eddy_sph_candidates *c, int n, const int slot[], const float *const src[]);

/* eddy_sph_gather_fields for one array. */
static inline void eddy_sph_gather_field(eddy_sph_candidates *c, int slot, const float *src)
{
    eddy_sph_gather_fields(c, 1, &slot, &src);
}

/* extra[slot][q] = table[material[index[q]]]: a per-material value of every candidate (slot in
 * 0 .. extra_count - 1; table with an entry for every material index, as eddy_sph_materials' tables of
 * the world are: the core refuses particles of a material the world lacks). Not checked. */
static inline void eddy_sph_gather_table(eddy_sph_candidates *c, int slot, const float *table,
                                         const uint32_t *material)
{
    float *dst = c->extra[slot];
    const uint32_t *idx = c->index;
    for (size_t q = 0; q < c->count; ++q) dst[q] = table[material[idx[q]]];
}

/*
 * One mirror seen from particle i: x_i - M(x_j) = c - R x_j, ghost velocity V v_j + v, ghost pressure
 * p_j + rho_j (s . x_j + s0) (<eddy/boundary.h>). V is R for free-slip walls (the core's mirror:
 * the normal velocity relative to the wall reversed) and -I per reflection for no-slip walls
 * (eddy_sph_wall_images).
 */
typedef struct eddy_sph_image {
    float r[3][3];
    float c[3];  /* x_i - mirror offset */
    float t[3];  /* mirror offset */
    float vr[3][3]; /* velocity map V */
    float v[3];  /* velocity offset */
    float s[3], s0; /* pressure slope and offset */
} eddy_sph_image;

/* The core's mirror as an image: free-slip velocity (V = R). */
EDDY_SPH_INLINE void eddy_sph_image_make(const eddy_mirror *m, float xi, float yi, float zi,
                                         eddy_sph_image *out)
{
    const float x[3] = {xi, yi, zi};
    for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) out->r[a][b] = out->vr[a][b] = m->rotation[a][b];
        out->c[a] = x[a] - m->offset[a];
        out->t[a] = m->offset[a];
        out->v[a] = m->velocity_offset[a];
        out->s[a] = m->pressure_slope[a];
    }
    out->s0 = m->pressure_offset;
}

/* x_i - M(x_j) for a candidate at (xj, yj, zj). */
EDDY_SPH_INLINE void eddy_sph_image_diff(const eddy_sph_image *g, float xj, float yj, float zj, float *ex,
                                         float *ey, float *ez)
{
    *ex = g->c[0] - (g->r[0][0] * xj + g->r[0][1] * yj + g->r[0][2] * zj);
    *ey = g->c[1] - (g->r[1][0] * xj + g->r[1][1] * yj + g->r[1][2] * zj);
    *ez = g->c[2] - (g->r[2][0] * xj + g->r[2][1] * yj + g->r[2][2] * zj);
}

/* For buffers of differences d = x_i - x_j instead of positions: x_i - M(x_j) = c0 + R d with
 * c0 = x_i - R x_i - t, computed here. */
EDDY_SPH_INLINE void eddy_sph_image_origin(const eddy_sph_image *g, float xi, float yi, float zi, float c0[3])
{
    const float x[3] = {xi, yi, zi};
    for (int a = 0; a < 3; ++a) c0[a] = x[a] - (g->r[a][0] * xi + g->r[a][1] * yi + g->r[a][2] * zi) - g->t[a];
}

/* x_i - M(x_j) = c0 + R d from a difference d = x_i - x_j and c0 of eddy_sph_image_origin. */
EDDY_SPH_INLINE void eddy_sph_image_of_diff(const eddy_sph_image *g, const float c0[3], float dx, float dy, float dz,
                                            float *ex, float *ey, float *ez)
{
    *ex = c0[0] + g->r[0][0] * dx + g->r[0][1] * dy + g->r[0][2] * dz;
    *ey = c0[1] + g->r[1][0] * dx + g->r[1][1] * dy + g->r[1][2] * dz;
    *ez = c0[2] + g->r[2][0] * dx + g->r[2][1] * dy + g->r[2][2] * dz;
}

/* Ghost velocity V v_j + v. */
EDDY_SPH_INLINE void eddy_sph_image_velocity(const eddy_sph_image *g, float vx, float vy, float vz, float *gx,
                                             float *gy, float *gz)
{
    *gx = g->vr[0][0] * vx + g->vr[0][1] * vy + g->vr[0][2] * vz + g->v[0];
    *gy = g->vr[1][0] * vx + g->vr[1][1] * vy + g->vr[1][2] * vz + g->v[1];
    *gz = g->vr[2][0] * vx + g->vr[2][1] * vy + g->vr[2][2] * vz + g->v[2];
}

/* Ghost pressure p_j + rho_j (s . x_j + s0), the hydrostatic continuation through the wall. */
EDDY_SPH_INLINE float eddy_sph_image_pressure(const eddy_sph_image *g, float p, float rho, float xj, float yj,
                                              float zj)
{
    return p + rho * (g->s[0] * xj + g->s[1] * yj + g->s[2] * zj + g->s0);
}

/*
 * Copies the candidates within r2max (squared distance) of (xi, yi, zi), with their masses, indices
 * and every extra array, into `near`, a buffer other than c (one made with another extra_count is laid
 * out anew for c's, and its extra_count becomes c's). Every mirror ghost within h of
 * particle i is the image of a candidate within h (<eddy/boundary.h>), so a particle at a wall may run
 * its per-mirror loops over these ~30 entries. The in-tree solvers no longer do: since the gather
 * keeps only the ~80 candidates a cell reaches, a masked loop over all of them per mirror costs less
 * than this copy (3D dam break, 1 thread: -10% a step at 10k and 100k particles; docs/performance.md).
 * Returns 0, or -1 when memory runs out.
 */
int eddy_sph_select(const eddy_sph_candidates *c, float xi, float yi, float zi, float r2max,
                    eddy_sph_candidates *near);

/* The positions in c (0 .. count - 1) of the candidates closer than r2max (squared distance) to
 * (xi, yi, zi), in the buffer's order, written to out (room for c->count); returns how many. The
 * first stage of eddy_sph_select and of the neighbour lists' build. */
size_t eddy_sph_hits(const eddy_sph_candidates *c, float xi, float yi, float zi, float r2max, uint32_t *out);

/* The vector path eddy_sph_gather and eddy_sph_hits run (they are compiled in the static library for
 * the baseline and for AVX2): EDDY_SIMD's at the process's first call (AVX-512 runs the AVX2 code; a
 * value the CPU cannot run, or no path's name, leaves the default), else avx2 where the CPU runs it.
 * Later changes of EDDY_SIMD are not seen. Every path gives the same candidates and hits in the same
 * order. Thread-safe. */
eddy_sph_simd eddy_sph_gather_simd(void);

/*
 * The mirrors of the walls within `reach` of (xi, yi, zi) as images (0 when none), with free-slip
 * ghost velocities. gravity: the hydrostatic pressure continuation, or NULL for mirrored pressure.
 * Returns how many images were written to out (at most EDDY_MAX_MIRRORS, in the core's order:
 * eddy_boundaries_mirrors). Pure; [any thread].
 */
int eddy_sph_images(const eddy_boundaries *b, const float gravity[3], float reach, float xi, float yi,
                    float zi, eddy_sph_image out[EDDY_MAX_MIRRORS]);

/*
 * Whether a particle of cell c, at its current position, may be within `reach` of a surface of b and so
 * have mirror images: 0 when the bounding box of the cell's particles lies on the fluid side of every
 * collider, farther than reach from it, and a pass may then skip the per-particle search
 * (eddy_sph_images / eddy_sph_wall_images would return 0 for each of them: ~80% of the particles of a
 * dam break at rest, where the search was 6-8% of a step), and every particle's signed distance
 * (eddy_boundaries_distance) is at least reach. Exact in that sense: a collider's signed distance
 * changes by at most the distance moved (planes, boxes and spheres), so every particle of the box is at
 * least d(centre) - half its diagonal from the surface, and the test keeps a margin of 0.1% of reach
 * plus float rounding. 1 when it cannot tell, and for a box inside a solid. Threads: any number at
 * once (reads only).
 */
int eddy_sph_cell_near_walls(const eddy_boundaries *b, const eddy_grid *g, const eddy_particles *p, uint32_t c,
                             float reach);

/*
 * What the ghosts' velocity makes of a wall. Slip: the core's mirror, R v_j plus the wall's normal
 * velocity (the normal velocity relative to the wall reversed, the tangential kept), so the viscous
 * force sees no shear at the wall. No slip: the whole velocity relative to the wall reversed,
 * 2 v_wall - v_j, so the velocity falls linearly to v_wall at the wall (the mirror form of Morris, Fox
 * & Zhu 1997 §3.3's extrapolated boundary velocities; Takeda, Miyama & Sekiya 1994); at a corner the
 * reflections compose, 2 v_w2 - (2 v_w1 - v_j). v_wall is the collider's whole `velocity`, so a wall
 * sliding along itself (Couette flow) drags the fluid. Positions and pressures are the same either way.
 */
typedef enum eddy_sph_wall_velocity { EDDY_SPH_WALL_SLIP = 0, EDDY_SPH_WALL_NO_SLIP = 1 } eddy_sph_wall_velocity;

/* {"slip", "no_slip", NULL}, indexed by eddy_sph_wall_velocity: the choices of a solver's enum
 * parameter (EDDY_PARAM_ENUM_DESC) that selects it. */
extern const char *const eddy_sph_wall_velocity_choices[];

/* eddy_sph_images with the ghost velocities of `wall` (EDDY_SPH_WALL_SLIP gives eddy_sph_images'
 * images bit for bit; a value other than EDDY_SPH_WALL_NO_SLIP is slip). Pure; [any thread]. */
int eddy_sph_wall_images(const eddy_boundaries *b, const float gravity[3], float reach, eddy_sph_wall_velocity wall,
                         float xi, float yi, float zi, eddy_sph_image out[EDDY_MAX_MIRRORS]);

/* sum_j of `kernel`'s mass term (eddy_sph_kernel_mass_term: poly6 or Wendland C2, without the kernel's
 * coefficient) over the candidates, the particle itself among them; inv_h = 1 / h (Wendland's). A
 * constant kernel leaves one loop after inlining. */
static inline float eddy_sph_density_real_kernel(const eddy_sph_candidates *c, float xi, float yi, float zi, float h2,
                                                 float inv_h, eddy_sph_kernel kernel)
{
    const size_t nc = c->count;
    const float *cx = c->x, *cy = c->y, *cz = c->z, *cm = c->m;
    float sum = 0.0f;
    EDDY_SPH_SIMD_SUM(sum)
    for (size_t q = 0; q < nc; ++q) {
        float dx = xi - cx[q], dy = yi - cy[q], dz = zi - cz[q];
        sum += eddy_sph_kernel_mass_term(kernel, cm[q], h2, inv_h, dx * dx + dy * dy + dz * dz);
    }
    return sum;
}

/* The same sum over the ghosts of the candidates in `nimg` mirrors, one SIMD loop per mirror. */
static inline float eddy_sph_density_ghosts_kernel(const eddy_sph_candidates *c, float h2, float inv_h,
                                                   eddy_sph_kernel kernel, const eddy_sph_image *img, int nimg)
{
    const size_t nc = c->count;
    const float *cx = c->x, *cy = c->y, *cz = c->z, *cm = c->m;
    float sum = 0.0f;
    for (int mi = 0; mi < nimg; ++mi) {
        const eddy_sph_image g = img[mi];
        float ghosts = 0.0f;
        EDDY_SPH_SIMD_SUM(ghosts)
        for (size_t q = 0; q < nc; ++q) {
            float ex, ey, ez;
            eddy_sph_image_diff(&g, cx[q], cy[q], cz[q], &ex, &ey, &ez);
            ghosts += eddy_sph_kernel_mass_term(kernel, cm[q], h2, inv_h, ex * ex + ey * ey + ez * ez);
        }
        sum += ghosts;
    }
    return sum;
}

/* sum_j m_j (h^2 - r_ij^2)^3 over the candidates: the poly6 density sum without its coefficient (the
 * particle itself is a candidate). Multiply by k.poly6 and add the self term (eddy_sph_density). */
static inline float eddy_sph_density_real(const eddy_sph_candidates *c, float xi, float yi, float zi, float h2)
{
    return eddy_sph_density_real_kernel(c, xi, yi, zi, h2, 0.0f, EDDY_SPH_POLY6);
}

/* The same sum over the ghosts of the candidates in `nimg` mirrors, one SIMD loop per mirror (pass the
 * candidates, or the ones within h of i from eddy_sph_select: the same sum, faster). */
static inline float eddy_sph_density_ghosts(const eddy_sph_candidates *c, float h2, const eddy_sph_image *img,
                                            int nimg)
{
    return eddy_sph_density_ghosts_kernel(c, h2, 0.0f, EDDY_SPH_POLY6, img, nimg);
}

/* Both: the density sum of particle i with the walls' ghosts. */
static inline float eddy_sph_density_sum(const eddy_sph_candidates *c, float xi, float yi, float zi, float h2,
                                         const eddy_sph_image *img, int nimg)
{
    return eddy_sph_density_real(c, xi, yi, zi, h2) + eddy_sph_density_ghosts(c, h2, img, nimg);
}

/* Whether cell c holds a particle this process owns. A cell of halo copies only needs no pass: their
 * owners compute them (<eddy/world.h>). On two processes of ~100k particles each, a fifth of the
 * particles a process holds are halo copies, and gathering their cells cost 9-12% of the density and
 * force passes (docs/performance.md, "Several processes"). */
static inline int eddy_sph_cell_owned(const eddy_grid *g, const eddy_particles *p, uint32_t c)
{
    if (p->halo_count == 0) return 1;
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i)
        if (!eddy_particle_is_halo(p, i)) return 1;
    return 0;
}

/*
 * What a cell pass hands a solver for each occupied cell: the cell's candidates (gathered, solver
 * arrays not yet), a second buffer with the same layout for eddy_sph_select, and this thread's running
 * maximum (of an acceleration, a speed: the pass returns the maximum over all threads). Returns 0, or
 * -1 when memory ran out. Called from several threads at once, each for its own cells.
 */
typedef int (*eddy_sph_cell_fn)(void *ctx, uint32_t cell, eddy_sph_candidates *cand, eddy_sph_candidates *near,
                                float *max);

/* Whether a cell needs its candidates (NULL: every cell does). A cell that does not is handed an
 * empty candidate buffer. */
typedef int (*eddy_sph_cell_wants_fn)(void *ctx, uint32_t cell);

/*
 * The loop every neighbour pass shares: parallel over the grid's occupied cells in a dynamic schedule,
 * per-thread buffers with `extra_count` solver arrays, one gather per cell, then cell(ctx, c, ...).
 * Cells that hold halo copies only are skipped, callback included (eddy_sph_cell_owned). The
 * candidates come in the grid's fixed order, so a solver's sums do not depend on the thread count.
 * Inline, so the solver's static callbacks inline into the loop and the static library needs no OpenMP.
 * Returns 0, or -1 when memory ran out (the caller reports EDDY_ERR_OUT_OF_MEMORY); *max_out (may be
 * NULL) receives the largest of the callbacks' maxima, 0 when none raised it.
 */
static inline int eddy_sph_cell_pass(const eddy_grid *g, const eddy_particles *p, int extra_count,
                                     eddy_sph_cell_wants_fn wants, eddy_sph_cell_fn cell, void *ctx, float *max_out)
{
    const long long cells = (long long)g->occupied_count;
    int failed = 0;
    float max = 0.0f;
    EDDY_SPH_OMP(parallel reduction(| : failed) reduction(max : max))
    {
        eddy_sph_candidates cand = eddy_sph_candidates_make(extra_count),
                            near = eddy_sph_candidates_make(extra_count);
        EDDY_SPH_OMP(for schedule(dynamic, 8))
        for (long long ci = 0; ci < cells; ++ci) {
            const uint32_t c = g->occupied[ci];
            if (failed || !eddy_sph_cell_owned(g, p, c)) continue;
            if (!wants || wants(ctx, c)) {
                if (eddy_sph_gather(&cand, g, p, c)) {
                    failed = 1;
                    continue;
                }
            } else {
                cand.count = 0;
            }
            if (cell(ctx, c, &cand, &near, &max)) failed = 1;
        }
        eddy_sph_candidates_free(&cand);
        eddy_sph_candidates_free(&near);
    }
    if (max_out) *max_out = max;
    return failed ? -1 : 0;
}

/* What the density pass hands a solver for each owned particle i: the sum of eddy_sph_density_sum
 * (candidates and walls' ghosts, without the poly6 coefficient); the solver applies its self term and
 * equation of state. Called from several threads at once, each for its own particles. */
typedef void (*eddy_sph_density_fn)(void *ctx, uint32_t i, float sum);

/*
 * One cell of the density pass: for each owned particle of cell c the sum of `kernel`'s mass terms
 * (EDDY_SPH_POLY6 or EDDY_SPH_WENDLAND, without the coefficient) over the candidates plus, near a wall,
 * over the ghosts of the candidates, then finish(ctx, i, sum). gravity: the mirrors' hydrostatic
 * pressure continuation (NULL: none); it does not enter the density. Always inlined, so that a solver's
 * per-ISA cell callbacks (<eddy_sph/simd.h>) vectorize it for their ISA; pass a constant kernel.
 * Returns 0, or -1 when memory ran out.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int eddy_sph_density_cell_kernel(const eddy_grid *g, const eddy_particles *p, const eddy_boundaries *b,
                                               const float gravity[3], float h, eddy_sph_density_fn finish,
                                               void *ctx, uint32_t c, const eddy_sph_candidates *cand,
                                               eddy_sph_candidates *near, eddy_sph_kernel kernel)
{
    (void)near; /* the mirror loops run over the candidates themselves (eddy_sph_select) */
    const float h2 = h * h, inv_h = 1.0f / h;
    const int walls = eddy_sph_cell_near_walls(b, g, p, c, h); /* else no particle has a mirror */
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
        if (eddy_particle_is_halo(p, i)) continue; /* its owner computes it */
        const float xi = p->x[i], yi = p->y[i], zi = p->z[i];
        eddy_sph_image img[EDDY_MAX_MIRRORS];
        const int nimg = walls ? eddy_sph_images(b, gravity, h, xi, yi, zi, img) : 0;
        float sum = eddy_sph_density_real_kernel(cand, xi, yi, zi, h2, inv_h, kernel);
        if (nimg) sum += eddy_sph_density_ghosts_kernel(cand, h2, inv_h, kernel, img, nimg);
        finish(ctx, i, sum);
    }
    return 0;
}

/* eddy_sph_density_cell_kernel with poly6: the density cell of every solver that sums poly6. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int eddy_sph_density_cell(const eddy_grid *g, const eddy_particles *p, const eddy_boundaries *b,
                                        const float gravity[3], float h, eddy_sph_density_fn finish, void *ctx,
                                        uint32_t c, const eddy_sph_candidates *cand, eddy_sph_candidates *near)
{
    return eddy_sph_density_cell_kernel(g, p, b, gravity, h, finish, ctx, c, cand, near, EDDY_SPH_POLY6);
}

typedef struct eddy_sph_density_pass_ctx_ {
    const eddy_grid *g;
    const eddy_particles *p;
    const eddy_boundaries *b;
    const float *gravity;
    float h;
    eddy_sph_density_fn finish;
    void *ctx;
} eddy_sph_density_pass_ctx_;

static inline int eddy_sph_density_pass_cell_(void *ctx, uint32_t c, eddy_sph_candidates *cand,
                                              eddy_sph_candidates *near, float *max)
{
    (void)max;
    const eddy_sph_density_pass_ctx_ *d = (const eddy_sph_density_pass_ctx_ *)ctx;
    return eddy_sph_density_cell(d->g, d->p, d->b, d->gravity, d->h, d->finish, d->ctx, c, cand, near);
}

/*
 * The density pass of an SPH solver on the baseline ISA: eddy_sph_cell_pass over
 * eddy_sph_density_cell (a solver with per-ISA paths runs that cell from its own callbacks instead).
 * Returns 0, or -1 when memory ran out (the caller reports EDDY_ERR_OUT_OF_MEMORY). Bit-identical for
 * any number of threads.
 */
static inline int eddy_sph_density_pass(const eddy_grid *g, const eddy_particles *p, const eddy_boundaries *b,
                                        const float gravity[3], float h, eddy_sph_density_fn finish, void *ctx)
{
    eddy_sph_density_pass_ctx_ d = {g, p, b, gravity, h, finish, ctx};
    return eddy_sph_cell_pass(g, p, 0, NULL, eddy_sph_density_pass_cell_, &d, NULL);
}

/* The one self-term convention of the toolkit: the gather includes the particle itself with weight
 * m W(0), and initial_sum scales that self term (Bullet-Fluids reference (2014) §3.2.1), so the
 * density adds (initial_sum - 1) m W_poly6(0) (eddy_sph_materials.self_density), kg/m^3 (sim units;
 * per unit depth in 2D): the density is eddy_sph_density(k, sum, this). 0 for initial_sum = 1. Pure. */
static inline float eddy_sph_self_density(float initial_sum, float mass, const eddy_kernels *k)
{
    return (initial_sum - 1.0f) * mass * eddy_poly6(k, 0.0f);
}

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_GATHER_H */
