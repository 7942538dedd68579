/*
 * Weakly compressible SPH with the Tait equation of state (Monaghan 1994, as in Theng & Zhao's
 * "Real-Time Smoothed-Particle Hydrodynamics", MIT 6.837 final project, c. 2017):
 *   grid -> density (poly6 summation) -> Tait pressure p = B ((rho / rho0)^gamma - 1), B = rho0 c0^2 / gamma
 *        -> accelerations: symmetric pressure gradient, viscosity, artificial viscosity, walls
 *        -> v += (a + g) dt -> contact response (eddy_world_respond_boundaries) -> x += v dt.
 *
 * Corrections to that write-up (its Figure 1), each checked against Monaghan 1994 / Müller 2003:
 *  - the Tait stiffness is B = rho0 c0^2 / gamma, not rho0 / gamma (the write-up's units are scaled so
 *    that c0 = 1); with B = rho0 / gamma a water scene in SI units would be gas-like;
 *  - the pressure force needs the neighbour mass and both densities; the write-up's
 *    (P_i + P_j) / (2 rho_j) grad W is not antisymmetric for rho_i != rho_j and gives half of grad p.
 *    Here a_i = -sum_j m_j (p_i / rho_i^2 + p_j / rho_j^2) grad W_ij (momentum-conserving);
 *  - the viscosity sum runs over j (the write-up prints sum_i), and dx_ij = x_j - x_i flips the sign
 *    of grad W: the code uses grad_i W(x_i - x_j), which points from j to i;
 *  - the spiky gradient coefficient is the core's 45/(pi h^6) (3D), 30/(pi h^5) (2D).
 *
 * Walls (`boundary`): the density always includes the core's mirror ghosts (eddy_boundaries_mirrors).
 * In the forces, `mirror` (default) sums the ghosts too, as sph_mueller does; `virtual` is the
 * write-up's method: for each surface within h, one virtual particle at the projection of x_i onto
 * it, with density rho0, the particle's own mass and pressure max(P_b, p_i), gives a pressure force
 * and the normal part of the viscous force. Either way eddy_world_respond_boundaries() projects a
 * particle that crossed a wall back.
 *
 * Every sum is a gather over the grid's cell ranges in their fixed order (eddy_grid_cell_ranges), so a
 * run is bit-identical for any number of threads.
 *
 * Several processes: both passes update owned particles only and read halo copies as neighbours;
 * density and pressure are refreshed on the halo copies (eddy_world_refresh_fields) before the force
 * pass reads them. In one process there is no halo copy and the refresh returns at once.
 */
#include <eddy/eddy.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    P_CFL,
    P_SOUND_SPEED,
    P_GAMMA,
    P_ALPHA,
    P_NEGATIVE_PRESSURE,
    P_BOUNDARY,
    P_BOUNDARY_PRESSURE,
    P_COUNT
};

enum { BOUNDARY_MIRROR = 0, BOUNDARY_VIRTUAL = 1 };

static const char *const boundary_methods[] = {"mirror", "virtual", NULL};

