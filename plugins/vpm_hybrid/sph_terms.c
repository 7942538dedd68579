/*
 * The neighbour-grid sums of vpm_hybrid (Gourlay, "Fluid Simulation for Video Games" part 16, and the
 * SPH of its part 15): number and mass density, the mass density gradient with the canonical and
 * difference formulas, the SPH pressure and viscosity accelerations, and the PSE diffusion of vorticity.
 * Tracer particles are skipped as neighbours, so they influence nothing.
 *
 * Kernel gradient convention (core kernels.h): grad_i W(x_i - x_j) = gf(r) (x_i - x_j), gf < 0.
 *
 * Mass density gradient (Gourlay part 16, with A_i = rho0(material of i) - rho_a, the particle's carried
 * mass density less the ambient density):
 *   canonical   grad A(x_i) = sum_j (A_j / n_j) grad_i W_ij            (far from walls)
 *   difference  grad A(x_i) = (1 / n_i) sum_j (A_j - A_i) grad_i W_ij   (within h of a wall, and
 *                                                                        everywhere when rho_a = 0)
 * n = number density (1/m^d). Both are divided by the first moment of the spiky gradient on the
 * material's rest lattice (eddy_lattice_gradient_moment), which makes a linear field's gradient exact
 * there. Near a wall the difference formula also sums the mirror ghosts (the wall continued as a
 * symmetry plane); in uniform fluid every term is A_j - A_i = 0, so a wall makes no gradient, while the
 * canonical formula sees the missing neighbours beyond a free surface (ambient fluid, A = 0). With no
 * ambient fluid (rho_a = 0) the space beyond a free surface is void, where p = 0 along the surface makes
 * grad p parallel to grad rho: no baroclinic torque, so the difference formula is used everywhere and
 * only density differences between fluids generate vorticity.
 *
 * Baroclinic generation: D omega / Dt = (grad rho x grad p) / rho^2 with grad p = rho g (hydrostatic)
 * gives (grad rho x g) / rho, evaluated with the particle's own carried density rho0 (1/s^2).
 *
 * PSE (particle strength exchange, Degond & Mas-Gallic 1989) with the kernel eta = -2 gf (the
 * Brookshaw/Cleary–Monaghan Laplacian): lap omega_i = 2 sum_j V_j (omega_j - omega_i) |gf_ij| / M, V_j = m_j
 * / rho0_j the carried volume, M the same lattice moment; the pair term is symmetric in i and j, so
 * sum_i V_i omega_i (the total circulation) is conserved. Walls: no ghosts, i.e. no flux of vorticity
 * through a wall.
 *
 * SPH forces (number-density form of Hu & Adams 2006, with rho_i = m_i n_i so that an interface between
 * materials of different rest density carries no spurious pressure):
 *   a_i = -(1 / m_i) sum_j (p_i / n_i^2 + p_j / n_j^2) grad_i W_ij (spiky, lattice-normalized)
 *         + sum_j mu_ij (v_j - v_i) lap W_visc(r_ij) / (n_j rho_i)
 * with the walls' mirror ghosts (hydrostatic pressure continuation, free-slip velocity), as in tait.
 *
 * Every sum is a gather over the grid's cell ranges in their fixed order: bit-identical for any number
 * of threads.
 */
#include "vpm_hybrid.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int vpm_reserve(eddy_solver *s, size_t n)
{
    if (n <= s->cap) return 0;
    size_t cap = n + n / 4 + 64;
    float **arrays[] = {&s->rate[0], &s->rate[1], &s->rate[2], &s->x0[0], &s->x0[1], &s->x0[2],
                        &s->w0[0],   &s->w0[1],   &s->w0[2],   &s->u[0],  &s->u[1],  &s->u[2],
                        &s->grad[0], &s->grad[1], &s->grad[2], &s->grad[3], &s->grad[4], &s->grad[5],
                        &s->grad[6], &s->grad[7], &s->grad[8], &s->vs[0], &s->vs[1], &s->vs[2],
                        &s->sx,      &s->sy,      &s->sz,      &s->sax,   &s->say,   &s->saz};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; ++a) {
        float *p = realloc(*arrays[a], cap * sizeof(float));
        if (!p) return -1;
        *arrays[a] = p;
    }
    s->cap = cap;
    return 0;
}

static inline int is_tracer(const eddy_solver *s, uint32_t m)
{
    return m == s->tracer;
}

