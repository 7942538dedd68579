/*
 * Position Based Fluids (Macklin & Müller 2013), as broken down by Qie & Su 2021 ("Technical Breakdown
 * of Position Based Fluids") and Mijalkovic ("Particle Based Fluids in Rust", University of Toronto,
 * undated):
 *   apply gravity and predict x* = x + dt v
 *   -> grid and CSR neighbor lists on x* (built once, reused by every iteration)
 *   -> `iterations` Jacobi iterations of: lambda (density constraint, relaxation epsilon)
 *                                         -> delta-p (with the s_corr artificial pressure)
 *                                         -> collision projection against the container and colliders
 *   -> v = (x* - x) / dt -> vorticity confinement and XSPH viscosity -> boundary velocity response.
 *
 * Units and scaling (so that the defaults hold at any particle spacing, rest density and time step):
 *   C_i = rho_i / rho0 - 1 with rho_i = sum_j m_j W_poly6, grad_k C_i = (m_k / rho0) grad W_spiky, so
 *   lambda has units of length^2 (a pressure p corresponds to lambda = -p dt^2 / rho0).
 *   - The relaxation epsilon is given in units of D0 = sum_k |grad_k C_i|^2 on the material's rest
 *     lattice (1 / length^2). Its default, 1, keeps the Jacobi iteration stable: on the rest lattice
 *     (h = 2 spacings) the largest eigenvalue of D^-1 J J^T is 2.15 in 2D and 2.82 in 3D, above the
 *     Jacobi bound of 2 when epsilon << D0.
 *   - s_corr = -k (W / W(dq))^n is read as an artificial pressure in units of rho0 |g| h and enters
 *     the lambda sum as -k (W / W(dq))^n dt^2 |g| h. Both write-ups add it unscaled to lambda, which is
 *     dimensionally inconsistent and makes it a fixed position push per iteration: at small time
 *     steps it swamps the flow.
 * Walls: every density and delta-p sum includes the mirror ghosts of the core (eddy_boundaries_mirrors,
 * the same ghosts sph_mueller uses): the fluid reflected across each wall within h, carrying the
 * lambda of the particle it mirrors. A free-slip wall is then the symmetry plane of a doubled fluid,
 * and particles next to it reach rest density at the rest spacing instead of packing against it.
 *
 * Determinism: every sum is a gather over the particle's CSR list (sorted by index) in a fixed order
 * and each thread writes only its own particles, so the result does not depend on the thread count.
 */
#include <eddy/eddy.h>
#include <eddy_sph/sph.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    P_ITERATIONS,
    P_RELAXATION,
    P_SCORR_K,
    P_SCORR_N,
    P_SCORR_DQ,
    P_VORTICITY,
    P_XSPH,
    P_CLAMP,
    P_CFL,
    P_COUNT
};

static const eddy_param_desc params[P_COUNT] = {
    [P_ITERATIONS] = EDDY_PARAM_INT_DESC(
        "iterations", 4, 1, 100, "1",
        "Jacobi iterations of the density constraint per step (lambda, delta-p, collisions). More "
        "iterations give a stiffer, less compressible fluid at proportional cost."),
    [P_RELAXATION] = EDDY_PARAM_REAL_DESC(
        "relaxation", 1.0, 0.0, 100.0, "1",
        "Constraint-force mixing epsilon of lambda = -C / (sum |grad C|^2 + epsilon), in units of "
        "sum |grad C|^2 of a full neighborhood on the rest lattice (dimensionless: the same value works "
        "at any spacing and rest density). The default 1 keeps the Jacobi iteration stable; below about "
        "0.4 (3D) or 0.1 (2D) it can oscillate; larger values soften the fluid."),
    [P_SCORR_K] = EDDY_PARAM_REAL_DESC(
        "scorr_k", 0.1, 0.0, 1.0, "rho0 |g| h",
        "Strength k of the artificial pressure s_corr = -k (W(r) / W(dq))^n (tensile instability "
        "correction, Mijalkovic §4.1), in units of the hydrostatic pressure over one smoothing radius "
        "rho0 |g| h, applied as -k (W / W(dq))^n dt^2 |g| h in lambda; zero without gravity."),
    [P_SCORR_N] = EDDY_PARAM_INT_DESC("scorr_n", 4, 1, 8, "1", "Exponent n of the artificial pressure s_corr."),
    [P_SCORR_DQ] = EDDY_PARAM_REAL_DESC(
        "scorr_dq", 0.2, 0.05, 0.9, "h",
        "Reference distance |dq| of s_corr, as a fraction of the smoothing radius h (Macklin & "
        "Müller 2013 recommend 0.1 to 0.3)."),
    [P_VORTICITY] = EDDY_PARAM_REAL_DESC(
        "vorticity_epsilon", 0.01, 0.0, 100.0, "m/s",
        "Vorticity confinement strength epsilon of f = epsilon (N x omega) (Mijalkovic §4.2), an "
        "acceleration per unit vorticity, sim units. 0 turns it off; it does not conserve momentum."),
    [P_XSPH] = EDDY_PARAM_REAL_DESC(
        "xsph_c", 0.01, 0.0, 1.0, "1",
        "XSPH viscosity c of v_i += c sum_j (m_j / rho0) (v_j - v_i) W_poly6 (Mijalkovic §4.3); "
        "dimensionless with the volume weights (1 would replace v by its kernel average)."),
    [P_CLAMP] = EDDY_PARAM_BOOL_DESC(
        "unilateral", 1,
        "Clamp the constraint to C = max(rho / rho0 - 1, 0), so that particles at the free surface, "
        "whose sums lack neighbors, are not pulled together (true, default); false is the two-sided "
        "constraint of Macklin & Müller 2013."),
    [P_CFL] = EDDY_PARAM_REAL_DESC(
        "cfl", 0.4, 0.01, 1.0, "1",
        "Time-step limit cfl * h / v_max (PBF has no sound speed; the neighbor lists of x* must stay "
        "valid over the step)."),
};