static const eddy_param_desc params[P_COUNT] = {
    [P_CFL] = EDDY_PARAM_REAL_DESC(
        "cfl", 0.25, 0.01, 1.0, "1",
        "CFL number of the time-step limit cfl * h / (c0 + v_max), h the kernel support radius."),
    [P_SOUND_SPEED] = EDDY_PARAM_DERIVED_REAL_DESC(
        "sound_speed", 1e-6, 1e9, "m/s",
        "Numerical speed of sound c0 (sim units). Derived (default): 10 sqrt(2 |g| H), ten times the "
        "largest speed of fluid falling the height H the particles span along gravity at the start; "
        "without gravity, sqrt(stiffness) of each material."),
    [P_GAMMA] = EDDY_PARAM_REAL_DESC(
        "gamma", 7.0, 1.0, 10.0, "1",
        "Tait exponent: p = (rho0 c0^2 / gamma) ((rho / rho0)^gamma - 1). 7 for water (Monaghan 1994); "
        "Theng & Zhao (c. 2017) used 2 for stability at large time steps."),
    [P_ALPHA] = EDDY_PARAM_REAL_DESC(
        "alpha", 0.02, 0.0, 1.0, "1",
        "Monaghan artificial viscosity Pi_ij = -alpha c0 mu_ij / rho_ij, mu_ij = (h/2) v_ij.x_ij / "
        "(r^2 + 0.01 (h/2)^2), on approaching pairs only; adds to the material viscosity."),
    [P_NEGATIVE_PRESSURE] = EDDY_PARAM_REAL_DESC(
        "negative_pressure", 0.0, 0.0, 1.0, "1",
        "Factor on negative Tait pressures. 0 (default) clamps p >= 0, so free-surface particles with "
        "incomplete sums are not pulled into clumps (tensile instability); 1 keeps the Tait law exactly."),
    [P_BOUNDARY] = EDDY_PARAM_ENUM_DESC(
        "boundary", BOUNDARY_MIRROR, boundary_methods,
        "Wall forces (the density always sums the core's mirror ghosts). mirror (default): the ghosts in "
        "the forces too (hydrostatic pressure continued through the wall, free slip). virtual: "
        "Theng & Zhao's virtual particle at the projection onto each wall within h, density rho0, "
        "pressure max(boundary_pressure, p_i), normal viscous force only."),
    [P_BOUNDARY_PRESSURE] = EDDY_PARAM_REAL_DESC(
        "boundary_pressure", 0.0, 0.0, 1e12, "Pa",
        "P_b of the virtual boundary particles (boundary = virtual): their pressure is max(P_b, p_i), so "
        "that low-pressure particles are still pushed off the wall. Sim units (Pa, or Pa m in 2D)."),
};

/* The per-material parameters the method reads, as world.h declares them for every SPH solver:
 * viscosity, the stiffness whose square root is c0 without gravity, and the density's self term. */
enum { M_VISCOSITY, M_STIFFNESS, M_INITIAL_SUM, M_COUNT };

static const eddy_param_desc material_params[M_COUNT] = {
    [M_VISCOSITY] = EDDY_MATERIAL_VISCOSITY_DESC,
    [M_STIFFNESS] = EDDY_MATERIAL_STIFFNESS_DESC,
    [M_INITIAL_SUM] = EDDY_MATERIAL_INITIAL_SUM_DESC,
};

struct eddy_solver {
    double cfl;
    float negative_pressure;
    float alpha;
    int boundary;
    float boundary_pressure;
    int acceleration;          /* field id, 3 components */
    size_t nm;
    float *rest_density, *tait_b, *gamma, *sound_speed, *viscosity, *self_density, *gradient_scale;
    float c_max;               /* largest sound speed, m/s */
    float max_accel;           /* of the last force evaluation, for max_dt */
    int resuming;              /* created on a checkpoint's particles: load() must bring c0 and B */
};

static void destroy(eddy_solver *s)
{
    if (!s) return;
    free(s->rest_density);
    free(s->tait_b);
    free(s->gamma);
    free(s->sound_speed);
    free(s->viscosity);
    free(s->self_density);
    free(s->gradient_scale);
    free(s);
}

/* 10 sqrt(2 |g| H), H the height the particles span along gravity (sim units): the speed of sound ten
 * times that of the fastest free fall in the scene, which keeps density errors near 1% (Monaghan
 * 1994). 0 without gravity or particles. H spans the owned particles of every process
 * (eddy_world_reduce), so a decomposed run derives the same c0 as a single process. */
