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
 *   canonical   grad A(x_i) = sum_j A_j V_j grad_i W_ij, V_j = m_j / rho0_j (far from walls)
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
 * Every sum runs over the toolkit's per-cell candidates (eddy_sph_gather, <eddy_sph/sph.h>) in the
 * grid's fixed order, and each mirror's ghosts are one more SIMD loop over the same candidates, the
 * pair loop written once for both (eddy_sph/partners.h): bit-identical for any number of threads. Tracers are dropped from the candidates (drop_tracers), and
 * the loops have no branch.
 */
#include "vpm_hybrid.h"

#include <eddy_sph/sph.h>

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

/* What every pass's cells read. */
typedef struct vpm_pass {
    eddy_solver *s;
    eddy_world *w;
    const vpm_terms *t;
    float *v[3]; /* the tracers' velocity */
} vpm_pass;

/* A cell of tracers only (most of a tank of them) needs no candidates for the fluid's sums... */
static int wants_fluid(void *ctx, uint32_t c)
{
    const vpm_pass *vp = ctx;
    const eddy_grid *g = &vp->w->grid;
    const uint32_t *mat = vp->w->particles.material;
    int fluid = 0;
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) fluid |= !is_tracer(vp->s, mat[i]);
    return fluid;
}

/* ...and a cell without tracers none for theirs. */
static int wants_tracer(void *ctx, uint32_t c)
{
    const vpm_pass *vp = ctx;
    const eddy_grid *g = &vp->w->grid;
    const uint32_t *mat = vp->w->particles.material;
    int tracer = 0;
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) tracer |= is_tracer(vp->s, mat[i]);
    return tracer;
}

/* Drops the tracers from the candidates of cell c, and the candidates that the box of the cell's
 * particles this pass computes for does not reach (its fluid, or with `for_tracers` its tracers), and
 * sets the fluid's weight to 1 (the number density sums kernels, not masses). Dropped, not masked with
 * weight 0: the SIMD sums' order depends on the candidates' positions in the buffer, and the fluid's
 * motion must not depend on where tracers are (test vpm_hybrid_tracers_are_passive compares the drop
 * with dense and sparse tracers bit for bit). The gather kept what the box of all the cell's particles
 * reaches; the narrower box keeps a subset of that whatever the tracers do (eddy_sph_box_reaches).
 * Call before gathering any solver array. */
static void drop_tracers(const eddy_solver *s, const eddy_grid *g, const eddy_particles *p, uint32_t c,
                         int for_tracers, eddy_sph_candidates *cand)
{
    const uint32_t *mat = p->material;
    eddy_sph_box box = eddy_sph_box_empty(&g->layout);
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i)
        if (is_tracer(s, mat[i]) == for_tracers) eddy_sph_box_add(&box, p->x[i], p->y[i], p->z[i]);
    size_t k = 0;
    for (size_t q = 0; q < cand->count; ++q) {
        const uint32_t j = cand->index[q];
        if (is_tracer(s, mat[j]) || !eddy_sph_box_reaches(&box, cand->x[q], cand->y[q], cand->z[q])) continue;
        cand->x[k] = cand->x[q];
        cand->y[k] = cand->y[q];
        cand->z[k] = cand->z[q];
        cand->m[k] = 1.0f;
        cand->index[k] = j;
        ++k;
    }
    cand->count = k;
}