void vpm_density(eddy_solver *s, eddy_world *w)
{
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float h2 = k.h2;
    const float *x = p->x, *y = p->y, *z = p->z, *mass = p->mass;
    const uint32_t *mat = p->material;
    float *rho = p->density, *pres = p->pressure;
    float *num = eddy_particles_field(p, s->f_number, 0);
    const long long cells = (long long)g->occupied_count;
#pragma omp parallel for schedule(dynamic, 8)
    for (long long ci = 0; ci < cells; ++ci) {
        const uint32_t c = g->occupied[ci];
        eddy_range r[EDDY_MAX_CELL_RANGES];
        const int nr = eddy_grid_cell_ranges(g, c, r);
        for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
            const uint32_t m = mat[i];
            if (is_tracer(s, m)) {
                num[i] = 0.0f;
                rho[i] = s->rest_density[m];
                pres[i] = 0.0f;
                continue;
            }
            const float xi = x[i], yi = y[i], zi = z[i];
            const float pos[3] = {xi, yi, zi};
            eddy_mirror mirror[EDDY_MAX_MIRRORS];
            const int nmir = eddy_boundaries_mirrors(&w->boundaries, w->gravity, k.h, pos, mirror);
            float sum = 0.0f;
            for (int q = 0; q < nr; ++q) {
                const float sx = xi - r[q].shift[0], sy = yi - r[q].shift[1], sz = zi - r[q].shift[2];
                for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                    if (is_tracer(s, mat[j])) continue;
                    const float dx = sx - x[j], dy = sy - y[j], dz = sz - z[j];
                    const float d = h2 - (dx * dx + dy * dy + dz * dz);
                    if (!(d > 0.0f)) continue; /* its ghosts are out of reach too (boundary.h) */
                    sum += d * d * d;
                    const float xj[3] = {x[j] + r[q].shift[0], y[j] + r[q].shift[1], z[j] + r[q].shift[2]};
                    for (int mi = 0; mi < nmir; ++mi) {
                        float gp[3];
                        eddy_mirror_point(&mirror[mi], xj, gp);
                        const float ex = xi - gp[0], ey = yi - gp[1], ez = zi - gp[2];
                        const float e = h2 - (ex * ex + ey * ey + ez * ez);
                        if (e > 0.0f) sum += e * e * e;
                    }
                }
            }
            const float n = k.poly6 * sum + s->self_number[m];
            num[i] = n;
            rho[i] = mass[i] * n;
            const float pr = s->stiffness[m] * (rho[i] - s->rest_density[m]);
            pres[i] = pr < 0.0f ? pr * s->negative_pressure : pr;
        }
    }
}

/* What one gather needs to know about particle i. */
typedef struct pair_i {
    eddy_kernels k;
    float tiny2;
    float n_i, m_i, rho_i, p_over_n2, mu_i, nu_i, gs_i, A_i, V_i;
    float v[3], w[3];
    int difference; /* within h of a wall: difference formula */
} pair_i;

/* Pressure and viscosity of one partner at offset d = x_i - x_j (r2 < h^2), with its number density,
 * pressure, velocity difference dv = v_i - v_j, mu and gradient scale. */
static inline void pair_forces(const pair_i *pi, const float d[3], float r, float gf, float n_j, float p_j,
                               const float dv[3], float mu_j, float gs_j, float acc[3])
{
    const float f = -(pi->p_over_n2 + p_j / (n_j * n_j)) * 0.5f * (pi->gs_i + gs_j) / pi->m_i;
    const float lap = eddy_viscosity_laplacian(&pi->k, r);
    const float fv = 0.5f * (pi->mu_i + mu_j) * lap / (n_j * pi->rho_i);
    for (int a = 0; a < 3; ++a) acc[a] += f * gf * d[a] - fv * dv[a];
}