static int derived_sound_speed(eddy_world *w, double *c0, eddy_error *err)
{
    *c0 = 0.0;
    const double g = sqrt((double)w->gravity[0] * w->gravity[0] + (double)w->gravity[1] * w->gravity[1] +
                          (double)w->gravity[2] * w->gravity[2]);
    const eddy_particles *p = &w->particles;
    if (!(g > 0)) return EDDY_OK;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < p->count; ++i) {
        if (eddy_particle_is_halo(p, i)) continue;
        double up = -(p->x[i] * w->gravity[0] + p->y[i] * w->gravity[1] + p->z[i] * w->gravity[2]) / g;
        lo = up < lo ? up : lo;
        hi = up > hi ? up : hi;
    }
    double extent[2] = {lo, -hi}; /* both by MIN: one collective call */
    int rc = eddy_world_reduce(w, EDDY_REDUCE_MIN, extent, 2, err);
    if (rc) return eddy_error_prefix(err, "tait: derived sound speed: ");
    lo = extent[0];
    hi = -extent[1];
    if (hi >= lo) *c0 = 10.0 * sqrt(2.0 * g * (hi - lo)); /* else: no particle anywhere */
    return EDDY_OK;
}

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    const eddy_param_values *pv = setup->params;
    if (w->material_count == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "tait: the world has no material");
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "tait: out of memory");
    s->cfl = pv->values[P_CFL].number;
    s->negative_pressure = (float)pv->values[P_NEGATIVE_PRESSURE].number;
    s->alpha = (float)pv->values[P_ALPHA].number;
    s->boundary = (int)pv->values[P_BOUNDARY].integer;
    s->boundary_pressure = (float)pv->values[P_BOUNDARY_PRESSURE].number;
    const double gamma = pv->values[P_GAMMA].number;
    /* NAN: derive c0 (the parameter is EDDY_PARAM_DERIVED, unset unless the scene gives it). */
    const double c_param = pv->values[P_SOUND_SPEED].is_set ? pv->values[P_SOUND_SPEED].number : NAN;
    size_t nm = s->nm = w->material_count;
    float **arrays[] = {&s->rest_density, &s->tait_b, &s->gamma, &s->sound_speed,
                        &s->viscosity, &s->self_density, &s->gradient_scale};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; ++a) {
        *arrays[a] = calloc(nm, sizeof(float));
        if (!*arrays[a]) {
            destroy(s);
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "tait: out of memory");
        }
    }
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    /* Resuming (plugin.h, EDDY_COMPONENT_STATE_COMPLETE): the particles are the checkpoint's, whose
     * height is not the run's initial H; load() brings the sound speeds derived at the start. */
    const int resuming = EDDY_HAS_MEMBER(setup, eddy_solver_setup, resuming) && setup->resuming;
    double c_fall = 0.0;
    int rc = resuming ? EDDY_OK : derived_sound_speed(w, &c_fall, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    for (size_t m = 0; m < nm; ++m) {
        const eddy_material *mat = &w->materials[m];
        const float stiffness = (float)eddy_material_param(mat, &material_params[M_STIFFNESS]);
        const float initial_sum = (float)eddy_material_param(mat, &material_params[M_INITIAL_SUM]);
        double c0 = !isnan(c_param) ? c_param : c_fall > 0 ? c_fall : sqrt((double)stiffness);
        if (!resuming && !(c0 > 0)) {
            destroy(s);
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "tait: no gravity, and material '%s' has stiffness 0, so the derived sound "
                                  "speed sqrt(stiffness) is 0; set materials[%zu].stiffness > 0 (c0^2 in "
                                  "m^2/s^2) or solvers.tait.sound_speed",
                                  mat->name, m);
        }
        s->rest_density[m] = mat->rest_density;
        s->sound_speed[m] = (float)c0;
        s->gamma[m] = (float)gamma;
        s->tait_b[m] = (float)(mat->rest_density * c0 * c0 / gamma);
        s->viscosity[m] = (float)eddy_material_param(mat, &material_params[M_VISCOSITY]);
        /* initial_sum scales the self term m W(0) of the density sum (Bullet-Fluids reference (2014)
         * §3.2.1). */
        s->self_density[m] = (initial_sum - 1.0f) * mat->particle_mass * eddy_poly6(&k, 0.0f);
        /* The spiky pressure gradient of a linear pressure field falls short by the lattice's first
         * gradient moment (0.87 at h = 2 spacings in 2D); dividing by it lets fluid at rest carry
         * rho0 g H (world.h, eddy_lattice_gradient_moment). */
        s->gradient_scale[m] = (float)(1.0 / eddy_lattice_gradient_moment(mat->particle_dist, w->smoothing_radius,
                                                                            w->dimensions));
        if (s->sound_speed[m] > s->c_max) s->c_max = s->sound_speed[m];
    }
    rc = eddy_particles_add_field(&w->particles, "acceleration", 3, &s->acceleration, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    /* A derived value the user may want to see once (it sets the time step). */
    s->resuming = resuming;
    if (!resuming && isnan(c_param) && c_fall > 0)
        eddy_host_log(setup->host, EDDY_LOG_INFO, "tait",
                      "sound speed c0 = 10 sqrt(2 |g| H) = %.4g m/s (sim units), H the height the "
                      "particles span along gravity", c_fall);
    else if (!resuming && isnan(c_param))
        eddy_host_log(setup->host, EDDY_LOG_INFO, "tait",
                      "no gravity: sound speed c0 = sqrt(stiffness) of each material, at most %.4g m/s "
                      "(sim units)", (double)s->c_max);
    *out = s;
    return EDDY_OK;
}