EDDY_SPH_SIMD_BODY int density_cell(void *ctx, uint32_t c, eddy_sph_candidates *cand, eddy_sph_candidates *near,
                                    float *amax2)
{
    (void)near; /* the mirror loops run over the candidates themselves */
    const vpm_pass *vp = ctx;
    eddy_solver *s = vp->s;
    eddy_world *w = vp->w;
    (void)amax2;
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float h2 = k.h2;
    const float *x = p->x, *y = p->y, *z = p->z, *mass = p->mass;
    const uint32_t *mat = p->material;
    float *rho = p->density, *pres = p->pressure;
    float *num = eddy_particles_field(p, s->f_number, 0);
    drop_tracers(s, g, p, c, 0, cand);
    /* Cells clear of every wall skip the per-particle mirror search (eddy_sph_cell_near_walls). */
    const int walls = eddy_sph_cell_near_walls(&w->boundaries, g, p, c, k.h);
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
        const uint32_t m = mat[i];
        if (is_tracer(s, m)) {
            num[i] = 0.0f;
            rho[i] = s->rest_density[m];
            pres[i] = 0.0f;
            continue;
        }
        const float xi = x[i], yi = y[i], zi = z[i];
        eddy_sph_image img[EDDY_MAX_MIRRORS];
        const int nimg = walls ? eddy_sph_images(&w->boundaries, w->gravity, k.h, xi, yi, zi, img) : 0;
        float sum = eddy_sph_density_real(cand, xi, yi, zi, h2);
        if (nimg) sum += eddy_sph_density_ghosts(cand, h2, img, nimg);
        const float n = k.poly6 * sum + s->self_number[m];
        num[i] = n;
        rho[i] = mass[i] * n;
        const float pr = s->stiffness[m] * (rho[i] - s->rest_density[m]);
        pres[i] = pr < 0.0f ? pr * s->negative_pressure : pr;
    }
    return 0;
}
EDDY_SPH_SIMD_CELL_CLONES(density_cell);

int vpm_density(eddy_solver *s, eddy_world *w)
{
    vpm_pass vp = {.s = s, .w = w};
    return eddy_sph_cell_pass(&w->grid, &w->particles, 0, wants_fluid, density_cell_simd[s->simd], &vp, NULL) ? EDDY_ERR_OUT_OF_MEMORY
                                                                                                 : EDDY_OK;
}

/* The solver arrays the terms pass gathers per candidate. The state slots (eddy_sph/partners.h) hold
 * the pairs' velocity (the smoothed SPH velocity where the solver keeps one), the pressure, and the
 * density the ghosts' hydrostatic pressure continues with (rho times the material's buoyancy factor). */
enum { C_N = EDDY_SPH_STATE_SLOTS, C_A, C_V, C_MU, C_GS, C_NU, C_WX, C_WY, C_WZ, C_COUNT };

/* What the pairs need to know about particle i. */
typedef struct pair_i {
    float n_i, m_i, rho_i, p_over_n2, mu_i, nu_i, gs_i, A_i, inv_n_i;
    float v[3], w[3];
} pair_i;

/* The sums of particle i: acceleration, gradient, its Shepard part, Laplacian of omega. */
typedef struct sums_i {
    float a[3], g[3], s[3], l[3];
} sums_i;

/*
 * One SIMD loop over the candidates of particle i (or their images in mirror `img`, when not NULL).
 * Every term is masked by `on` (within h, not coincident), so the loop has no branch; the pass's
 * switches are loop-invariant selects. A ghost's pressure continues hydrostatically (img->s) and its
 * velocity is the image's; ghosts enter the gradient only in the difference formula.
 */
