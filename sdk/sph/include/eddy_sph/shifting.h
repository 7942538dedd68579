/*
 * eddy_sph/shifting.h — Fickian particle shifting, a post-force pass that keeps the particles of a
 * weakly compressible solver evenly spread.
 *
 * With negative pressures (a vortex, any flow whose pressure falls below the background) the
 * symmetric pressure force pulls particles together into clumps and strings along the stagnation
 * streamlines (the tensile instability), and the mode then decays far too fast. Particle shifting
 * (Xu, Stansby & Laurence 2009; Lind, Xu, Stansby & Rogers 2012, J. Comput. Phys. 231:1499, §3.2,
 * eq. 15-16) moves each particle a little down the gradient of the particle concentration,
 * as Fick's law moves a solute:
 *   delta r_i = -D_i grad C_i,   grad C_i = sum_j (m_j / rho_j) grad W_ij,   D_i = A (h/2) |v_i| dt,
 * with A the dimensionless coefficient (Lind et al. use 1 to 6; 2 here by default), h the kernel
 * support radius (h/2 the smoothing length of Lind et al.'s kernel of support 2 h) and dt the step. The
 * gradient is the spiky kernel's, normalized by the material's lattice gradient moment (as the
 * solvers' pressure force), so a rest lattice gives grad C = 0. The mirror ghosts of the walls join
 * the sums as they join the density, so a particle at a wall is not pushed into it. The velocity is
 * not corrected (Lind et al.'s Taylor correction of the flow variables is left out): the shift is a
 * small fraction of a spacing per step and the momentum stays exactly what the forces made it.
 *
 * Free surfaces: a particle whose kernel support is cut by a free surface sees grad C pointing into
 * the fluid and would be shifted out of it. Lind et al. shift such particles only along the surface;
 * with the surface normal taken from grad C itself that component is 0, so this pass leaves every
 * particle whose position divergence div r_i = -sum_j (m_j / rho_j) (x_i - x_j) . grad W_ij (d on a
 * full neighbourhood in d dimensions) is below EDDY_SPH_SHIFT_SURFACE d (Lind et al. §3.3 use 1.5 in
 * 2D) where it is: particles within about h of a free surface are not shifted. That keeps a surface
 * from being torn apart but leaves the instability to act in that layer; the pass is meant for
 * confined and periodic flows.
 *
 * Each shift is limited to EDDY_SPH_SHIFT_MAX of the material's particle spacing, so a particle that
 * a splash leaves nearly alone is not thrown across its neighbours.
 *
 * Order and threads: the shifts are computed from the positions of the grid's last build (every
 * particle's before any moves) over the candidates in the grid's fixed order, then added, so the
 * result is bit-identical for any number of threads.
 *
 * Several processes: it reads the positions, masses and densities of neighbours, halo copies
 * included, and moves owned particles only. Call it after the density of the halo copies has been
 * refreshed (eddy_world_refresh_fields, as the solvers' density pass does) and before the grid is
 * rebuilt.
 */
#ifndef EDDY_SPH_SHIFTING_H
#define EDDY_SPH_SHIFTING_H

#include <stddef.h>
#include <stdint.h>

#include <eddy/error.h>
#include <eddy/params.h>
#include <eddy/world.h>

#include "gather.h"
#include "materials.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Particles with div r below this fraction of the dimension count are at a free surface: no shift. */
#define EDDY_SPH_SHIFT_SURFACE 0.75f
/* The largest shift in one step, as a fraction of the material's particle spacing. */
#define EDDY_SPH_SHIFT_MAX 0.2f

/* The two solver parameters that select the pass, as table-entry initializers (<eddy/params.h>), so
 * every solver that offers it documents it alike: read them in create() and pass A to
 * eddy_sph_shifting_make when `shifting` is true. */
#define EDDY_SPH_SHIFTING_DESC \
    EDDY_PARAM_BOOL_DESC("shifting", 0, \
                         "Fickian particle shifting after the forces of each step (Lind et al. 2012): " \
                         "particles move by -A (h/2) |v| dt grad C, down the gradient of the particle " \
                         "concentration, which keeps negative pressures from clumping them (Taylor-Green " \
                         "vortex). For confined and periodic flows: particles within about h of a free " \
                         "surface are not shifted. Off by default.")