static inline float tait_pressure(const eddy_solver *s, uint32_t m, float rho)
{
    float p = s->tait_b[m] * (powf(rho / s->rest_density[m], s->gamma[m]) - 1.0f);
    return p < 0.0f ? p * s->negative_pressure : p;
}

static void compute_density(eddy_solver *s, eddy_world *w)
{
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float h2 = k.h2;
    const float *x = p->x, *y = p->y, *z = p->z, *mass = p->mass;
    const uint32_t *mat = p->material;
    float *rho = p->density, *pres = p->pressure;
    /* Both wall methods complete the density with the mirror ghosts: with the write-up's bare sum a
     * wall particle lacks ~20% of its neighbours, its pressure clamps to 0, the virtual particle
     * max(P_b, 0) cannot hold it, and the wall layer is squeezed and shot along the floor. */
    const long long cells = (long long)g->occupied_count;
#pragma omp parallel for schedule(dynamic, 8)
    for (long long ci = 0; ci < cells; ++ci) {
        const uint32_t c = g->occupied[ci];
        eddy_range r[EDDY_MAX_CELL_RANGES];
        const int nr = eddy_grid_cell_ranges(g, c, r);
        for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
            /* Halo copies are neighbours only: their owner computes them (density_pass). */
            if (eddy_particle_is_halo(p, i)) continue;
            const float xi = x[i], yi = y[i], zi = z[i];
            const float pos[3] = {xi, yi, zi};
            eddy_mirror mirror[EDDY_MAX_MIRRORS];
            const int nmir = eddy_boundaries_mirrors(&w->boundaries, w->gravity, k.h, pos, mirror);
            float sum = 0.0f;
            for (int q = 0; q < nr; ++q) {
                const float sx = xi - r[q].shift[0], sy = yi - r[q].shift[1], sz = zi - r[q].shift[2];
                for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                    float dx = sx - x[j], dy = sy - y[j], dz = sz - z[j];
                    float d = h2 - (dx * dx + dy * dy + dz * dz);
                    if (!(d > 0.0f)) continue; /* its ghosts are out of reach too (boundary.h) */
                    sum += mass[j] * d * d * d;
                    const float xj[3] = {x[j] + r[q].shift[0], y[j] + r[q].shift[1], z[j] + r[q].shift[2]};
                    for (int mi = 0; mi < nmir; ++mi) {
                        float gp[3];
                        eddy_mirror_point(&mirror[mi], xj, gp);
                        float ex = xi - gp[0], ey = yi - gp[1], ez = zi - gp[2];
                        float e = h2 - (ex * ex + ey * ey + ez * ez);
                        if (e > 0.0f) sum += mass[j] * e * e * e;
                    }
                }
            }
            const uint32_t m = mat[i];
            const float density = k.poly6 * sum + s->self_density[m];
            rho[i] = density;
            pres[i] = tait_pressure(s, m, density);
        }
    }
}

/* Acceleration of particle i from one partner (a real neighbour, a mirror ghost or a virtual wall
 * particle) at offset d = x_i - x_j, r2 = |d|^2 < h^2, with the partner's mass, density, pressure and
 * velocity difference dv = v_i - v_j. Adds to acc[3]. */