/* The per-material parameter PBF reads (the shared declaration of world.h): the self-contribution
 * to the density sum. Viscosity and stiffness have no role in the method (XSPH is its viscosity). */
enum { M_INITIAL_SUM, M_COUNT };
static const eddy_param_desc material_params[M_COUNT] = {
    [M_INITIAL_SUM] = EDDY_MATERIAL_INITIAL_SUM_DESC,
};

struct eddy_solver {
    int iterations;
    float relaxation, scorr_k, scorr_dq, vort_eps, xsph_c, cfl;
    int scorr_n, unilateral;
    int f_prev, f_lambda, f_vort; /* field ids */
    /* per material: rest density, mass and the density's self term (eddy_sph_materials); 1 / rho0 and
     * the relaxation epsilon */
    eddy_sph_materials mat;
    float *inv_rho0, *epsilon;
    /* per-particle scratch of the current step (indexed like the particles between grid builds) */
    float *s[4];
    unsigned char *near; /* 1: within 1.5 h of a surface at the start of the step (mirrors, contacts) */
    unsigned char *mirror_count; /* mirrors of particle i in this iteration (near particles only) */
    uint32_t *mirror_slot;       /* first of EDDY_MAX_MIRRORS slots of a near particle in `mirrors` */
    eddy_sph_image *mirrors;     /* computed by lambda_pass, reused by delta_pass */
    size_t mirror_capacity;
    size_t capacity;
    uint32_t max_neighbors; /* longest neighbor list of the step */
    float uniform_mass;     /* the mass of every particle when they are all equal, else 0 */
};

/*
 * Owned particles and halo copies. With several processes the particle set also holds halo copies of
 * particles other processes own: they are read as neighbors, never updated here, and their fields
 * arrive through eddy_world_refresh_fields(). halo_flags() is NULL in one process (no halo copies), so
 * the test costs nothing there and the loops run as they always did.
 */
static inline const uint8_t *halo_flags(const eddy_particles *p)
{
    return p->halo_count ? p->flags : NULL;
}

static inline int is_halo(const uint8_t *halo, size_t i)
{
    return halo && (halo[i] & EDDY_PARTICLE_HALO);
}

/* (dx, dy, dz)[i] = (sx, sy, sz)[i] for every owned particle i; halo copies keep theirs. */
static void copy_owned(const eddy_particles *p, float *dx, float *dy, float *dz, const float *sx, const float *sy,
                       const float *sz)
{
    const long long n = (long long)p->count;
    const uint8_t *halo = halo_flags(p);
    if (!halo) {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) {
            dx[i] = sx[i];
            dy[i] = sy[i];
            dz[i] = sz[i];
        }
        return;
    }
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        if (halo[i] & EDDY_PARTICLE_HALO) continue;
        dx[i] = sx[i];
        dy[i] = sy[i];
        dz[i] = sz[i];
    }
}

static void destroy(eddy_solver *s)
{
    if (!s) return;
    eddy_sph_materials_free(&s->mat);
    free(s->inv_rho0);
    free(s->epsilon);
    for (int k = 0; k < 4; ++k) free(s->s[k]);
    free(s->near);
    free(s->mirror_count);
    free(s->mirror_slot);
    free(s->mirrors);
    free(s);
}

/*
 * D0 = sum_k |grad_k C_i|^2 for a particle inside an infinite rest lattice (square/cubic, spacing a,
 * the material's particle_dist): sum_j |(m / rho0) grad W_spiky(x_j)|^2 + |sum_j ...|^2, where the
 * second term vanishes by symmetry.
 */
static double lattice_gradient_norm(const eddy_kernels *k, double mass, double rho0, double a, int dims)
{
    const int n = (int)ceil(k->h / a) + 1;
    double sum = 0.0;
    for (int iz = dims == 3 ? -n : 0; iz <= (dims == 3 ? n : 0); ++iz)
        for (int iy = -n; iy <= n; ++iy)
            for (int ix = -n; ix <= n; ++ix) {
                double r = a * sqrt((double)(ix * ix + iy * iy + iz * iz));
                if (r <= 0.0 || r >= k->h) continue;
                double g = (mass / rho0) * k->spiky_grad * (k->h - r) * (k->h - r);
                sum += g * g;
            }
    return sum;
}

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    const eddy_param_values *pv = setup->params;
    if (w->material_count == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "pbf: the world has no material");
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory");
    s->iterations = (int)pv->values[P_ITERATIONS].integer;
    s->relaxation = (float)pv->values[P_RELAXATION].number;
    s->scorr_k = (float)pv->values[P_SCORR_K].number;
    s->scorr_n = (int)pv->values[P_SCORR_N].integer;
    s->scorr_dq = (float)pv->values[P_SCORR_DQ].number;
    s->vort_eps = (float)pv->values[P_VORTICITY].number;
    s->xsph_c = (float)pv->values[P_XSPH].number;
    s->unilateral = pv->values[P_CLAMP].number != 0.0;
    s->cfl = (float)pv->values[P_CFL].number;
    const size_t nm = w->material_count;
    s->inv_rho0 = calloc(nm, sizeof(float));
    s->epsilon = calloc(nm, sizeof(float));
    if (!s->inv_rho0 || !s->epsilon) {
        destroy(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory");
    }
    /* The self term (initial_sum - 1) m W(0): the density sums below include the particle itself. */
    int rc = eddy_sph_materials_init(&s->mat, w, NULL, NULL, &material_params[M_INITIAL_SUM], "pbf", err);
    if (rc) {
        destroy(s);
        return rc;
    }
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    for (size_t m = 0; m < nm; ++m) {
        const eddy_material *mat = &w->materials[m];
        double d0 = lattice_gradient_norm(&k, mat->particle_mass, mat->rest_density, mat->particle_dist,
                                          w->dimensions);
        if (!(d0 > 0.0)) {
            destroy(s);
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "pbf: material '%s': no neighbor within the smoothing radius h = %g at the "
                                  "rest spacing %g; PBF needs h of at least about 2 particle spacings",
                                  mat->name, (double)w->smoothing_radius, (double)mat->particle_dist);
        }
        s->inv_rho0[m] = 1.0f / mat->rest_density;
        s->epsilon[m] = (float)(s->relaxation * d0);
    }
    if ((rc = eddy_particles_add_field(&w->particles, "previous_position", 3, &s->f_prev, err)) ||
        (rc = eddy_particles_add_field(&w->particles, "lambda", 1, &s->f_lambda, err)) ||
        (rc = eddy_particles_add_field(&w->particles, "vorticity", 3, &s->f_vort, err))) {
        destroy(s);
        return rc;
    }
    *out = s;
    return EDDY_OK;
}

