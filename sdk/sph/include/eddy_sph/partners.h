/*
 * eddy_sph/partners.h — one pair loop for a particle's real neighbours and its mirror ghosts.
 *
 * A force pass sums over two kinds of partner: the gathered candidates themselves, and, for a
 * particle near a wall, the ghosts of the same candidates in each mirror within reach
 * (eddy_sph_images / eddy_sph_wall_images, gather.h). A ghost differs from its candidate in three
 * things only: its offset from particle i, its velocity and its pressure (boundary.h: the hydrostatic
 * continuation through the wall). eddy_sph_partner_at gives those three for either kind, so a solver
 * writes its pair loop once, as a function of the image (NULL for the real neighbours), and calls it
 * once for the candidates and once per mirror:
 *
 *     sums pair_sums(const ctx *f, const eddy_sph_candidates *c, const eddy_sph_image *img, ...)
 *     {
 *         const eddy_sph_partners v = eddy_sph_partners_make(c, img);
 *         EDDY_SPH_SIMD_SUM(...)
 *         for (size_t q = 0; q < v.count; ++q) {
 *             const eddy_sph_partner j = eddy_sph_partner_at(&v, q, xi, yi, zi);
 *             ... the pair terms of j.dx, j.vx, j.pressure, v.m[q], v.density[q] ...
 *         }
 *     }
 *     sums a = pair_sums(&f, cand, NULL, ...);
 *     for (int mi = 0; mi < nimg; ++mi) add(&a, pair_sums(&f, cand, &img[mi], ...));
 *
 * With the loop function always inlined (EDDY_SPH_SIMD_BODY, simd.h), the image argument is a
 * constant at each call (a null pointer, or the address of a local image), the test on it folds away,
 * and each instance is the same branch-free SIMD loop a solver would have written by hand for that
 * kind, with the same arithmetic in the same order (the in-tree solvers' state hashes did not change
 * when they moved to it). The ghosts of one mirror are summed on their own and then added, as the
 * mirror loops of gather.h do, so that the order of the sums does not depend on how many mirrors a
 * particle sees.
 *
 * The candidates' state: eddy_sph_gather_state copies velocity, pressure and density into the first
 * EDDY_SPH_STATE_SLOTS extra slots; a solver's own per-candidate arrays (volumes, per-material tables)
 * follow from slot EDDY_SPH_STATE_SLOTS on, so a buffer for a pass is made with
 * eddy_sph_candidates_make(EDDY_SPH_STATE_SLOTS + the solver's count) (eddy_sph_cell_pass's
 * extra_count).
 *
 * Units and threads as in gather.h: sim units, one candidate buffer per thread, otherwise pure.
 */
#ifndef EDDY_SPH_PARTNERS_H
#define EDDY_SPH_PARTNERS_H

#include <stddef.h>

#include <eddy/particles.h>

#include "defs.h"
#include "gather.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The extra slots eddy_sph_gather_state fills: v_j (m/s), p_j (Pa) and rho_j (kg/m^3, kg/m^2 in 2D),
 * in sim units. A solver's own slots begin at EDDY_SPH_STATE_SLOTS. */
enum {
    EDDY_SPH_VX = 0,
    EDDY_SPH_VY = 1,
    EDDY_SPH_VZ = 2,
    EDDY_SPH_PRESSURE = 3,
    EDDY_SPH_DENSITY = 4,
    EDDY_SPH_STATE_SLOTS = 5
};

/* Copies every candidate's velocity, pressure and density (the particles' arrays) into the state
 * slots. Call it after eddy_sph_gather and before anything that narrows or reorders the buffer, which
 * must have at least EDDY_SPH_STATE_SLOTS extra slots (not checked). */
static inline void eddy_sph_gather_state(eddy_sph_candidates *c, const eddy_particles *p)
{
    static const int slots[] = {EDDY_SPH_VX, EDDY_SPH_VY, EDDY_SPH_VZ, EDDY_SPH_PRESSURE, EDDY_SPH_DENSITY};
    const float *const fields[] = {p->vx, p->vy, p->vz, p->pressure, p->density};
    eddy_sph_gather_fields(c, 5, slots, fields);
}

/*
 * The partners of one loop: the candidates' arrays, read once before the loop, and the mirror image
 * (NULL: the candidates themselves). A loop over a local copy of these pointers vectorizes as a loop
 * over hand-hoisted arrays does; reading them through the candidate buffer inside an `omp simd` loop
 * does not hoist them (GCC cannot tell the buffer from the loop's reduction arrays), which cost the
 * loop its vector epilogue and changed the order of its sums. The image is borrowed: it must outlive
 * the loop.
 */
typedef struct eddy_sph_partners {
    size_t count;
    const float *x, *y, *z, *m;            /* positions (periodic shift applied) and masses */
    const float *vx, *vy, *vz, *pressure, *density; /* the state slots (eddy_sph_gather_state) */
    const eddy_sph_image *img;
} eddy_sph_partners;

EDDY_SPH_INLINE eddy_sph_partners eddy_sph_partners_make(const eddy_sph_candidates *c, const eddy_sph_image *img)
{
    eddy_sph_partners v;
    v.count = c->count;
    v.x = c->x, v.y = c->y, v.z = c->z, v.m = c->m;
    v.vx = c->extra[EDDY_SPH_VX], v.vy = c->extra[EDDY_SPH_VY], v.vz = c->extra[EDDY_SPH_VZ];
    v.pressure = c->extra[EDDY_SPH_PRESSURE], v.density = c->extra[EDDY_SPH_DENSITY];
    v.img = img;
    return v;
}

/* What a pair loop reads of one partner j of particle i that differs between a real neighbour and
 * its ghost. Everything else (mass, density, per-material values) is the candidate's. */
typedef struct eddy_sph_partner {
    float dx, dy, dz; /* x_i - x_j */
    float vx, vy, vz; /* v_j: the candidate's, or the ghost's (free slip or no slip, gather.h) */
    float pressure;   /* p_j: the candidate's, or continued hydrostatically through the wall */
} eddy_sph_partner;

/*
 * Candidate q (0 .. v->count - 1) as particle i at (xi, yi, zi) sees it: itself when v->img is NULL,
 * else its ghost in that mirror. Branch-free once inlined with the image a constant (see above); with
 * an image that varies at run time it still gives the right values, with a select per candidate.
 */
EDDY_SPH_INLINE eddy_sph_partner eddy_sph_partner_at(const eddy_sph_partners *v, size_t q, float xi, float yi,
                                                     float zi)
{
    eddy_sph_partner j;
    const float xj = v->x[q], yj = v->y[q], zj = v->z[q];
    if (v->img) {
        eddy_sph_image_diff(v->img, xj, yj, zj, &j.dx, &j.dy, &j.dz);
        eddy_sph_image_velocity(v->img, v->vx[q], v->vy[q], v->vz[q], &j.vx, &j.vy, &j.vz);
        j.pressure = eddy_sph_image_pressure(v->img, v->pressure[q], v->density[q], xj, yj, zj);
    } else {
        j.dx = xi - xj, j.dy = yi - yj, j.dz = zi - zj;
        j.vx = v->vx[q], j.vy = v->vy[q], j.vz = v->vz[q];
        j.pressure = v->pressure[q];
    }
    return j;
}

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_PARTNERS_H */