#define EDDY_SPH_SHIFTING_COEFFICIENT_DESC \
    EDDY_PARAM_REAL_DESC("shifting_coefficient", 2.0, 0.0, 10.0, "1", \
                         "A of the particle shifting (shifting = true): D = A (h/2) |v| dt, h the kernel " \
                         "support radius; Lind et al. (2012) use 1 to 6. Each shift is at most 0.2 " \
                         "particle spacings.")

typedef struct eddy_sph_shifting {
    float coefficient; /* A; 0 turns the pass off */
    float *shift;      /* 4 per particle: the shift and div r of the current pass */
    size_t capacity;   /* particles the scratch holds */
    /* Of the last pass: the largest shift (sim units) and the particles left alone at a free surface. */
    float max_shift;
    size_t surface_count;
} eddy_sph_shifting;

/* A pass with coefficient A (>= 0). No memory until the first eddy_sph_shift. */
static inline eddy_sph_shifting eddy_sph_shifting_make(float coefficient)
{
    eddy_sph_shifting s = {coefficient, NULL, 0, 0.0f, 0};
    return s;
}

/* Frees the pass's scratch (shift, capacity 0) and keeps its coefficient, so the pass may run again
 * (it then allocates anew) or be freed twice. NULL-safe. */
void eddy_sph_shifting_free(eddy_sph_shifting *s);

/* What the pass's cells read (eddy_sph_shift). */
typedef struct eddy_sph_shift_ctx {
    const eddy_world *w;
    const eddy_sph_materials *mat;
    eddy_sph_shifting *s;
    float dt;
} eddy_sph_shift_ctx;

/* Grows the scratch to n particles (4 floats each): 0, or -1 when memory runs out (the scratch is
 * then unchanged). */
int eddy_sph_shift_reserve(eddy_sph_shifting *s, size_t n);

/* One cell of the pass (eddy_sph_cell_fn, 1 extra array): the shift and div r of its owned particles
 * into the scratch; *max the largest shift. */
int eddy_sph_shift_cell(void *ctx, uint32_t cell, eddy_sph_candidates *cand, eddy_sph_candidates *near,
                        float *max);

/* Adds the scratch's shifts to the owned particles and counts those left alone at a free surface. */
void eddy_sph_shift_apply(eddy_sph_shifting *s, eddy_world *w);

/*
 * Shifts every owned particle of the world by -D grad C (above) for a step dt: the grid must be built
 * for the current positions, and the densities of every particle (halo copies too) current. mat: the
 * solver's material tables (gradient scale). `who` prefixes the error message (EDDY_SPH_WHO: NULL in a
 * solver, whose errors the host prefixes with its id).
 * EDDY_ERR_OUT_OF_MEMORY on failure, with no particle moved. Nothing happens when the coefficient is 0
 * (no argument is read then). Otherwise EDDY_ERR_INVALID_ARGUMENT, no particle moved, for tables of
 * another count of materials than the world's (NULL mat included) and a dt that is negative or NaN.
 * s and w must not be NULL. The scratch is the pass's (eddy_sph_shifting_free). [main thread]
 * Inline, so that the cell loop runs on the plugin's OpenMP threads (the static library has none).
 */
static inline int eddy_sph_shift(eddy_sph_shifting *s, eddy_world *w, const eddy_sph_materials *mat, float dt,
                                 const char *who, eddy_error *err)
{
    s->max_shift = 0.0f;
    s->surface_count = 0;
    if (!(s->coefficient > 0.0f)) return EDDY_OK;
    /* The cells read mat's row of every particle's material, and a negative dt would shift up the
     * gradient: refuse both before anything moves. */
    if (!mat || mat->count != w->material_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              EDDY_SPH_WHO_FMT "particle shifting: material tables of %zu materials for a world of %zu",
                              EDDY_SPH_WHO(who), mat ? mat->count : (size_t)0, w->material_count);
    if (!(dt >= 0.0f))
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              EDDY_SPH_WHO_FMT "particle shifting: the time step is %g, expected >= 0", EDDY_SPH_WHO(who),
                              (double)dt);
    eddy_sph_shift_ctx ctx = {w, mat, s, dt};
    if (eddy_sph_shift_reserve(s, w->particles.count) ||
        eddy_sph_cell_pass(&w->grid, &w->particles, 1, NULL, eddy_sph_shift_cell, &ctx, &s->max_shift))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, EDDY_SPH_WHO_FMT "particle shifting: out of memory",
                              EDDY_SPH_WHO(who));
    eddy_sph_shift_apply(s, w);
    return EDDY_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_SHIFTING_H */