static int reserve(eddy_solver *s, size_t n, eddy_error *err)
{
    if (n <= s->capacity) return EDDY_OK;
    size_t cap = n + n / 4 + 16;
    for (int k = 0; k < 4; ++k) {
        float *a = realloc(s->s[k], cap * sizeof(float));
        if (!a) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory for %zu particles", n);
        s->s[k] = a;
    }
    unsigned char *near = realloc(s->near, cap), *count = near ? realloc(s->mirror_count, cap) : NULL;
    if (near) s->near = near;
    if (count) s->mirror_count = count;
    uint32_t *slot = count ? realloc(s->mirror_slot, cap * sizeof(uint32_t)) : NULL;
    if (!slot) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory for %zu particles", n);
    s->mirror_slot = slot;
    s->capacity = cap;
    return EDDY_OK;
}

/* Grid and neighbor lists on the current positions, scratch sized for them. */
static int prepare(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    double t0 = eddy_time_ms();
    if ((rc = eddy_grid_build_neighbor_lists(&w->grid, &w->particles, w->smoothing_radius, err))) return rc;
    if ((rc = reserve(s, w->particles.count, err))) return rc;
    /* Which particles can meet a wall during this step's iterations: those within 1.5 h of a surface
     * at the predicted position (the iterations move a particle by a small fraction of h; the host's
     * explosion guard stops a run whose particles cross h in a step). The rest skip the mirror and
     * contact queries; the final boundary response still covers every particle. The longest list
     * sizes the gather buffers. */
    const eddy_particles *p = &w->particles;
    const long long n = (long long)p->count;
    const float reach = 1.5f * w->smoothing_radius;
    const int walls = w->boundaries.collider_count > 0;
    const uint32_t *off = w->grid.nbr_offset;
    uint32_t longest = 0;
    float mmin = n ? p->mass[0] : 0.0f, mmax = mmin;
#pragma omp parallel for schedule(static) reduction(max : longest, mmax) reduction(min : mmin)
    for (long long i = 0; i < n; ++i) {
        mmin = p->mass[i] < mmin ? p->mass[i] : mmin;
        mmax = p->mass[i] > mmax ? p->mass[i] : mmax;
        const float pos[3] = {p->x[i], p->y[i], p->z[i]};
        s->near[i] = walls && eddy_boundaries_distance(&w->boundaries, pos, NULL, NULL) < reach;
        uint32_t len = off[i + 1] - off[i];
        longest = len > longest ? len : longest;
    }
    s->max_neighbors = longest;
    s->uniform_mass = n && mmin == mmax ? mmin : 0.0f;
    /* Mirror slots of the near particles (a serial prefix: cheap next to the neighbor loops). */
    size_t near_count = 0;
    for (long long i = 0; i < n; ++i) {
        s->mirror_slot[i] = (uint32_t)(near_count * EDDY_MAX_MIRRORS);
        s->mirror_count[i] = 0;
        near_count += s->near[i];
    }
    if (near_count * EDDY_MAX_MIRRORS > s->mirror_capacity) {
        size_t cap = (near_count + near_count / 4 + 16) * EDDY_MAX_MIRRORS;
        eddy_sph_image *m = realloc(s->mirrors, cap * sizeof(eddy_sph_image));
        if (!m) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory for the wall mirrors");
        s->mirrors = m;
        s->mirror_capacity = cap;
    }
    eddy_world_add_phase_time(w, EDDY_PHASE_GRID, eddy_time_ms() - t0);
    return EDDY_OK;
}

/* Per-thread buffers for one particle's neighbors, gathered contiguous (differences x_i - x_j with the
 * periodic minimum image applied, mass, lambda), so that the sums run as SIMD loops. */
typedef struct nbuf {
    float *dx, *dy, *dz, *m, *l;
    float *u, *v, *w, *o; /* velocity and vorticity differences (velocity_passes) */
    void *block;
} nbuf;

/* uniform_mass > 0: every particle has this mass, so the mass buffer is filled once here and
 * gather() leaves it alone. */
static int nbuf_init(nbuf *b, uint32_t n, float uniform_mass)
{
    size_t cap = ((size_t)n + 16) & ~(size_t)15; /* > n: room for the particle itself */
    b->block = aligned_alloc(64, 9 * cap * sizeof(float));
    if (!b->block) return -1;
    float *f = b->block;
    float **arrays[9] = {&b->dx, &b->dy, &b->dz, &b->m, &b->l, &b->u, &b->v, &b->w, &b->o};
    for (int a = 0; a < 9; ++a) *arrays[a] = f + a * cap;
    if (uniform_mass > 0.0f)
        for (size_t q = 0; q < cap; ++q) b->m[q] = uniform_mass;
    return 0;
}