typedef struct pair_ctx {
    eddy_kernels k;
    float tiny2;
    float pi_over_rho2; /* p_i / rho_i^2 */
    float rho_i, mu_i, gscale_i, c_i;
    float alpha, hs;    /* artificial viscosity and the smoothing length h/2 it uses */
} pair_ctx;

static inline void pair_accel(const pair_ctx *pc, const float d[3], float r2, float mj, float rho_j,
                              float p_j, const float dv[3], float mu_j, float c_j, float gscale_j,
                              float acc[3])
{
    if (!(r2 < pc->k.h2) || r2 <= pc->tiny2) return;
    const float rr = sqrtf(r2);
    /* grad_i W_spiky = gf * d */
    const float gf = eddy_spiky_grad(&pc->k, rr);
    /* The pair's mean gradient scale keeps f_ij = -f_ji between materials. */
    float f = -mj * (pc->pi_over_rho2 + p_j / (rho_j * rho_j)) * 0.5f * (pc->gscale_i + gscale_j);
    /* Monaghan's artificial viscosity (1992, 1994), approaching pairs only. */
    const float vr = dv[0] * d[0] + dv[1] * d[1] + dv[2] * d[2];
    if (pc->alpha > 0.0f && vr < 0.0f) {
        const float mu = pc->hs * vr / (r2 + 0.01f * pc->hs * pc->hs);
        const float pi_ij = -pc->alpha * 0.5f * (pc->c_i + c_j) * mu / (0.5f * (pc->rho_i + rho_j));
        f -= mj * pi_ij;
    }
    /* Physical viscosity (Müller 2003 eq. 14, the pair's mean mu): (mu / rho_i) V_j (v_j - v_i) lap W. */
    const float lap = eddy_viscosity_laplacian(&pc->k, rr);
    const float fv = 0.5f * (pc->mu_i + mu_j) * (mj / rho_j) * lap / pc->rho_i;
    for (int a = 0; a < 3; ++a) acc[a] += f * gf * d[a] - fv * dv[a];
}