void vpm_terms_pass(eddy_solver *s, eddy_world *w, const vpm_terms *t)
{
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float *x = p->x, *y = p->y, *z = p->z, *vx = p->vx, *vy = p->vy, *vz = p->vz;
    const float *pres = p->pressure, *mass = p->mass, *rho = p->density;
    const uint32_t *mat = p->material;
    const float *num = eddy_particles_field(p, s->f_number, 0);
    const float *wv[3], *vsrc[3] = {vx, vy, vz};
    for (int a = 0; a < 3; ++a) wv[a] = eddy_particles_field(p, s->f_vorticity, a);
    if (s->f_sph_velocity >= 0)
        for (int a = 0; a < 3; ++a) vsrc[a] = eddy_particles_field(p, s->f_sph_velocity, a);
    float *acc[3] = {NULL, NULL, NULL}, *grad[3];
    for (int a = 0; a < 3; ++a) {
        grad[a] = eddy_particles_field(p, s->f_gradient, a);
        if (s->f_acceleration >= 0) acc[a] = eddy_particles_field(p, s->f_acceleration, a);
    }
    float *rate[3] = {s->rate[0], s->rate[1], s->rate[2]};
    const float gvec[3] = {w->gravity[0], w->gravity[1], w->gravity[2]};
    const eddy_boundaries *b = &w->boundaries;
    const long long cells = (long long)g->occupied_count;
    float amax2 = 0.0f;
#pragma omp parallel for schedule(dynamic, 8) reduction(max : amax2)
    for (long long ci = 0; ci < cells; ++ci) {
        const uint32_t c = g->occupied[ci];
        eddy_range r[EDDY_MAX_CELL_RANGES];
        const int nr = eddy_grid_cell_ranges(g, c, r);
        for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
            const uint32_t m = mat[i];
            for (int a = 0; a < 3; ++a) {
                rate[a][i] = 0.0f;
                if (t->gradient) grad[a][i] = 0.0f;
                if (t->forces) acc[a][i] = 0.0f;
            }
            if (is_tracer(s, m)) continue;
            pair_i pi;
            pi.k = k;
            pi.tiny2 = 1e-12f * k.h2;
            pi.n_i = num[i];
            pi.m_i = mass[i];
            pi.rho_i = rho[i];
            pi.p_over_n2 = pres[i] / (pi.n_i * pi.n_i);
            pi.mu_i = s->viscosity[m];
            pi.nu_i = s->nu[m];
            pi.gs_i = s->gscale[m];
            pi.A_i = s->rest_density[m] - s->ambient;
            pi.V_i = mass[i] / s->rest_density[m];
            for (int a = 0; a < 3; ++a) {
                pi.v[a] = vsrc[a][i];
                pi.w[a] = wv[a][i];
            }
            const float pos[3] = {x[i], y[i], z[i]};
            /* Without an ambient fluid the space beyond a free surface is void: p = 0 along the
             * surface, so grad p is parallel to grad rho there and generates nothing, which the
             * difference formula (zero between fluid and empty space) gives everywhere. */
            pi.difference = t->gradient && (s->ambient <= 0.0f || eddy_boundaries_distance(b, pos, NULL, NULL) < k.h);
            eddy_mirror mirror[EDDY_MAX_MIRRORS];
            const int want_ghosts = t->forces || (t->gradient && pi.difference);
            const int nmir = want_ghosts ? eddy_boundaries_mirrors(b, t->gravity, k.h, pos, mirror) : 0;
            float ai[3] = {0, 0, 0}, gi[3] = {0, 0, 0}, li[3] = {0, 0, 0}, si[3] = {0, 0, 0};
            for (int q = 0; q < nr; ++q) {
                for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                    const uint32_t mj = mat[j];
                    if (is_tracer(s, mj)) continue;
                    const float xj[3] = {x[j] + r[q].shift[0], y[j] + r[q].shift[1], z[j] + r[q].shift[2]};
                    const float d[3] = {pos[0] - xj[0], pos[1] - xj[1], pos[2] - xj[2]};
                    const float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                    if (!(r2 < k.h2)) continue; /* its ghosts are out of reach too (boundary.h) */
                    const float n_j = num[j];
                    const float A_j = s->rest_density[mj] - s->ambient;
                    if (r2 > pi.tiny2) {
                        const float rr = sqrtf(r2);
                        const float gf = eddy_spiky_grad(&k, rr);
                        if (t->gradient) {
                            /* canonical: A_j / n_j; difference: (A_j - A_i) / n_i */
                            const float V_j = mass[j] / s->rest_density[mj];
                            const float wgt = pi.difference ? (A_j - pi.A_i) / pi.n_i : A_j * V_j;
                            for (int a = 0; a < 3; ++a) gi[a] += wgt * gf * d[a];
                            if (!pi.difference)
                                for (int a = 0; a < 3; ++a) si[a] += gf * d[a] * V_j;
                        }
                        if (t->forces) {
                            const float dv[3] = {pi.v[0] - vsrc[0][j], pi.v[1] - vsrc[1][j], pi.v[2] - vsrc[2][j]};
                            pair_forces(&pi, d, rr, gf, n_j, pres[j], dv, s->viscosity[mj], s->gscale[mj], ai);
                        }
                        if (t->diffusion) {
                            const float V_j = mass[j] / s->rest_density[mj];
                            const float e = -2.0f * gf * V_j * 0.5f * (pi.gs_i + s->gscale[mj]) *
                                            0.5f * (pi.nu_i + s->nu[mj]);
                            for (int a = 0; a < 3; ++a) li[a] += e * (wv[a][j] - pi.w[a]);
                        }
                    }
                    for (int mi = 0; mi < nmir; ++mi) {
                        float gp[3];
                        eddy_mirror_point(&mirror[mi], xj, gp);
                        const float e[3] = {pos[0] - gp[0], pos[1] - gp[1], pos[2] - gp[2]};
                        const float e2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
                        if (!(e2 < k.h2) || e2 <= pi.tiny2) continue;
                        const float re = sqrtf(e2);
                        const float gf = eddy_spiky_grad(&k, re);
                        if (t->gradient && pi.difference) {
                            const float wgt = (A_j - pi.A_i) / pi.n_i;
                            for (int a = 0; a < 3; ++a) gi[a] += wgt * gf * e[a];
                        }
                        if (t->forces) {
                            const float vj[3] = {vsrc[0][j], vsrc[1][j], vsrc[2][j]};
                            float gv[3];
                            eddy_mirror_velocity(&mirror[mi], vj, gv);
                            const float dv[3] = {pi.v[0] - gv[0], pi.v[1] - gv[1], pi.v[2] - gv[2]};
                            /* Hydrostatic continuation for the gravity the SPH part feels, g (1 - rho_a / rho0). */
                            const float pg = eddy_mirror_pressure(&mirror[mi], pres[j], rho[j] * s->buoyancy[mj], xj);
                            pair_forces(&pi, e, re, gf, n_j, pg, dv, s->viscosity[mj], s->gscale[mj], ai);
                        }
                    }
                }
            }
            if (t->gradient) {
                for (int a = 0; a < 3; ++a) {
                    gi[a] *= pi.gs_i;
                    grad[a][i] = gi[a];
                }
                /* (grad rho x g) / rho. With a particle-free ambient fluid the canonical sum sees only the
                 * fluid's side of the smoothed density jump: the ambient's side, A_i grad S_i (S the
                 * Shepard sum of the fluid), belongs to ambient fluid that has no particles to carry it,
                 * so particle i carries it, divided by the ambient's density (docs/solvers/vpm_hybrid.md,
                 * "Density gradient and walls"). Inside a particle cloud grad S is zero on the lattice. */
                const float inv_rho = 1.0f / s->rest_density[m];
                const float inv_amb = s->ambient > 0.0f ? pi.A_i * pi.gs_i / s->ambient : 0.0f;
                float gr[3];
                for (int a = 0; a < 3; ++a) gr[a] = gi[a] * inv_rho + si[a] * inv_amb;
                rate[0][i] += gr[1] * gvec[2] - gr[2] * gvec[1];
                rate[1][i] += gr[2] * gvec[0] - gr[0] * gvec[2];
                rate[2][i] += gr[0] * gvec[1] - gr[1] * gvec[0];
            }
            if (t->diffusion)
                for (int a = 0; a < 3; ++a) rate[a][i] += li[a];
            if (t->forces) {
                for (int a = 0; a < 3; ++a) acc[a][i] = ai[a];
                const float a2 = ai[0] * ai[0] + ai[1] * ai[1] + ai[2] * ai[2];
                amax2 = a2 > amax2 ? a2 : amax2;
            }
            if (w->dimensions == 2) {
                /* In the plane only omega_z exists: (grad rho x g) has no in-plane part anyway. */
                rate[0][i] = rate[1][i] = 0.0f;
            }
        }
    }
    if (t->forces) s->max_accel = sqrtf(amax2);
}