/* Everything the passes read, set up once per pass. */
typedef struct ctx {
    const float *x, *y, *z, *mass;
    const uint32_t *mat, *off, *idx;
    eddy_kernels k;
    const eddy_grid_layout *layout;
    const eddy_boundaries *b;
    int periodic, walls;
    int uniform_mass; /* masses need not be gathered (nbuf_init filled them) */
} ctx;

static ctx make_ctx(const eddy_world *w)
{
    ctx c;
    const eddy_particles *p = &w->particles;
    c.x = p->x;
    c.y = p->y;
    c.z = p->z;
    c.mass = p->mass;
    c.mat = p->material;
    c.off = w->grid.nbr_offset;
    c.idx = w->grid.nbr_index;
    c.k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    c.layout = &w->grid.layout;
    c.b = &w->boundaries;
    c.periodic = c.layout->periodic[0] || c.layout->periodic[1] || c.layout->periodic[2];
    c.walls = w->boundaries.collider_count > 0;
    c.uniform_mass = 0;
    return c;
}

/* Mirror ghosts of the walls within h of particle i (0 when there are none or i is far from them),
 * stored in the particle's slots for delta_pass. */
static inline int mirrors_of(const ctx *c, const eddy_solver *s, uint32_t i)
{
    if (!c->walls || !s->near[i]) return 0;
    /* No gravity: mirrored pressure (PBF's ghosts carry lambda, not a pressure). */
    int n = eddy_sph_images(c->b, NULL, c->k.h, c->x[i], c->y[i], c->z[i], s->mirrors + s->mirror_slot[i]);
    s->mirror_count[i] = (unsigned char)n;
    return n;
}

/* Gathers the neighbors of i into b (differences x_i - x_j, masses, and lambdas when lam != NULL),
 * followed by i itself (difference 0); returns the number of neighbors. */
static inline uint32_t gather(const ctx *c, uint32_t i, const float *lam, nbuf *b)
{
    const uint32_t begin = c->off[i], nn = c->off[i + 1] - begin;
    const uint32_t *idx = c->idx + begin;
    const float xi = c->x[i], yi = c->y[i], zi = c->z[i];
    for (uint32_t q = 0; q < nn; ++q) {
        const uint32_t j = idx[q];
        b->dx[q] = xi - c->x[j];
        b->dy[q] = yi - c->y[j];
        b->dz[q] = zi - c->z[j];
        if (!c->uniform_mass) b->m[q] = c->mass[j];
        if (lam) b->l[q] = lam[j];
    }
    /* The particle itself after the neighbors, for the mirror loops (its own image is a ghost). */
    b->dx[nn] = b->dy[nn] = b->dz[nn] = 0.0f;
    if (!c->uniform_mass) b->m[nn] = c->mass[i];
    if (lam) b->l[nn] = lam[i];
    if (c->periodic)
        for (uint32_t q = 0; q < nn; ++q) eddy_grid_min_image(c->layout, &b->dx[q], &b->dy[q], &b->dz[q]);
    return nn;
}

/*
 * Density and lambda of every owned particle at the current positions (the first half of a Jacobi
 * iteration). Writes the density field and the lambda field; neighbors read lambda in delta_pass, so
 * the caller refreshes its halo copies.
 */
static int lambda_pass(const eddy_solver *s, eddy_world *w)
{
    ctx c = make_ctx(w);
    c.uniform_mass = s->uniform_mass > 0.0f;
    eddy_particles *p = &w->particles;
    float *rho = p->density;
    float *lam = eddy_particles_field(p, s->f_lambda, 0);
    const float h = c.k.h, h2 = c.k.h2, cg = c.k.spiky_grad, tiny = 1e-6f * h;
    const long long n = (long long)p->count;
    const uint8_t *halo = halo_flags(p);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        nbuf b = {0};
        if (nbuf_init(&b, s->max_neighbors, s->uniform_mass)) failed = 1;
#pragma omp for schedule(dynamic, 256)
        for (long long ii = 0; ii < n; ++ii) {
            if (failed || is_halo(halo, (size_t)ii)) continue;
            const uint32_t i = (uint32_t)ii, m = c.mat[i];
            const float inv_rho0 = s->inv_rho0[m];
            const uint32_t nn = gather(&c, i, NULL, &b);
            const float *bx = b.dx, *by = b.dy, *bz = b.dz, *bm = b.m;
            float sum = 0.0f, gx = 0.0f, gy = 0.0f, gz = 0.0f, g2 = 0.0f;
#pragma omp simd reduction(+ : sum, gx, gy, gz, g2)
            for (size_t q = 0; q < nn; ++q) {
                const float r2 = bx[q] * bx[q] + by[q] * by[q] + bz[q] * bz[q];
                const float d0 = h2 - r2, d = d0 > 0.0f ? d0 : 0.0f;
                sum += bm[q] * d * d * d;
                const float r = sqrtf(r2);
                const float hr0 = h - r, hr = hr0 > 0.0f ? hr0 : 0.0f;
                const float inv_r = 1.0f / (r > tiny ? r : tiny); /* unconditional: SIMD; x 0 at r = 0 */
                /* grad_i of (m_j / rho0) W_spiky: a factor times (x_i - x_j). */
                const float f = -cg * bm[q] * inv_rho0 * hr * hr * inv_r;
                gx += f * bx[q];
                gy += f * by[q];
                gz += f * bz[q];
                g2 += f * f * r2;
            }
            const int nmir = mirrors_of(&c, s, i);
            const eddy_sph_image *mir = nmir ? s->mirrors + s->mirror_slot[i] : NULL;
            const float xi = c.x[i], yi = c.y[i], zi = c.z[i];
            for (int mi = 0; mi < nmir; ++mi) {
                /* Ghost of neighbor j (and of i itself, the last entry): x_i - (R x_j + t) =
                 * c0 + R (x_i - x_j) (eddy_sph_image_origin), a SIMD loop over the same buffers. */
                const eddy_sph_image *M = &mir[mi];
                float c0[3];
                eddy_sph_image_origin(M, xi, yi, zi, c0);
                const float R00 = M->r[0][0], R01 = M->r[0][1], R02 = M->r[0][2];
                const float R10 = M->r[1][0], R11 = M->r[1][1], R12 = M->r[1][2];
                const float R20 = M->r[2][0], R21 = M->r[2][1], R22 = M->r[2][2];
#pragma omp simd reduction(+ : sum, gx, gy, gz, g2)
                for (size_t q = 0; q <= nn; ++q) {
                    const float ex = c0[0] + R00 * bx[q] + R01 * by[q] + R02 * bz[q];
                    const float ey = c0[1] + R10 * bx[q] + R11 * by[q] + R12 * bz[q];
                    const float ez = c0[2] + R20 * bx[q] + R21 * by[q] + R22 * bz[q];
                    const float r2 = ex * ex + ey * ey + ez * ez;
                    const float d0 = h2 - r2, d = d0 > 0.0f ? d0 : 0.0f;
                    sum += bm[q] * d * d * d;
                    const float r = sqrtf(r2);
                    const float hr0 = h - r, hr = hr0 > 0.0f ? hr0 : 0.0f;
                    const float inv_r = 1.0f / (r > tiny ? r : tiny); /* unconditional: SIMD; x 0 at r = 0 */
                    const float f = -cg * bm[q] * inv_rho0 * hr * hr * inv_r;
                    gx += f * ex;
                    gy += f * ey;
                    gz += f * ez;
                    g2 += f * f * r2;
                }
            }
            /* The toolkit's self term assumes the particle itself in the sum (eddy_sph_self_density);
             * the CSR lists exclude it, so its m W(0) is added here, after the sum. Adding it inside
             * the float sum instead is the same density to rounding, but moved the coarse hydrostatic
             * tank's density deviation from 0.0096 to 0.0168 (bar 0.015): PBF's rest state is that
             * sensitive, so the order stays as it was (state hashes unchanged). */
            const float density =
                eddy_sph_density(&c.k, sum, s->mat.self_density[m] + s->mat.mass[m] * eddy_poly6(&c.k, 0.0f));
            rho[i] = density;
            float C = density * inv_rho0 - 1.0f;
            if (s->unilateral && C < 0.0f) C = 0.0f;
            lam[i] = -C / (gx * gx + gy * gy + gz * gz + g2 + s->epsilon[m]);
        }
        free(b.block);
    }
    return failed;
}