static void compute_forces(eddy_solver *s, eddy_world *w)
{
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float *x = p->x, *y = p->y, *z = p->z, *vx = p->vx, *vy = p->vy, *vz = p->vz;
    const float *rho = p->density, *pres = p->pressure, *mass = p->mass;
    const uint32_t *mat = p->material;
    float *ax = eddy_particles_field(p, s->acceleration, 0);
    float *ay = eddy_particles_field(p, s->acceleration, 1);
    float *az = eddy_particles_field(p, s->acceleration, 2);
    const int mirrors = s->boundary == BOUNDARY_MIRROR;
    const int dims = w->dimensions;
    const eddy_boundaries *b = &w->boundaries;
    const long long cells = (long long)g->occupied_count;
    float amax2 = 0.0f;
#pragma omp parallel for schedule(dynamic, 8) reduction(max : amax2)
    for (long long ci = 0; ci < cells; ++ci) {
        const uint32_t c = g->occupied[ci];
        eddy_range r[EDDY_MAX_CELL_RANGES];
        const int nr = eddy_grid_cell_ranges(g, c, r);
        for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
            if (eddy_particle_is_halo(p, i)) continue; /* updated by its owner */
            const uint32_t mi_ = mat[i];
            pair_ctx pc;
            pc.k = k;
            pc.tiny2 = 1e-12f * k.h2;
            pc.rho_i = rho[i];
            pc.pi_over_rho2 = pres[i] / (rho[i] * rho[i]);
            pc.mu_i = s->viscosity[mi_];
            pc.gscale_i = s->gradient_scale[mi_];
            pc.c_i = s->sound_speed[mi_];
            pc.alpha = s->alpha;
            pc.hs = 0.5f * k.h;
            const float pos[3] = {x[i], y[i], z[i]}, vi[3] = {vx[i], vy[i], vz[i]};
            eddy_mirror mirror[EDDY_MAX_MIRRORS];
            const int nmir = mirrors ? eddy_boundaries_mirrors(b, w->gravity, k.h, pos, mirror) : 0;
            float acc[3] = {0.0f, 0.0f, 0.0f};
            for (int q = 0; q < nr; ++q) {
                for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                    const float xj[3] = {x[j] + r[q].shift[0], y[j] + r[q].shift[1], z[j] + r[q].shift[2]};
                    const float vj[3] = {vx[j], vy[j], vz[j]};
                    const float d[3] = {pos[0] - xj[0], pos[1] - xj[1], pos[2] - xj[2]};
                    const float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                    const uint32_t mj_ = mat[j];
                    if (!(r2 < k.h2)) continue; /* its ghosts are out of reach too (boundary.h) */
                    const float dv[3] = {vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]};
                    pair_accel(&pc, d, r2, mass[j], rho[j], pres[j], dv, s->viscosity[mj_],
                               s->sound_speed[mj_], s->gradient_scale[mj_], acc);
                    for (int m = 0; m < nmir; ++m) {
                        float gp[3], gv[3];
                        eddy_mirror_point(&mirror[m], xj, gp);
                        const float e[3] = {pos[0] - gp[0], pos[1] - gp[1], pos[2] - gp[2]};
                        const float e2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
                        if (!(e2 < k.h2)) continue;
                        eddy_mirror_velocity(&mirror[m], vj, gv);
                        const float dv[3] = {vi[0] - gv[0], vi[1] - gv[1], vi[2] - gv[2]};
                        const float pg = eddy_mirror_pressure(&mirror[m], pres[j], rho[j], xj);
                        pair_accel(&pc, e, e2, mass[j], rho[j], pg, dv, s->viscosity[mj_],
                                   s->sound_speed[mj_], s->gradient_scale[mj_], acc);
                    }
                }
            }
            if (!mirrors) {
                /* Theng & Zhao: one virtual particle per surface within h, at the projection of x_i. */
                const uint32_t m = mat[i];
                const float pb = pres[i] > s->boundary_pressure ? pres[i] : s->boundary_pressure;
                for (size_t cidx = 0; cidx < b->collider_count; ++cidx) {
                    const eddy_collider *col = &b->colliders[cidx];
                    float n[3];
                    const float dist = eddy_collider_distance(col, dims, pos, n);
                    if (!(dist < k.h)) continue;
                    /* A particle already across the wall is projected back by the contact response;
                     * its virtual partner sits at the smallest distance that still has a direction. */
                    const float dd = dist > 1e-3f * k.h ? dist : 1e-3f * k.h;
                    const float e[3] = {dd * n[0], dd * n[1], dd * n[2]};
                    float vrel = 0.0f;
                    for (int a = 0; a < 3; ++a) vrel += (vi[a] - col->velocity[a]) * n[a];
                    /* Only the normal part of the viscous force: the fluid slides along the wall. */
                    const float dv[3] = {vrel * n[0], vrel * n[1], vrel * n[2]};
                    pair_accel(&pc, e, dd * dd, mass[i], s->rest_density[m], pb, dv, s->viscosity[m],
                               s->sound_speed[m], s->gradient_scale[m], acc);
                }
            }
            ax[i] = acc[0];
            ay[i] = acc[1];
            az[i] = acc[2];
            const float a2 = acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2];
            amax2 = a2 > amax2 ? a2 : amax2;
        }
    }
    s->max_accel = sqrtf(amax2);
}

/* Density and pressure of the owned particles, then of their halo copies (eddy_world_refresh_fields:
 * the owners' new values; a no-op in one process), which the force pass reads as neighbours. */
static int density_pass(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    static const int fields[] = {EDDY_FIELD_DENSITY, EDDY_FIELD_PRESSURE};
    compute_density(s, w);
    return eddy_world_refresh_fields(w, fields, sizeof fields / sizeof *fields, err);
}

static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    if ((rc = density_pass(s, w, err))) return rc;
    compute_forces(s, w);
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    double t0 = eddy_time_ms();
    if ((rc = density_pass(s, w, err))) return rc;
    double t1 = eddy_time_ms();
    compute_forces(s, w);
    double t2 = eddy_time_ms();
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, t1 - t0);
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, t2 - t1);
    eddy_world_symplectic_euler(w, s->acceleration, dt);
    return EDDY_OK;
}