EDDY_SPH_SIMD_BODY void pair_loop(const eddy_sph_candidates *c, const eddy_kernels *k, float tiny2, const pair_i *pi,
                             float xi, float yi, float zi, const eddy_sph_image *img, int gradient, int difference,
                             int forces, int diffusion, sums_i *out)
{
    const eddy_sph_partners v = eddy_sph_partners_make(c, img);
    const float *n = c->extra[C_N], *A = c->extra[C_A], *V = c->extra[C_V], *mu = c->extra[C_MU],
                *gs = c->extra[C_GS], *nu = c->extra[C_NU], *wx = c->extra[C_WX], *wy = c->extra[C_WY],
                *wz = c->extra[C_WZ];
    const float fg = gradient ? 1.0f : 0.0f, fd = difference ? 1.0f : 0.0f, ff = forces ? 1.0f : 0.0f,
                fl = diffusion ? 1.0f : 0.0f;
    const float fc = img ? 0.0f : fg * (1.0f - fd); /* canonical: real neighbours only */
    const float fdiff = fg * fd;
    const float fdif = img ? 0.0f : fl;             /* no flux of vorticity through a wall */
    float ax = 0, ay = 0, az = 0, gx = 0, gy = 0, gz = 0, sx = 0, sy = 0, sz = 0, lx = 0, ly = 0, lz = 0;
    EDDY_SPH_SIMD_SUM(ax, ay, az, gx, gy, gz, sx, sy, sz, lx, ly, lz)
    for (size_t q = 0; q < v.count; ++q) {
        const eddy_sph_partner j = eddy_sph_partner_at(&v, q, xi, yi, zi);
        const float dx = j.dx, dy = j.dy, dz = j.dz, vjx = j.vx, vjy = j.vy, vjz = j.vz, p = j.pressure;
        const float r2 = dx * dx + dy * dy + dz * dz;
        const int on = (r2 < k->h2) & (r2 > tiny2);
        const float gf = on ? eddy_sph_spiky_grad(k, r2, tiny2) : 0.0f;
        const float r = sqrtf(r2);
        /* gradient: canonical A_j V_j, difference (A_j - A_i) / n_i */
        const float wd = (A[q] - pi->A_i) * pi->inv_n_i * fdiff;
        const float wgt = (A[q] * V[q] * fc + wd) * gf;
        gx += wgt * dx;
        gy += wgt * dy;
        gz += wgt * dz;
        const float ws = gf * V[q] * fc;
        sx += ws * dx;
        sy += ws * dy;
        sz += ws * dz;
        /* forces (number-density form of Hu & Adams 2006) */
        const float f = -(pi->p_over_n2 + p / (n[q] * n[q])) * 0.5f * (pi->gs_i + gs[q]) / pi->m_i * ff;
        const float lap = on ? eddy_sph_viscosity_laplacian(k, r) : 0.0f;
        const float fv = 0.5f * (pi->mu_i + mu[q]) * lap / (n[q] * pi->rho_i) * ff;
        ax += f * gf * dx - fv * (pi->v[0] - vjx);
        ay += f * gf * dy - fv * (pi->v[1] - vjy);
        az += f * gf * dz - fv * (pi->v[2] - vjz);
        /* PSE diffusion */
        const float e = -2.0f * gf * V[q] * 0.5f * (pi->gs_i + gs[q]) * 0.5f * (pi->nu_i + nu[q]) * fdif;
        lx += e * (wx[q] - pi->w[0]);
        ly += e * (wy[q] - pi->w[1]);
        lz += e * (wz[q] - pi->w[2]);
    }
    out->a[0] += ax, out->a[1] += ay, out->a[2] += az;
    out->g[0] += gx, out->g[1] += gy, out->g[2] += gz;
    out->s[0] += sx, out->s[1] += sy, out->s[2] += sz;
    out->l[0] += lx, out->l[1] += ly, out->l[2] += lz;
}