/* Constants of the delta-p sums of one particle. */
typedef struct dconst {
    float h, h2, cg, cwq, sc, tiny, inv_rho0, li;
} dconst;

/*
 * sum_j (m_j / rho0) (lambda_i + lambda_j + s_corr) grad W_spiky over the gathered entries
 * [0, count), with the differences mapped by a mirror (e = c0 + R d) when R is not NULL. ncorr is a
 * compile-time constant at every call (see delta_sum), so the power loop unrolls and the loop runs as
 * SIMD.
 */
static inline __attribute__((always_inline)) void delta_loop(const nbuf *b, size_t count, const float *R,
                                                             const float *c0, const dconst *k, const int ncorr,
                                                             float acc[3])
{
    const float *bx = b->dx, *by = b->dy, *bz = b->dz, *bm = b->m, *bl = b->l;
    const float h = k->h, h2 = k->h2, cg = k->cg, cwq = k->cwq, sc = k->sc, tiny = k->tiny;
    const float scale = -cg * k->inv_rho0, li = k->li;
    float px = 0.0f, py = 0.0f, pz = 0.0f;
    if (!R) {
#pragma omp simd reduction(+ : px, py, pz)
        for (size_t q = 0; q < count; ++q) {
            const float ex = bx[q], ey = by[q], ez = bz[q];
            const float r2 = ex * ex + ey * ey + ez * ez;
            const float d0 = h2 - r2, d = d0 > 0.0f ? d0 : 0.0f;
            const float r = sqrtf(r2);
            const float hr0 = h - r, hr = hr0 > 0.0f ? hr0 : 0.0f;
            const float inv_r = 1.0f / (r > tiny ? r : tiny); /* unconditional: SIMD; x 0 at r = 0 */
            const float r1 = cwq * d * d * d;
            float pw = r1;
            for (int e = 1; e < ncorr; ++e) pw *= r1;
            const float f = scale * bm[q] * hr * hr * inv_r * (li + bl[q] - sc * pw);
            px += f * ex;
            py += f * ey;
            pz += f * ez;
        }
    } else {
        const float R00 = R[0], R01 = R[1], R02 = R[2], R10 = R[3], R11 = R[4], R12 = R[5], R20 = R[6],
                    R21 = R[7], R22 = R[8];
#pragma omp simd reduction(+ : px, py, pz)
        for (size_t q = 0; q < count; ++q) {
            const float ex = c0[0] + R00 * bx[q] + R01 * by[q] + R02 * bz[q];
            const float ey = c0[1] + R10 * bx[q] + R11 * by[q] + R12 * bz[q];
            const float ez = c0[2] + R20 * bx[q] + R21 * by[q] + R22 * bz[q];
            const float r2 = ex * ex + ey * ey + ez * ez;
            const float d0 = h2 - r2, d = d0 > 0.0f ? d0 : 0.0f;
            const float r = sqrtf(r2);
            const float hr0 = h - r, hr = hr0 > 0.0f ? hr0 : 0.0f;
            const float inv_r = 1.0f / (r > tiny ? r : tiny);
            const float r1 = cwq * d * d * d;
            float pw = r1;
            for (int e = 1; e < ncorr; ++e) pw *= r1;
            const float f = scale * bm[q] * hr * hr * inv_r * (li + bl[q] - sc * pw);
            px += f * ex;
            py += f * ey;
            pz += f * ez;
        }
    }
    acc[0] += px;
    acc[1] += py;
    acc[2] += pz;
}