static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    double nu_max = 0.0;
    for (size_t m = 0; m < s->nm; ++m) {
        double nu = s->viscosity[m] / s->rest_density[m];
        if (nu > nu_max) nu_max = nu;
    }
    *dt = eddy_world_stable_dt(w, s->cfl, s->c_max, nu_max, s->max_accel, limit);
    return EDDY_OK;
}

/* The state a resume needs (plugin.h, EDDY_COMPONENT_STATE_COMPLETE): the last step's largest
 * acceleration (max_dt's force limit, so a resumed run picks the same time steps), and what create()
 * derived from the initial particles: each material's sound speed c0 and stiffness B, stored as the
 * floats the steps use so that no recomputation can round differently.
 * "tait/1" (eddy 2.0) held max_accel alone; it comes only with checkpoints resumed in the 2.0 order,
 * where create() derived c0 from the scene's initial particles again. */
#define TAIT_STATE_TAG "tait/2"

static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    const size_t n = 1 + 2 * s->nm;
    float *v = malloc(n * sizeof *v);
    if (!v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "tait: out of memory");
    v[0] = s->max_accel;
    memcpy(v + 1, s->sound_speed, s->nm * sizeof *v);
    memcpy(v + 1 + s->nm, s->tait_b, s->nm * sizeof *v);
    int rc = eddy_state_save_floats(TAIT_STATE_TAG, v, n, data, size, err);
    free(v);
    return rc;
}

static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    const char *tag = eddy_state_record_tag(data, size);
    if (tag && strcmp(tag, "tait/1") == 0) {
        if (s->resuming)
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "state record 'tait/1' lacks the sound speeds derived at the run's start, and "
                                  "the solver was created on the checkpoint's particles; expected '%s'",
                                  TAIT_STATE_TAG);
        return eddy_state_load_floats("tait/1", &s->max_accel, 1, data, size, err);
    }
    const size_t n = 1 + 2 * s->nm;
    float *v = malloc(n * sizeof *v);
    if (!v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "tait: out of memory");
    int rc = eddy_state_load_floats(TAIT_STATE_TAG, v, n, data, size, err);
    for (size_t m = 0; m < s->nm && !rc; ++m) {
        if (!(v[1 + m] > 0) || !(v[1 + s->nm + m] > 0))
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "state record '%s': material %zu has sound speed %g and stiffness %g, expected "
                                "both > 0", TAIT_STATE_TAG, m, (double)v[1 + m], (double)v[1 + s->nm + m]);
    }
    if (!rc) {
        s->max_accel = v[0];
        memcpy(s->sound_speed, v + 1, s->nm * sizeof *v);
        memcpy(s->tait_b, v + 1 + s->nm, s->nm * sizeof *v);
        s->c_max = 0.0f;
        for (size_t m = 0; m < s->nm; ++m)
            if (s->sound_speed[m] > s->c_max) s->c_max = s->sound_speed[m];
    }
    free(v);
    return rc;
}

static const eddy_solver_vtable vtable = {
    .size = sizeof(eddy_solver_vtable),
    .create = create,
    .step = step,
    .destroy = destroy,
    .max_dt = max_dt,
    .save = save,
    .load = load,
    .compute_fields = compute_fields,
};

/* Instances keep all their state in the eddy_solver (CONCURRENT_INSTANCES); they update owned
 * particles only and refresh density and pressure on halo copies (DECOMPOSABLE); save() stores the
 * sound speeds create() derived from the initial particles (STATE_COMPLETE). */
static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "tait",
    .version = "2.1.0", /* 2.1: the state record "tait/2" carries the derived sound speeds */
    .description = "Weakly compressible SPH: Tait equation of state, symmetric pressure force, mirror or "
                   "virtual boundary particles (Theng & Zhao c. 2017, Monaghan 1994)",
    .params = params,
    .param_count = P_COUNT,
    .vtable = &vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES | EDDY_COMPONENT_DECOMPOSABLE | EDDY_COMPONENT_STATE_COMPLETE,
    .material_params = material_params,
    .material_param_count = M_COUNT,
};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "tait",
    .version = "2.1.0",
    .init = NULL,
    .deinit = NULL,
    .component_count = 1,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