EDDY_SPH_SIMD_BODY int terms_cell(void *ctx, uint32_t c, eddy_sph_candidates *cand, eddy_sph_candidates *near,
                                  float *amax2)
{
    (void)near; /* the mirror loops run over the candidates themselves */
    const vpm_pass *vp = ctx;
    eddy_solver *s = vp->s;
    eddy_world *w = vp->w;
    const vpm_terms *t = vp->t;
    const eddy_grid *g = &w->grid;
    eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float tiny2 = 1e-12f * k.h2;
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
    drop_tracers(s, g, p, c, 0, cand);
    static const int slots[] = {C_N, EDDY_SPH_PRESSURE, EDDY_SPH_VX, EDDY_SPH_VY, EDDY_SPH_VZ, C_WX, C_WY, C_WZ};
    const float *const fields[] = {num, pres, vsrc[0], vsrc[1], vsrc[2], wv[0], wv[1], wv[2]};
    eddy_sph_gather_fields(cand, 8, slots, fields);
    eddy_sph_gather_table(cand, C_MU, s->viscosity, mat);
    eddy_sph_gather_table(cand, C_GS, s->gscale, mat);
    eddy_sph_gather_table(cand, C_NU, s->nu, mat);
    for (size_t q = 0; q < cand->count; ++q) {
        const uint32_t j = cand->index[q], mj = mat[j];
        cand->extra[C_A][q] = s->rest_density[mj] - s->ambient;
        cand->extra[C_V][q] = mass[j] / s->rest_density[mj];
        cand->extra[EDDY_SPH_DENSITY][q] = rho[j] * s->buoyancy[mj];
    }
    /* Cells clear of every wall skip the per-particle mirror search (eddy_sph_cell_near_walls). */
    const int walls = eddy_sph_cell_near_walls(b, g, p, c, k.h);
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
        const uint32_t m = mat[i];
        for (int a = 0; a < 3; ++a) {
            rate[a][i] = 0.0f;
            if (t->gradient) grad[a][i] = 0.0f;
            if (t->forces) acc[a][i] = 0.0f;
        }
        if (is_tracer(s, m)) continue;
        pair_i pi;
        pi.n_i = num[i];
        pi.inv_n_i = 1.0f / pi.n_i;
        pi.m_i = mass[i];
        pi.rho_i = rho[i];
        pi.p_over_n2 = pres[i] / (pi.n_i * pi.n_i);
        pi.mu_i = s->viscosity[m];
        pi.nu_i = s->nu[m];
        pi.gs_i = s->gscale[m];
        pi.A_i = s->rest_density[m] - s->ambient;
        for (int a = 0; a < 3; ++a) {
            pi.v[a] = vsrc[a][i];
            pi.w[a] = wv[a][i];
        }
        const float xi = x[i], yi = y[i], zi = z[i];
        const float pos[3] = {xi, yi, zi};
        /* Without an ambient fluid the space beyond a free surface is void: p = 0 along the
         * surface, so grad p is parallel to grad rho there and generates nothing, which the
         * difference formula (zero between fluid and empty space) gives everywhere. */
        const int difference =
            t->gradient && (s->ambient <= 0.0f || eddy_boundaries_distance(b, pos, NULL, NULL) < k.h);
        const int want_ghosts = t->forces || (t->gradient && difference);
        eddy_sph_image img[EDDY_MAX_MIRRORS];
        const int nimg = want_ghosts && walls ? eddy_sph_images(b, t->gravity, k.h, xi, yi, zi, img) : 0;
        sums_i sum;
        memset(&sum, 0, sizeof sum);
        pair_loop(cand, &k, tiny2, &pi, xi, yi, zi, NULL, t->gradient, difference, t->forces,
                  t->diffusion, &sum);
        /* The ghosts, one loop per mirror over the same candidates (0 beyond h). */
        for (int mi = 0; mi < nimg; ++mi)
            pair_loop(cand, &k, tiny2, &pi, xi, yi, zi, &img[mi], t->gradient, difference, t->forces, 0, &sum);
        if (t->gradient) {
            for (int a = 0; a < 3; ++a) {
                sum.g[a] *= pi.gs_i;
                grad[a][i] = sum.g[a];
            }
            /* (grad rho x g) / rho. With a particle-free ambient fluid the canonical sum sees only
             * the fluid's side of the smoothed density jump: the ambient's side, A_i grad S_i (S
             * the Shepard sum of the fluid), belongs to ambient fluid that has no particles to
             * carry it, so particle i carries it, divided by the ambient's density
             * (docs/solvers/vpm_hybrid.md, "Density gradient and walls"). Inside a particle cloud
             * grad S is zero on the lattice. */
            const float inv_rho = 1.0f / s->rest_density[m];
            const float inv_amb = s->ambient > 0.0f ? pi.A_i * pi.gs_i / s->ambient : 0.0f;
            float gr[3];
            for (int a = 0; a < 3; ++a) gr[a] = sum.g[a] * inv_rho + sum.s[a] * inv_amb;
            rate[0][i] += gr[1] * gvec[2] - gr[2] * gvec[1];
            rate[1][i] += gr[2] * gvec[0] - gr[0] * gvec[2];
            rate[2][i] += gr[0] * gvec[1] - gr[1] * gvec[0];
        }
        if (t->diffusion)
            for (int a = 0; a < 3; ++a) rate[a][i] += sum.l[a];
        if (t->forces) {
            for (int a = 0; a < 3; ++a) acc[a][i] = sum.a[a];
            const float a2 = sum.a[0] * sum.a[0] + sum.a[1] * sum.a[1] + sum.a[2] * sum.a[2];
            *amax2 = a2 > *amax2 ? a2 : *amax2;
        }
        if (w->dimensions == 2) {
            /* In the plane only omega_z exists: (grad rho x g) has no in-plane part anyway. */
            rate[0][i] = rate[1][i] = 0.0f;
        }
    }
    return 0;
}
EDDY_SPH_SIMD_CELL_CLONES(terms_cell);