/* delta_loop with the s_corr exponent n (1 to 8) as a constant. */
static void delta_sum(const nbuf *b, size_t count, const float *R, const float *c0, const dconst *k, int ncorr,
                      float acc[3])
{
    switch (ncorr) {
#define PBF_DELTA_CASE(N) \
    case N: delta_loop(b, count, R, c0, k, N, acc); break;
        PBF_DELTA_CASE(1) PBF_DELTA_CASE(2) PBF_DELTA_CASE(3) PBF_DELTA_CASE(4)
        PBF_DELTA_CASE(5) PBF_DELTA_CASE(6) PBF_DELTA_CASE(7) PBF_DELTA_CASE(8)
#undef PBF_DELTA_CASE
    default: break; /* the parameter table limits n to [1, 8] */
    }
}

/*
 * Delta-p of every owned particle from the lambdas (with s_corr), then the collision projection; the
 * new positions go to scratch s[0..2] (Jacobi: every particle reads the old positions), and are copied
 * back afterwards. Neighbors read the positions next (the next iteration, the velocity passes), so the
 * caller refreshes their halo copies.
 */
static int delta_pass(eddy_solver *s, eddy_world *w, float dt)
{
    ctx c = make_ctx(w);
    c.uniform_mass = s->uniform_mass > 0.0f;
    eddy_particles *p = &w->particles;
    const float *lam = eddy_particles_field(p, s->f_lambda, 0);
    float *nx = s->s[0], *ny = s->s[1], *nz = s->s[2];
    const float h = c.k.h, h2 = c.k.h2, cw = c.k.poly6, cg = c.k.spiky_grad, tiny = 1e-6f * h;
    const float wq = eddy_poly6(&c.k, s->scorr_dq * h * s->scorr_dq * h);
    /* s_corr in the units of lambda (length^2): the artificial pressure k (W / W(dq))^n rho0 |g| h,
     * k times the hydrostatic pressure over one smoothing radius, times dt^2 / rho0 (lambda is
     * -p dt^2 / rho0 for a pressure p). It then acts like a pressure, whatever the time step. */
    const float gg = w->gravity[0] * w->gravity[0] + w->gravity[1] * w->gravity[1] + w->gravity[2] * w->gravity[2];
    const float cwq = cw / wq, sc = s->scorr_k * dt * dt * sqrtf(gg) * h;
    const int ncorr = s->scorr_n, dims = w->dimensions;
    const long long n = (long long)p->count;
    const eddy_boundaries *bd = &w->boundaries;
    const unsigned char *near = s->near;
    const uint8_t *halo = halo_flags(p);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        nbuf b = {0};
        if (nbuf_init(&b, s->max_neighbors, s->uniform_mass)) failed = 1;
#pragma omp for schedule(dynamic, 256)
        for (long long ii = 0; ii < n; ++ii) {
            if (failed || is_halo(halo, (size_t)ii)) continue;
            const uint32_t i = (uint32_t)ii, m = c.mat[i];
            const float inv_rho0 = s->inv_rho0[m], li = lam[i];
            const uint32_t nn = gather(&c, i, lam, &b);
            const dconst k = {h, h2, cg, cwq, sc, tiny, inv_rho0, li};
            float acc[3] = {0.0f, 0.0f, 0.0f};
            delta_sum(&b, nn, NULL, NULL, &k, ncorr, acc);
            /* The mirrors lambda_pass found at these same positions. */
            const int nmir = near[i] ? s->mirror_count[i] : 0;
            const eddy_sph_image *mir = nmir ? s->mirrors + s->mirror_slot[i] : NULL;
            const float xi = c.x[i], yi = c.y[i], zi = c.z[i];
            for (int mi = 0; mi < nmir; ++mi) {
                /* Ghosts of the neighbors and of i itself (the entry after them), as in lambda_pass. */
                const eddy_sph_image *M = &mir[mi];
                float c0[3], R[9];
                eddy_sph_image_origin(M, xi, yi, zi, c0);
                for (int a = 0; a < 3; ++a)
                    for (int e = 0; e < 3; ++e) R[3 * a + e] = M->r[a][e];
                delta_sum(&b, (size_t)nn + 1, R, c0, &k, ncorr, acc);
            }
            const float px = acc[0], py = acc[1], pz = acc[2];
            float pos[3] = {xi + px, yi + py, zi + pz};
            if (c.walls && near[i]) {
                /* Collision response inside the iteration: a full projection out of every surface
                 * (erp 1 of the material's contact); velocities follow from the positions after the
                 * iterations. */
                eddy_contact_params cp = w->contacts[m];
                cp.erp = 1.0f;
                float vzero[3] = {0.0f, 0.0f, 0.0f};
                for (size_t k = 0; k < bd->collider_count; ++k)
                    eddy_contact_respond(&bd->colliders[k], dims, &cp, pos, vzero, dt);
            }
            nx[i] = pos[0];
            ny[i] = pos[1];
            nz[i] = dims == 3 ? pos[2] : 0.0f;
        }
        free(b.block);
    }
    copy_owned(p, p->x, p->y, p->z, nx, ny, nz);
    return failed;
}

/*
 * Vorticity confinement and XSPH viscosity on the velocities v = (x* - x) / dt (Mijalkovic §4.2, §4.3).
 * Pass 1: omega_i = sum_j V_j (v_i - v_j) x grad_i W_spiky (the SPH curl, V_j = m_j / rho0).
 * Pass 2: eta = sum_j V_j (|omega_j| - |omega_i|) grad_i W, N = eta / |eta|, a = epsilon N x omega,
 *         and v_i += dt a + c sum_j V_j (v_j - v_i) W_poly6, from the velocities before the pass.
 * Both update the owned particles; pass 2 reads the neighbors' vorticity, whose halo copies are
 * refreshed in between (their |omega| then follows from the refreshed field, as the owner computed it).
 */
