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
 * With the loop function always inlined (EDDY_SPH_SIMD_BODY, simd.h; the two functions here are
 * always inlined too), the image argument is a constant at each call (a null pointer, or the address
 * of a local image), the test on it folds away, and each instance is the branch-free SIMD loop a
 * solver would write by hand for that kind of partner, with the same arithmetic in the same order. Sum
 * the ghosts of one mirror on their own and then add them, as the mirror loops of gather.h do, so
 * that the order of the sums does not depend on how many mirrors a particle sees. docs/toolkit.md,
 * "A pass", shows a whole pass.
 *
 * The candidates' state: eddy_sph_gather_state copies velocity, pressure and density into the first
 * EDDY_SPH_STATE_SLOTS (5) extra slots; a solver's own per-candidate arrays (volumes, per-material
 * tables) follow from slot EDDY_SPH_STATE_SLOTS on, up to EDDY_SPH_MAX_EXTRA (16) in all, so a buffer
 * for a pass is made with eddy_sph_candidates_make(EDDY_SPH_STATE_SLOTS + the solver's count)
 * (eddy_sph_cell_pass's extra_count).
 *
 * Units: sim units throughout (positions, velocities per second, pressures, densities; <eddy/world.h>).
 * Threads as in gather.h: one candidate buffer per thread; the functions are otherwise pure.
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

/* The extra slots of the state a pair reads of each candidate: v_j, p_j, and rho_j, the density a
 * ghost's pressure continues with (eddy_sph_image_pressure) and the pair terms read. A solver's own
 * slots begin at EDDY_SPH_STATE_SLOTS. */
enum {
    EDDY_SPH_VX = 0,
    EDDY_SPH_VY = 1,
    EDDY_SPH_VZ = 2,
    EDDY_SPH_PRESSURE = 3,
    EDDY_SPH_DENSITY = 4,
    EDDY_SPH_STATE_SLOTS = 5
};

/*
 * Fills the state slots from the particles' vx, vy, vz, pressure and density and, in the same pass
 * over the candidates, the solver's own slots slot[f] from the per-particle arrays src[f]
 * (f < n; n may be 0 with NULL slot and src, n <= EDDY_SPH_MAX_EXTRA - EDDY_SPH_STATE_SLOTS):
 * one eddy_sph_gather_fields call. Fill the slots of the buffer the loop runs over: after the gather
 * and after anything that narrows it in order (eddy_sph_gather_fields reads the buffer's indices), and
 * before eddy_sph_select copies it. The buffer must have EDDY_SPH_STATE_SLOTS + the solver's extra
 * slots (asserted in debug builds only, as eddy_sph_gather_fields' slots are).
 */
static inline void eddy_sph_gather_state_with(eddy_sph_candidates *c, const eddy_particles *p, int n,
                                              const int slot[], const float *const src[])
{
    int slots[EDDY_SPH_MAX_EXTRA] = {EDDY_SPH_VX, EDDY_SPH_VY, EDDY_SPH_VZ, EDDY_SPH_PRESSURE, EDDY_SPH_DENSITY};
    const float *fields[EDDY_SPH_MAX_EXTRA] = {p->vx, p->vy, p->vz, p->pressure, p->density};
    const int extra = n < 0 ? 0 : n > EDDY_SPH_MAX_EXTRA - EDDY_SPH_STATE_SLOTS ? EDDY_SPH_MAX_EXTRA - EDDY_SPH_STATE_SLOTS
                                                                                 : n;
    for (int f = 0; f < extra; ++f) {
        slots[EDDY_SPH_STATE_SLOTS + f] = slot[f];
        fields[EDDY_SPH_STATE_SLOTS + f] = src[f];
    }
    eddy_sph_gather_fields(c, EDDY_SPH_STATE_SLOTS + extra, slots, fields);
}

/* eddy_sph_gather_state_with without solver arrays: the state slots alone. */
static inline void eddy_sph_gather_state(eddy_sph_candidates *c, const eddy_particles *p)
{
    eddy_sph_gather_state_with(c, p, 0, NULL, NULL);
}

/*
 * The partners of one loop: the candidates' arrays, read once before the loop, and the mirror image
 * (NULL: the candidates themselves). Take them with eddy_sph_partners_make into a local before the
 * loop: loads through the candidate buffer inside an `omp simd` loop need not be hoisted (GCC 12 left
 * them in the template's force loop, which changed how it vectorized and the order of its sums). The
 * image is borrowed and must outlive the loop; it belongs to one particle i (eddy_sph_images made it
 * for i's position), and a ghost's offset is taken from it, not from the position given to
 * eddy_sph_partner_at.
 */
typedef struct eddy_sph_partners {
    size_t count;
    const float *x, *y, *z, *m;                      /* positions (periodic shift applied) and masses */
    const float *vx, *vy, *vz, *pressure, *density; /* the state slots */
    const eddy_sph_image *img;
} eddy_sph_partners;

EDDY_SPH_ALWAYS_INLINE eddy_sph_partners eddy_sph_partners_make(const eddy_sph_candidates *c,
                                                                const eddy_sph_image *img)
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
 * its ghost. Everything else (mass, density, the solver's slots) is the candidate's either way. */
typedef struct eddy_sph_partner {
    float dx, dy, dz; /* x_i - x_j, or x_i - M(x_j) for a ghost (gather.h) */
    float vx, vy, vz; /* v_j, or the ghost's velocity (free slip or no slip, gather.h) */
    float pressure;   /* p_j, or p_j continued hydrostatically through the wall */
} eddy_sph_partner;

/*
 * Candidate q (0 .. v->count - 1) as particle i at (xi, yi, zi) sees it: itself when v->img is NULL,
 * else its ghost in that mirror (whose offset comes from the image, made for i). Branch-free once
 * inlined with the image a constant (see above). With an image that varies at run time the values
 * are the same, but the loop may not vectorize.
 */
EDDY_SPH_ALWAYS_INLINE eddy_sph_partner eddy_sph_partner_at(const eddy_sph_partners *v, size_t q, float xi,
                                                            float yi, float zi)
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