int vpm_terms_pass(eddy_solver *s, eddy_world *w, const vpm_terms *t)
{
    vpm_pass vp = {.s = s, .w = w, .t = t};
    float amax2 = 0.0f;
    if (eddy_sph_cell_pass(&w->grid, &w->particles, C_COUNT, wants_fluid, terms_cell_simd[s->simd], &vp, &amax2))
        return EDDY_ERR_OUT_OF_MEMORY;
    if (t->forces) s->max_accel = sqrtf(amax2);
    return EDDY_OK;
}

/* One cell of the tracers' velocity: Shepard interpolation of the fluid's. */
EDDY_SPH_SIMD_BODY int tracer_cell(void *ctx, uint32_t c, eddy_sph_candidates *cand, eddy_sph_candidates *near,
                                   float *max)
{
    (void)near, (void)max;
    const vpm_pass *vp = ctx;
    const eddy_solver *s = vp->s;
    const eddy_world *w = vp->w;
    const eddy_grid *g = &w->grid;
    const eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const uint32_t *mat = p->material;
    drop_tracers(s, g, p, c, 1, cand);
    static const int slots[] = {0, 1, 2, 3};
    const float *const fields[] = {eddy_particles_field(p, s->f_number, 0), vp->v[0], vp->v[1], vp->v[2]};
    eddy_sph_gather_fields(cand, 4, slots, fields);
    const float *cx = cand->x, *cy = cand->y, *cz = cand->z, *cn = cand->extra[0], *cvx = cand->extra[1],
                *cvy = cand->extra[2], *cvz = cand->extra[3];
    const size_t nc = cand->count;
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
        if (!is_tracer(s, mat[i])) continue;
        const float xi = p->x[i], yi = p->y[i], zi = p->z[i];
        float sw = 0.0f, sx = 0.0f, sy = 0.0f, sz = 0.0f;
        EDDY_SPH_SIMD_SUM(sw, sx, sy, sz)
        for (size_t q = 0; q < nc; ++q) {
            const float dx = xi - cx[q], dy = yi - cy[q], dz = zi - cz[q];
            const float W = eddy_sph_poly6(&k, dx * dx + dy * dy + dz * dz);
            const float vw = cn[q] > 0.0f ? W / cn[q] : 0.0f; /* V_j W with V_j = 1 / n_j */
            sw += vw;
            sx += vw * cvx[q];
            sy += vw * cvy[q];
            sz += vw * cvz[q];
        }
        /* Shepard inside the fluid (sum ~ 1) and up to its free surface (sum ~ 1/2); beyond it the kernel
         * sum fades, and with it the velocity: the ambient fluid there is at rest. */
        const float norm = sw > 0.5f ? sw : 0.5f;
        vp->v[0][i] = sx / norm;
        vp->v[1][i] = sy / norm;
        vp->v[2][i] = sz / norm;
    }
    return 0;
}
EDDY_SPH_SIMD_CELL_CLONES(tracer_cell);

int vpm_tracer_velocity(eddy_solver *s, eddy_world *w, float *vx, float *vy, float *vz)
{
    if (s->tracer == UINT32_MAX) return EDDY_OK;
    vpm_pass vp = {.s = s, .w = w, .v = {vx, vy, vz}};
    return eddy_sph_cell_pass(&w->grid, &w->particles, 4, wants_tracer, tracer_cell_simd[s->simd], &vp, NULL) ? EDDY_ERR_OUT_OF_MEMORY
                                                                                                : EDDY_OK;
}