static int velocity_passes(eddy_solver *s, eddy_world *w, float dt, eddy_error *err)
{
    ctx c = make_ctx(w);
    c.uniform_mass = s->uniform_mass > 0.0f;
    eddy_particles *p = &w->particles;
    float *vx = p->vx, *vy = p->vy, *vz = p->vz;
    float *ox = eddy_particles_field(p, s->f_vort, 0), *oy = eddy_particles_field(p, s->f_vort, 1),
          *oz = eddy_particles_field(p, s->f_vort, 2);
    float *om = s->s[3];
    const float h = c.k.h, h2 = c.k.h2, cw = c.k.poly6, cg = c.k.spiky_grad, tiny = 1e-6f * h;
    const long long n = (long long)p->count;
    const uint8_t *halo = halo_flags(p);
    const int vort = s->vort_eps > 0.0f;
    int failed = 0;
    if (vort) {
#pragma omp parallel reduction(| : failed)
        {
            nbuf b = {0};
            if (nbuf_init(&b, s->max_neighbors, s->uniform_mass)) failed = 1;
#pragma omp for schedule(dynamic, 256)
            for (long long ii = 0; ii < n; ++ii) {
                if (failed || is_halo(halo, (size_t)ii)) continue;
                const uint32_t i = (uint32_t)ii;
                const float inv_rho0 = s->inv_rho0[c.mat[i]];
                const uint32_t nn = gather(&c, i, NULL, &b);
                const uint32_t *idx = c.idx + c.off[i];
                const float ui = vx[i], vi = vy[i], wi = vz[i];
                for (uint32_t q = 0; q < nn; ++q) {
                    b.u[q] = ui - vx[idx[q]];
                    b.v[q] = vi - vy[idx[q]];
                    b.w[q] = wi - vz[idx[q]];
                }
                const float *bx = b.dx, *by = b.dy, *bz = b.dz, *bm = b.m, *bu = b.u, *bv = b.v, *bw = b.w;
                float wx = 0.0f, wy = 0.0f, wz = 0.0f;
#pragma omp simd reduction(+ : wx, wy, wz)
                for (size_t q = 0; q < nn; ++q) {
                    const float r2 = bx[q] * bx[q] + by[q] * by[q] + bz[q] * bz[q];
                    const float r = sqrtf(r2);
                    const float hr0 = h - r, hr = hr0 > 0.0f ? hr0 : 0.0f;
                    const float inv_r = 1.0f / (r > tiny ? r : tiny);
                    const float f = -cg * bm[q] * inv_rho0 * hr * hr * inv_r; /* V_j grad_i W = f d */
                    const float gx = f * bx[q], gy = f * by[q], gz = f * bz[q];
                    wx += bv[q] * gz - bw[q] * gy;
                    wy += bw[q] * gx - bu[q] * gz;
                    wz += bu[q] * gy - bv[q] * gx;
                }
                ox[i] = wx;
                oy[i] = wy;
                oz[i] = wz;
                om[i] = sqrtf(wx * wx + wy * wy + wz * wz);
            }
            free(b.block);
        }
        if (failed) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory");
        const int f_vort = s->f_vort;
        int rc = eddy_world_refresh_fields(w, &f_vort, 1, err);
        if (rc) return rc;
        if (halo) {
            ox = eddy_particles_field(p, s->f_vort, 0);
            oy = eddy_particles_field(p, s->f_vort, 1);
            oz = eddy_particles_field(p, s->f_vort, 2);
#pragma omp parallel for schedule(static)
            for (long long i = 0; i < n; ++i)
                if (halo[i] & EDDY_PARTICLE_HALO) om[i] = sqrtf(ox[i] * ox[i] + oy[i] * oy[i] + oz[i] * oz[i]);
        }
    }
    float *nvx = s->s[0], *nvy = s->s[1], *nvz = s->s[2];
    const float eps = s->vort_eps, cx = s->xsph_c;
#pragma omp parallel reduction(| : failed)
    {
        nbuf b = {0};
        if (nbuf_init(&b, s->max_neighbors, s->uniform_mass)) failed = 1;
#pragma omp for schedule(dynamic, 256)
        for (long long ii = 0; ii < n; ++ii) {
            if (failed || is_halo(halo, (size_t)ii)) continue;
            const uint32_t i = (uint32_t)ii;
            const float inv_rho0 = s->inv_rho0[c.mat[i]];
            const uint32_t nn = gather(&c, i, NULL, &b);
            const uint32_t *idx = c.idx + c.off[i];
            const float ui = vx[i], vi = vy[i], wi = vz[i];
            const float omi = vort ? om[i] : 0.0f;
            for (uint32_t q = 0; q < nn; ++q) {
                b.u[q] = vx[idx[q]] - ui;
                b.v[q] = vy[idx[q]] - vi;
                b.w[q] = vz[idx[q]] - wi;
                b.o[q] = vort ? om[idx[q]] - omi : 0.0f;
            }
            const float *bx = b.dx, *by = b.dy, *bz = b.dz, *bm = b.m, *bu = b.u, *bv = b.v, *bw = b.w,
                        *bo = b.o;
            float ex = 0.0f, ey = 0.0f, ez = 0.0f, sx = 0.0f, sy = 0.0f, sz = 0.0f;
#pragma omp simd reduction(+ : ex, ey, ez, sx, sy, sz)
            for (size_t q = 0; q < nn; ++q) {
                const float r2 = bx[q] * bx[q] + by[q] * by[q] + bz[q] * bz[q];
                const float vj = bm[q] * inv_rho0, d0 = h2 - r2, d = d0 > 0.0f ? d0 : 0.0f;
                const float wgt = vj * cw * d * d * d;
                sx += wgt * bu[q];
                sy += wgt * bv[q];
                sz += wgt * bw[q];
                const float r = sqrtf(r2);
                const float hr0 = h - r, hr = hr0 > 0.0f ? hr0 : 0.0f;
                const float inv_r = 1.0f / (r > tiny ? r : tiny);
                const float f = -cg * vj * hr * hr * inv_r * bo[q];
                ex += f * bx[q];
                ey += f * by[q];
                ez += f * bz[q];
            }
            float ax = 0.0f, ay = 0.0f, az = 0.0f;
            const float en = sqrtf(ex * ex + ey * ey + ez * ez);
            if (vort && en > 0.0f) {
                const float Nx = ex / en, Ny = ey / en, Nz = ez / en;
                ax = eps * (Ny * oz[i] - Nz * oy[i]);
                ay = eps * (Nz * ox[i] - Nx * oz[i]);
                az = eps * (Nx * oy[i] - Ny * ox[i]);
            }
            nvx[i] = ui + dt * ax + cx * sx;
            nvy[i] = vi + dt * ay + cx * sy;
            nvz[i] = w->dimensions == 3 ? wi + dt * az + cx * sz : 0.0f;
        }
        free(b.block);
    }
    if (failed) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory");
    copy_owned(p, vx, vy, vz, nvx, nvy, nvz);
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    eddy_particles *p = &w->particles;
    const int f_position = EDDY_FIELD_POSITION, f_velocity = EDDY_FIELD_VELOCITY, f_lambda = s->f_lambda;
    double t0 = eddy_time_ms();
    /* Gravity and prediction: remember x, then x* = x + dt (v + dt g). */
    {
        float *px = eddy_particles_field(p, s->f_prev, 0), *py = eddy_particles_field(p, s->f_prev, 1),
              *pz = eddy_particles_field(p, s->f_prev, 2);
        copy_owned(p, px, py, pz, p->x, p->y, p->z);
        eddy_world_integrate_velocity(w, -1, dt);
        eddy_world_integrate_position(w, dt);
    }
    double t1 = eddy_time_ms();
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, t1 - t0);
    /* Every neighbor sum of the step reads the predicted positions x*. */
    int rc = eddy_world_refresh_fields(w, &f_position, 1, err);
    if (rc) return rc;
    if ((rc = prepare(s, w, err))) return rc; /* sorts by cell: previous_position and lambda follow */
    double dens = 0.0, forces = 0.0;
    for (int it = 0; it < s->iterations; ++it) {
        double a = eddy_time_ms();
        if (lambda_pass(s, w)) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory");
        if ((rc = eddy_world_refresh_fields(w, &f_lambda, 1, err))) return rc;
        double b = eddy_time_ms();
        if (delta_pass(s, w, dt)) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory");
        if ((rc = eddy_world_refresh_fields(w, &f_position, 1, err))) return rc;
        dens += b - a;
        forces += eddy_time_ms() - b;
    }
    double t2 = eddy_time_ms();
    /* Velocity from the position change (minimum image across periodic axes). */
    {
        const float *px = eddy_particles_field(p, s->f_prev, 0), *py = eddy_particles_field(p, s->f_prev, 1),
                    *pz = eddy_particles_field(p, s->f_prev, 2);
        const eddy_grid_layout *l = &w->grid.layout;
        const int periodic = l->periodic[0] || l->periodic[1] || l->periodic[2];
        const float inv_dt = 1.0f / dt;
        const long long n = (long long)p->count;
        const uint8_t *halo = halo_flags(p);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) {
            if (is_halo(halo, (size_t)i)) continue;
            float dx = p->x[i] - px[i], dy = p->y[i] - py[i], dz = p->z[i] - pz[i];
            if (periodic) eddy_grid_min_image(l, &dx, &dy, &dz);
            p->vx[i] = dx * inv_dt;
            p->vy[i] = dy * inv_dt;
            p->vz[i] = dz * inv_dt;
        }
    }
    double t3 = eddy_time_ms();
    if (s->vort_eps > 0.0f || s->xsph_c > 0.0f) {
        /* The velocity passes read the neighbors' velocities. */
        if ((rc = eddy_world_refresh_fields(w, &f_velocity, 1, err)) || (rc = velocity_passes(s, w, dt, err)))
            return rc;
    }
    double t4 = eddy_time_ms();
    /* Restitution and friction on the velocities (positions are already outside every surface). */
    eddy_world_respond_boundaries(w, dt);
    double t5 = eddy_time_ms();
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, dens);
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, forces + (t4 - t3));
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, (t3 - t2) + (t5 - t4));
    return EDDY_OK;
}