void vpm_tracer_velocity(eddy_solver *s, eddy_world *w, float *vx, float *vy, float *vz)
{
    if (s->tracer == UINT32_MAX) return;
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float *x = p->x, *y = p->y, *z = p->z;
    const uint32_t *mat = p->material;
    const float *num = eddy_particles_field(p, s->f_number, 0);
    const long long cells = (long long)g->occupied_count;
#pragma omp parallel for schedule(dynamic, 8)
    for (long long ci = 0; ci < cells; ++ci) {
        const uint32_t c = g->occupied[ci];
        eddy_range r[EDDY_MAX_CELL_RANGES];
        const int nr = eddy_grid_cell_ranges(g, c, r);
        for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
            if (!is_tracer(s, mat[i])) continue;
            float sw = 0.0f, sv[3] = {0, 0, 0};
            for (int q = 0; q < nr; ++q) {
                const float sxi = x[i] - r[q].shift[0], syi = y[i] - r[q].shift[1], szi = z[i] - r[q].shift[2];
                for (uint32_t j = r[q].begin; j < r[q].end; ++j) {
                    if (is_tracer(s, mat[j])) continue;
                    const float dx = sxi - x[j], dy = syi - y[j], dz = szi - z[j];
                    const float W = eddy_poly6(&k, dx * dx + dy * dy + dz * dz);
                    if (!(W > 0.0f) || !(num[j] > 0.0f)) continue;
                    const float vw = W / num[j];
                    sw += vw;
                    sv[0] += vw * vx[j];
                    sv[1] += vw * vy[j];
                    sv[2] += vw * vz[j];
                }
            }
            /* Shepard inside the fluid (sum ~ 1) and up to its free surface (sum ~ 1/2); beyond it the
             * kernel sum fades, and with it the velocity: the ambient fluid there is at rest. */
            const float norm = sw > 0.5f ? sw : 0.5f;
            vx[i] = sv[0] / norm;
            vy[i] = sv[1] / norm;
            vz[i] = sv[2] / norm;
        }
    }
}