/* Density and lambda of the initial state, for frame 0 and its diagnostics. */
static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = prepare(s, w, err);
    if (rc) return rc;
    if (lambda_pass(s, w)) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "pbf: out of memory");
    const int f_lambda = s->f_lambda;
    return eddy_world_refresh_fields(w, &f_lambda, 1, err);
}

static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    *dt = eddy_world_cfl_dt(w, s->cfl, 0.0);
    *limit = "CFL";
    return EDDY_OK;
}

static const eddy_solver_vtable vtable = {
    .size = sizeof(eddy_solver_vtable),
    .create = create,
    .step = step,
    .destroy = destroy,
    .max_dt = max_dt,
    .compute_fields = compute_fields,
};

/* Decomposable: every loop that updates particles skips halo copies, and each field neighbors read
 * later in the step (x* after the prediction and after every position correction, lambda in every
 * iteration, the velocity and the vorticity of the velocity passes) is refreshed once computed. No
 * state outside the instance: concurrent instances are safe. */
static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "pbf",
    .version = "2.0.0",
    .description = "Position Based Fluids (Macklin & Müller 2013): Jacobi density constraints, s_corr, "
                   "vorticity confinement, XSPH",
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
    .name = "pbf",
    .version = "2.0.0",
    .init = NULL,
    .deinit = NULL,
    .component_count = 1,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
