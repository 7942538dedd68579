/*
 * Position Based Fluids (Macklin & Müller 2013, ACM Trans. Graph. 32(4), 104: lambda and epsilon §3,
 * s_corr §4, vorticity confinement and XSPH §5), as broken down by Qie & Su 2021 ("Technical Breakdown
 * of Position Based Fluid") and Mijalkovic ("Particle Based Fluids in Rust", University of Toronto,
 * undated):
 *   apply gravity and predict x* = x + dt v
 *   -> grid and neighbour lists on x* (the SPH toolkit's eddy_sph_neighbors: built once, swept by
 *      every iteration's passes eight particles at a time, eddy_sph_block_pass)
 *   -> `iterations` Jacobi iterations of: lambda (density constraint, relaxation epsilon)
 *                                         -> delta-p (with the s_corr artificial pressure)
 *                                         -> collision projection against the container and colliders
 *   -> v = v* + dp / dt, v* the predicted velocity and dp the sum of the iterations' position
 *      corrections (the velocity of the position change x* - x without taking that difference: step())
 *      -> vorticity confinement and XSPH viscosity -> boundary velocity response.
 *
 * Units and scaling (so that the defaults hold at any particle spacing, rest density and time step):
 *   C_i = rho_i / rho0 - 1 with rho_i = sum_j m_j W_poly6, grad_k C_i = (m_k / rho0) grad W_spiky, so
 *   lambda has units of length^2 (a pressure p corresponds to lambda = -p dt^2 / rho0).
 *   - The relaxation epsilon is given in units of D0 = sum_k |grad_k C_i|^2 on the material's rest
 *     lattice (1 / length^2). Its default, 1, keeps the Jacobi iteration stable: on the rest lattice
 *     (h = 2 spacings) the largest eigenvalue of D^-1 J J^T is 2.15 in 2D and 2.82 in 3D, above the
 *     Jacobi bound of 2 when epsilon << D0. That holds at h = 2 spacings only: wider kernels amplify
 *     density noise whatever the relaxation (sweep_spectrum, which create() warns by).
 *   - s_corr = -k (W / W(dq))^n is read as an artificial pressure in units of rho0 |g| h and enters
 *     the lambda sum as -k (W / W(dq))^n dt^2 |g| h. Both write-ups add it unscaled to lambda, which is
 *     dimensionally inconsistent and makes it a fixed position push per iteration: at small time
 *     steps it swamps the flow.
 * Walls: every density and delta-p sum includes the mirror ghosts of the core (eddy_boundaries_mirrors,
 * the same ghosts sph_mueller uses): the fluid reflected across each wall within h, carrying the
 * lambda of the particle it mirrors. A free-slip wall is then the symmetry plane of a doubled fluid,
 * and particles next to it reach rest density at the rest spacing instead of packing against it.
 *
 * Determinism: every sum is a gather over the particle's list in a fixed order and
 * each thread writes only its own particles, so the result does not depend on the thread count. Each
 * particle adds its own list in order in a lane of its block, so the sums depend neither on the vector
 * ISA nor on which particles share the block (MPI runs hash as one process does).
 * The neighbour plumbing (lists, their gather with the periodic minimum image, the particles near a
 * wall and their mirror images, the parallel loop) is the toolkit's (eddy_sph/neighbors.h); this file
 * holds the method's sums.
 * Each pair's spiky gradient (a square root and a division) is computed once per iteration: the lambda
 * pass keeps delta-p's factor, which reads the same positions, in a value per list entry
 * (eddy_sph_row_values), and the vorticity pass likewise keeps eta's.
 */
#include <eddy/boundary_math.h>
#include <eddy/eddy.h>
#include <eddy_sph/simd.h>
#include <eddy_sph/sph.h>

#include <math.h>
#include <stdio.h>
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
    P_PRESSURE_AVERAGE,
    P_COUNT
};

static const eddy_param_desc params[P_COUNT] = {
    [P_ITERATIONS] = EDDY_PARAM_INT_DESC(
        "iterations", 4, 1, 100, "1",
        "Jacobi iterations of the density constraint per step (lambda, delta-p, collisions). More "
        "iterations give a stiffer, less compressible fluid at proportional cost."),
    [P_RELAXATION] = EDDY_PARAM_REAL_DESC(
        "relaxation", 1.0, 0.01, 100.0, "1",
        "Constraint-force mixing epsilon of lambda = -C / (sum |grad C|^2 + epsilon), in units of "
        "sum |grad C|^2 of a full neighborhood on the rest lattice (dimensionless: the same value works "
        "at any spacing and rest density). The default 1 keeps the Jacobi iteration stable at h = 2 "
        "particle spacings (wider kernels amplify density noise whatever the relaxation: warned); below about "
        "0.4 (3D) or 0.1 (2D) it can oscillate; larger values soften the fluid. Not 0: a particle "
        "without neighbours would get lambda = -0/0."),
    [P_SCORR_K] = EDDY_PARAM_REAL_DESC(
        "scorr_k", 0.1, 0.0, 1.0, "rho0 |g| h",
        "Strength k of the artificial pressure s_corr = -k (W(r) / W(dq))^n (tensile instability "
        "correction, Macklin & Müller 2013 §4), in units of the hydrostatic pressure over one smoothing radius "
        "rho0 |g| h, applied as -k (W / W(dq))^n dt^2 |g| h in lambda; zero without gravity."),
    [P_SCORR_N] = EDDY_PARAM_INT_DESC("scorr_n", 4, 1, 8, "1", "Exponent n of the artificial pressure s_corr."),
    [P_SCORR_DQ] = EDDY_PARAM_REAL_DESC(
        "scorr_dq", 0.2, 0.05, 0.9, "h",
        "Reference distance |dq| of s_corr, as a fraction of the smoothing radius h (Macklin & "
        "Müller 2013 recommend 0.1 to 0.3)."),
    [P_VORTICITY] = EDDY_PARAM_REAL_DESC(
        "vorticity_epsilon", 0.01, 0.0, 100.0, "m/s",
        "Vorticity confinement strength epsilon of f = epsilon (N x omega) (Macklin & Müller 2013 §5), an "
        "acceleration per unit vorticity, sim units. 0 turns it off; it does not conserve momentum."),
    [P_XSPH] = EDDY_PARAM_REAL_DESC(
        "xsph_c", 0.01, 0.0, 1.0, "1",
        "XSPH viscosity c of v_i += c sum_j (m_j / rho0) (v_j - v_i) W_poly6 (Macklin & Müller 2013 §5); "
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
    [P_PRESSURE_AVERAGE] = EDDY_PARAM_REAL_DESC(
        "pressure_average", 0.01, 0.0, 1e9, "s",
        "Time over which the reported pressure field is averaged (exponentially, weight dt / (T + dt) on each "
        "step's): the constraint's pressure of one step carries the correction of that step's position "
        "jitter, rho0 dx / dt^2, noise that grows as the step shrinks. 0: each step's own. Output only: "
        "the motion does not read it."),
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
    double pressure_average; /* s: the time constant of the reported pressure's average */
    int scorr_n, unilateral;
    int f_prev, f_lambda, f_vort; /* field ids */
    /* per material: rest density, mass and the density's self term (eddy_sph_materials); 1 / rho0 and
     * the relaxation epsilon */
    eddy_sph_materials mat;
    float *inv_rho0, *epsilon;
    /* per-particle scratch of the current step (indexed like the particles between grid builds) */
    float *s[4];
    /* per particle, the sum of the step's position corrections (delta-p and the collision projection),
     * indexed like s */
    float *corr[3];
    /* the passes' neighbour records (eddy_sph/neighbors.h): positions and one more field, velocities
     * and |omega| */
    eddy_sph_records pos, vel;
    /* per entry of the neighbour rows: a pair's gradient factor, written by a pass for the next one over
     * the same positions (delta-p's by the lambda pass, eta's by the vorticity pass) */
    eddy_sph_row_values grad;
    eddy_sph_neighbors nb; /* lists within h of x*, the particles near a wall and their mirror images */
    size_t capacity;
    eddy_sph_simd simd;    /* the block passes' vector ISA (eddy_sph/simd.h) */
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
    for (int k = 0; k < 3; ++k) free(s->corr[k]);
    eddy_sph_records_free(&s->pos);
    eddy_sph_records_free(&s->vel);
    eddy_sph_row_values_free(&s->grad);
    eddy_sph_neighbors_free(&s->nb);
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

/*
 * How one Jacobi sweep acts on the rest lattice's density modes (spacing a): linearized, a mode
 * C_i = c exp(i q.x_i) gets lambda = -C / (D0 (1 + relaxation)), delta-p moves the particles along the
 * spiky gradients, and the poly6 density they change by reads it back, so the sweep multiplies it by
 * f(q) = 1 - mu(q) / (1 + relaxation), mu(q) = P(q).S(q) / sum_j |grad S_j|^2, with
 * P(q) = sum_j sin(q.x_j) grad W_poly6 and S(q) = sum_j sin(q.x_j) grad W_spiky (the volume m / rho0
 * cancels). mu > 2 (1 + relaxation) overshoots (f < -1: the relaxation is too small); mu < 0, where the
 * two gradients disagree in sign, makes f > 1 at any relaxation: the correction feeds the error it
 * should remove, and a fluid at rest grows a flow out of rounding noise. On a 2D lattice at h = 2
 * spacings mu lies in [0, 2.26] (relaxation 1: worst |f| 1, neutral), at 2.25 spacings its least is
 * below 0 (|f| 1.021), at 4 its largest is 4.43 (f = -1.21); in 3D at 2 spacings |f| is 1.013. The q
 * grid over [0, pi/a] per axis (41 points in 2D, 13 in 3D) finds these to 3 digits. Returns 0 with the
 * range of mu in mu_lo, mu_hi; -1 past 4.5 spacings, where the lattice sum gets costly.
 */
static int sweep_spectrum(const eddy_kernels *k, double a, int dims, double *mu_lo, double *mu_hi)
{
    const double h = k->h, ratio = h / a;
    if (!(ratio <= 4.5)) return -1;
    enum { OFFSETS_MAX = 11 * 11 * 11 };
    const int n = (int)ceil(ratio);
    double off[OFFSETS_MAX][3], gp[OFFSETS_MAX], gs[OFFSETS_MAX]; /* offset, |grad W| / r of each kernel */
    int count = 0;
    double d0 = 0.0;
    for (int iz = dims == 3 ? -n : 0; iz <= (dims == 3 ? n : 0); ++iz)
        for (int iy = -n; iy <= n; ++iy)
            for (int ix = -n; ix <= n; ++ix) {
                const double x = a * ix, y = a * iy, z = a * iz, r = sqrt(x * x + y * y + z * z);
                if (r <= 0.0 || r >= h || count == OFFSETS_MAX) continue;
                off[count][0] = x;
                off[count][1] = y;
                off[count][2] = z;
                gp[count] = 6.0 * k->poly6 * (k->h2 - r * r) * (k->h2 - r * r);
                gs[count] = k->spiky_grad * (h - r) * (h - r) / r;
                d0 += gs[count] * gs[count] * r * r;
                ++count;
            }
    const int nq = dims == 3 ? 13 : 41;
    *mu_lo = INFINITY;
    *mu_hi = -INFINITY;
    for (int qz = 0; qz < (dims == 3 ? nq : 1); ++qz)
        for (int qy = 0; qy < nq; ++qy)
            for (int qx = 0; qx < nq; ++qx) {
                if (qx == 0 && qy == 0 && qz == 0) continue; /* (the uniform mode: no gradient, mu = 0) */
                const double q[3] = {M_PI / a * qx / (nq - 1), M_PI / a * qy / (nq - 1), M_PI / a * qz / (nq - 1)};
                double p[3] = {0, 0, 0}, s[3] = {0, 0, 0};
                for (int j = 0; j < count; ++j) {
                    const double sn = sin(q[0] * off[j][0] + q[1] * off[j][1] + q[2] * off[j][2]);
                    for (int c = 0; c < 3; ++c) {
                        p[c] += gp[j] * sn * off[j][c];
                        s[c] += gs[j] * sn * off[j][c];
                    }
                }
                const double mu = (p[0] * s[0] + p[1] * s[1] + p[2] * s[2]) / d0;
                *mu_lo = fmin(*mu_lo, mu);
                *mu_hi = fmax(*mu_hi, mu);
            }
    return 0;
}

/* The sweep factor of largest magnitude over the spectrum (f is monotonic in mu: an end of the range). */
static double worst_factor(double mu_lo, double mu_hi, double relaxation)
{
    const double lo = 1.0 - mu_hi / (1.0 + relaxation), hi = 1.0 - mu_lo / (1.0 + relaxation);
    return fabs(lo) > fabs(hi) ? lo : hi;
}

/* Past this |f| a sweep is said to amplify: above 3D's 1.013 at 2 spacings (a box at rest there grew
 * to 0.94 J and decayed again), below 2D's 1.021 at 2.25 spacings (a periodic box at rest grew from
 * 1e-9 to 0.026 J/m in 0.3 s, at 4 spacings to 9.4 J/m). */
#define SWEEP_FACTOR_WARN 1.015

/*
 * Warns of either cause of an amplifying sweep, each judged where it can be mended: gradients that
 * disagree (mu < 0) are the kernel support's, which a relaxation only slows, so they are judged at the
 * default relaxation 1; an overshoot (mu > 2 (1 + relaxation)) is the relaxation's, judged at the
 * scene's, and the message gives the relaxation that ends it.
 */
static void warn_amplifying_sweeps(const eddy_solver_setup *setup, const eddy_kernels *k, double relaxation)
{
    const eddy_world *w = setup->world;
    for (size_t m = 0; m < w->material_count; ++m) {
        const double a = w->materials[m].particle_dist, spacings = (double)k->h / a;
        double mu_lo = 0, mu_hi = 0;
        const int known = sweep_spectrum(k, a, w->dimensions, &mu_lo, &mu_hi) == 0;
        const double f = known ? worst_factor(mu_lo, mu_hi, relaxation) : NAN;
        if (!known || 1.0 - mu_lo / 2.0 > SWEEP_FACTOR_WARN) {
            char figure[96] = "";
            if (known)
                snprintf(figure, sizeof figure, " by %.3g%s", fabs(f),
                         f < 0 ? " with its sign flipped (it overshoots)" : "");
            eddy_host_log(setup->host, EDDY_LOG_WARNING, "pbf",
                          "material '%s': h = %.3g particle spacings (%g / %g): one Jacobi sweep of the density "
                          "constraint multiplies the worst density mode of the rest lattice%s instead of damping "
                          "it, so rounding noise grows into a flow (a periodic box at rest at 4 spacings reached "
                          "4.5 m/s); PBF is stable at h = 2 spacings: set world.smoothing_radius to twice the "
                          "particle spacing (docs/solvers/pbf.md, \"Kernel support\")",
                          w->materials[m].name, spacings, (double)k->h, a, figure);
        } else if (1.0 - mu_hi / (1.0 + relaxation) < -SWEEP_FACTOR_WARN) {
            const double needed = ceil((mu_hi / (1.0 + SWEEP_FACTOR_WARN) - 1.0) * 100.0) / 100.0;
            eddy_host_log(setup->host, EDDY_LOG_WARNING, "pbf",
                          "material '%s': at relaxation %g one Jacobi sweep of the density constraint multiplies "
                          "the worst density mode of the rest lattice by %.3g with its sign flipped (it "
                          "overshoots), so the iteration amplifies density noise instead of damping it; set "
                          "solvers.pbf.relaxation to %.2g or more (at h = %.3g particle spacings; "
                          "docs/solvers/pbf.md, \"Kernel support\")",
                          w->materials[m].name, relaxation, 1.0 - mu_hi / (1.0 + relaxation) < 0
                              ? mu_hi / (1.0 + relaxation) - 1.0 : 0.0, needed, spacings);
        }
    }
}

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    const eddy_param_values *pv = setup->params;
    if (w->material_count == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "the world has no material");
    eddy_sph_simd simd;
    const int simd_rc = eddy_sph_simd_select(&simd, err);
    if (simd_rc) return simd_rc;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->simd = simd;
    s->iterations = (int)pv->values[P_ITERATIONS].integer;
    s->relaxation = (float)pv->values[P_RELAXATION].number;
    s->scorr_k = (float)pv->values[P_SCORR_K].number;
    s->scorr_n = (int)pv->values[P_SCORR_N].integer;
    s->scorr_dq = (float)pv->values[P_SCORR_DQ].number;
    s->vort_eps = (float)pv->values[P_VORTICITY].number;
    s->xsph_c = (float)pv->values[P_XSPH].number;
    s->unilateral = pv->values[P_CLAMP].number != 0.0;
    s->cfl = (float)pv->values[P_CFL].number;
    s->pressure_average = pv->values[P_PRESSURE_AVERAGE].number;
    const size_t nm = w->material_count;
    s->inv_rho0 = calloc(nm, sizeof(float));
    s->epsilon = calloc(nm, sizeof(float));
    if (!s->inv_rho0 || !s->epsilon) {
        destroy(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* The self term (initial_sum - 1) m W(0): the density sums below include the particle itself. */
    int rc = eddy_sph_materials_init(&s->mat, w, NULL, NULL, &material_params[M_INITIAL_SUM], NULL, err);
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
                                  "material '%s': no neighbor within the smoothing radius h = %g at the "
                                  "rest spacing %g; PBF needs h of at least about 2 particle spacings",
                                  mat->name, (double)w->smoothing_radius, (double)mat->particle_dist);
        }
        s->inv_rho0[m] = 1.0f / mat->rest_density;
        s->epsilon[m] = (float)(s->relaxation * d0);
    }
    warn_amplifying_sweeps(setup, &k, s->relaxation);
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
    for (int k = 0; k < 7; ++k) {
        float **slot = k < 4 ? &s->s[k] : &s->corr[k - 4];
        float *a = realloc(*slot, cap * sizeof(float));
        if (!a) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu particles", n);
        *slot = a;
    }
    if (eddy_sph_records_reserve(&s->pos, cap) || eddy_sph_records_reserve(&s->vel, cap))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu particles", n);
    s->capacity = cap;
    return EDDY_OK;
}

/* Grid on the current positions, neighbour lists and the particles near a wall, scratch sized for them. */
static int prepare(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    double t0 = eddy_time_ms();
    /* Lists, not the toolkit's cell pass: the step sweeps the same neighbourhoods 2 x iterations + 2
     * times, and a sweep over a list of the ~27 neighbours within h cost a third of one over a cell's
     * ~170 candidates when it was measured (before the gather kept only the ~80 a cell reaches; 4 lambda passes, 3D dam break at 103 680 particles, 2 threads: 48-56 ms from
     * the lists, 159-164 ms on eddy_sph_cell_pass; docs/toolkit.md). Which particles can meet a wall
     * during this step's iterations: those within 1.5 h of a surface at the predicted position (the
     * iterations move a particle by a small fraction of h; the host's explosion guard stops a run
     * whose particles cross h in a step). The rest skip the mirror and contact queries; the final
     * boundary response still covers every particle. */
    if ((rc = eddy_sph_neighbors_build(&s->nb, &w->grid, &w->particles, &w->boundaries, w->smoothing_radius,
                                       1.5f * w->smoothing_radius, NULL, err)) ||
        (rc = reserve(s, w->particles.count, err)))
        return rc;
    /* The walls' ghosts within h, selected once with the lists (no gravity: PBF's ghosts carry lambda,
     * not a pressure). */
    const int ghosts = eddy_sph_neighbors_ghosts(&s->nb, &w->boundaries, NULL, w->smoothing_radius, &w->particles);
    if (ghosts) return eddy_sph_sizing_error(err, ghosts, NULL, "wall ghosts", w->particles.count);
    if (eddy_sph_row_values_reserve(&s->grad, &s->nb))
        return eddy_sph_sizing_error(err, -1, NULL, "pair gradients", w->particles.count);
    eddy_world_add_phase_time(w, EDDY_PHASE_GRID, eddy_time_ms() - t0);
    return EDDY_OK;
}

/* What the passes read, set up once per pass. */
typedef struct pass {
    eddy_solver *s;
    eddy_world *w;
    eddy_kernels k;
    float tiny; /* 1e-6 h: the smallest distance a gradient divides by */
    float *lam, *rho;
    float *lam_sum; /* lambda_pass in a step: each particle's sum of its iterations' lambdas, added to */
    /* New positions (delta_pass) or velocities (xsph_block), written over the particles' own: a particle
     * is a lane of one block only, which reads its position and velocity before it writes them, and its
     * neighbours are read from the records packed before the pass (Jacobi: every pass reads the old
     * values). */
    float *nx, *ny, *nz;
    float *cx, *cy, *cz; /* delta_pass: each particle's sum of its position corrections, added to */
    float *sx, *sy, *sz; /* XSPH sums, vorticity_block to xsph_block */
    const float *vx, *vy, *vz, *om;
    float *ox, *oy, *oz, *onorm; /* vorticity and its norm */
    float dt, cwq, sc;           /* delta_pass: s_corr's 1 / W(dq) and scale */
    const eddy_sph_records *pos, *vel; /* the neighbours' records (s->pos, s->vel), packed for the pass */
} pass;

static pass make_pass(eddy_solver *s, eddy_world *w)
{
    pass c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.w = w;
    c.k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    c.tiny = 1e-6f * c.k.h;
    c.lam = eddy_particles_field(&w->particles, s->f_lambda, 0);
    return c;
}

/* h - r and 1 / r of a pair at distance r, 0 beyond h. */
typedef struct spiky_terms {
    float hr, inv_r;
} spiky_terms;

static inline __attribute__((always_inline)) spiky_terms spiky_pair(float r2, float h, float tiny)
{
    const float r = sqrtf(r2);
    const float hr0 = h - r;
    const float inv_r = 1.0f / (r > tiny ? r : tiny); /* unconditional: SIMD; x 0 at r = 0 */
    return (spiky_terms){hr0 > 0.0f ? hr0 : 0.0f, inv_r};
}

/* Delta-p's gradient of a pair, grad_i (m_j / rho0) W_spiky = t (x_i - x_j) with t = scale m (h - r)^2 / r
 * and scale = -cg / rho0 of particle i. */
static inline __attribute__((always_inline)) float delta_gradient(float scale, float m, spiky_terms sp)
{
    return scale * m * sp.hr * sp.hr * sp.inv_r;
}

/* One pair's terms of the density and of sum_k |grad_k C_i|^2, for x_i - x_j = e, and delta-p's gradient
 * factor t at these positions, which the delta-p pass of the iteration reads back (delta_rows). */
typedef struct lambda_terms {
    float w, gx, gy, gz, g2, t;
} lambda_terms;

static inline __attribute__((always_inline)) lambda_terms lambda_pair(float ex, float ey, float ez, float m,
                                                                       float h, float h2, float cg,
                                                                       float inv_rho0, float scale, float tiny)
{
    const float r2 = ex * ex + ey * ey + ez * ez;
    const float d0 = h2 - r2, d = d0 > 0.0f ? d0 : 0.0f;
    const spiky_terms sp = spiky_pair(r2, h, tiny);
    /* grad_i of (m_j / rho0) W_spiky: a factor times (x_i - x_j). */
    const float f = -cg * m * inv_rho0 * sp.hr * sp.hr * sp.inv_r;
    return (lambda_terms){m * d * d * d, f * ex, f * ey, f * ez, f * f * r2, delta_gradient(scale, m, sp)};
}

/* The lanes' sums of lambda_terms, neighbours and ghosts alike. */
typedef struct lambda_sums {
    float w[EDDY_SPH_LANES], gx[EDDY_SPH_LANES], gy[EDDY_SPH_LANES], gz[EDDY_SPH_LANES], g2[EDDY_SPH_LANES];
} lambda_sums;

static inline __attribute__((always_inline)) void lambda_add(lambda_sums *sum, size_t k, lambda_terms t)
{
    sum->w[k] += t.w;
    sum->gx[k] += t.gx;
    sum->gy[k] += t.gy;
    sum->gz[k] += t.gz;
    sum->g2[k] += t.g2;
}

/*
 * Density and lambda of the owned particles of a block, one per lane (eddy_sph_block_pass), at the
 * current positions (the first half of a Jacobi iteration): rho_i = sum_j m_j W_poly6 (neighbours,
 * then the ghosts of the neighbours and of i in each mirror), C_i = rho_i / rho0 - 1,
 * lambda_i = -C_i / (sum_k |grad_k C_i|^2 + epsilon).
 */
EDDY_SPH_SIMD_BODY void lambda_block(void *vc, const eddy_sph_block *b, const int form)
{
    pass *c = vc;
    const eddy_solver *s = c->s;
    const eddy_particles *p = &c->w->particles;
    const float *mass = p->mass;
    const float h = c->k.h, h2 = c->k.h2, cg = c->k.spiky_grad, tiny = c->tiny;
    float inv_rho0[EDDY_SPH_LANES], scale[EDDY_SPH_LANES];
    for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
        inv_rho0[k] = s->inv_rho0[p->material[b->particle[k]]];
        scale[k] = -cg * inv_rho0[k];
    }
    lambda_sums sum;
    memset(&sum, 0, sizeof sum);
    for (uint32_t q = 0; q < b->rows; ++q) {
        eddy_sph_row4 r;
        eddy_sph_block_load(c->pos, eddy_sph_block_row(b, q), &r);
        float *grad = eddy_sph_block_values(&s->grad, b, q);
#pragma omp simd
        for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
            float dx, dy, dz, mj;
            eddy_sph_block_neighbor(b, &r, mass, q, k, form, &dx, &dy, &dz, &mj);
            const lambda_terms t = lambda_pair(dx, dy, dz, mj, h, h2, cg, inv_rho0[k], scale[k], tiny);
            lambda_add(&sum, k, t);
            grad[k] = t.t;
        }
    }
    /* The ghosts within h of the neighbours and of each particle itself, image slot by slot (selected
     * with the lists: prepare). */
    eddy_sph_block_image img;
    for (int slot = 0; (slot = eddy_sph_block_next_image(&c->s->nb, b, slot, &img)) >= 0; ++slot) {
        for (uint32_t g = b->ghost_row[slot]; g < b->ghost_row[slot + 1]; ++g) {
            eddy_sph_row4 r;
            eddy_sph_block_load(c->pos, eddy_sph_block_ghost_row(b, g), &r);
            float *grad = eddy_sph_block_ghost_values(&s->grad, b, g);
#pragma omp simd
            for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
                float ex, ey, ez, mj;
                eddy_sph_block_ghost(b, &img, &r, mass, g, k, form, &ex, &ey, &ez, &mj);
                const lambda_terms t = lambda_pair(ex, ey, ez, mj, h, h2, cg, inv_rho0[k], scale[k], tiny);
                lambda_add(&sum, k, t);
                grad[k] = t.t;
            }
        }
    }
    /* Every lane (those past b->lanes repeat a particle of the block), so that the loop runs as SIMD. */
    const float w0 = eddy_poly6(&c->k, 0.0f);
    const int unilateral = s->unilateral;
    float rho[EDDY_SPH_LANES], lam[EDDY_SPH_LANES];
#pragma omp simd
    for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
        const uint32_t m = p->material[b->particle[k]];
        /* The toolkit's self term assumes the particle itself in the sum (eddy_sph_self_density); the
         * neighbour rows exclude it, so its m W(0) is added here, after the sum. Adding it inside the
         * float sum instead is the same density to rounding, but once moved the coarse hydrostatic
         * tank's density deviation from 0.0096 to 0.0168 (bar 0.015): PBF's rest state is that
         * sensitive, so the order stays. */
        rho[k] = eddy_sph_density(&c->k, sum.w[k], s->mat.self_density[m] + s->mat.mass[m] * w0);
        const float C0 = rho[k] * inv_rho0[k] - 1.0f, C = unilateral && C0 < 0.0f ? 0.0f : C0;
        lam[k] = -C / (sum.gx[k] * sum.gx[k] + sum.gy[k] * sum.gy[k] + sum.gz[k] * sum.gz[k] + sum.g2[k] +
                       s->epsilon[m]);
    }
    for (uint32_t k = 0; k < b->lanes; ++k) {
        const uint32_t i = b->particle[k];
        c->rho[i] = rho[k];
        c->lam[i] = lam[k];
        if (c->lam_sum) c->lam_sum[i] += lam[k];
    }
}
EDDY_SPH_SIMD_BLOCK_CLONES(lambda_block);

/* Writes the density and lambda fields, and adds lambda into lam_sum (NULL: not); neighbours read lambda
 * in delta_pass, so the caller refreshes its halo copies. */
static void lambda_pass(eddy_solver *s, eddy_world *w, float *lam_sum)
{
    pass c = make_pass(s, w);
    c.rho = w->particles.density;
    c.lam_sum = lam_sum;
    const eddy_particles *p = &w->particles;
    eddy_sph_records_pack(&s->pos, p->count, p->x, p->y, p->z, NULL);
    c.pos = &s->pos;
    eddy_sph_block_pass(&s->nb, p, lambda_block_simd[eddy_sph_block_form(&s->nb)][s->simd], &c);
}

/*
 * One pair's delta-p factor f, the pair's term being f (x_i - x_j): (m_j / rho0) (lambda_i + lambda_j
 * + s_corr) grad W_spiky with s_corr = -sc (W / W(dq))^n, from the pair's gradient factor t
 * (delta_gradient) and r2 = |x_i - x_j|^2. ncorr is a compile-time constant at every call (delta_rows),
 * so the power loop unrolls and the loops run as SIMD.
 */
static inline __attribute__((always_inline)) float delta_pair(float t, float r2, float lj, float h2, float li,
                                                               float cwq, float sc, const int ncorr)
{
    const float d0 = h2 - r2, d = d0 > 0.0f ? d0 : 0.0f;
    const float r1 = cwq * d * d * d;
    /* r1^n as n - 1 products in order; each test folds at compile time, so no loop is left for the
     * unroller's size limits to keep (a loop left in place stops the lane loop's vectorization). */
    float pw = r1;
    if (ncorr > 1) pw *= r1;
    if (ncorr > 2) pw *= r1;
    if (ncorr > 3) pw *= r1;
    if (ncorr > 4) pw *= r1;
    if (ncorr > 5) pw *= r1;
    if (ncorr > 6) pw *= r1;
    if (ncorr > 7) pw *= r1;
    return t * (li + lj - sc * pw);
}

/* The lanes' delta-p over their neighbours (img NULL) or over their ghosts in image `slot` (img: that
 * image of each lane), added into acc. The pairs' gradient factors are those the lambda pass kept at
 * the same positions: each pair's square root and division, once an iteration. */
static inline __attribute__((always_inline)) void delta_rows(const pass *c, const eddy_sph_block *b,
                                                             const eddy_sph_block_image *img, int slot,
                                                             const float *li, const int ncorr, const int form,
                                                             float acc[3][EDDY_SPH_LANES])
{
    const float *mass = c->w->particles.mass;
    const float h2 = c->k.h2, cwq = c->cwq, sc = c->sc;
    float *ax = acc[0], *ay = acc[1], *az = acc[2];
    if (!img) {
        for (uint32_t q = 0; q < b->rows; ++q) {
            eddy_sph_row4 r; /* positions and lambda */
            eddy_sph_block_load(c->pos, eddy_sph_block_row(b, q), &r);
            const float *grad = eddy_sph_block_values(&c->s->grad, b, q);
#pragma omp simd
            for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
                float dx, dy, dz, mj;
                eddy_sph_block_neighbor(b, &r, mass, q, k, form, &dx, &dy, &dz, &mj);
                const float r2 = dx * dx + dy * dy + dz * dz;
                const float f = delta_pair(grad[k], r2, r.d[k], h2, li[k], cwq, sc, ncorr);
                ax[k] += f * dx;
                ay[k] += f * dy;
                az[k] += f * dz;
            }
        }
    } else {
        for (uint32_t g = b->ghost_row[slot]; g < b->ghost_row[slot + 1]; ++g) {
            eddy_sph_row4 r;
            eddy_sph_block_load(c->pos, eddy_sph_block_ghost_row(b, g), &r);
            const float *grad = eddy_sph_block_ghost_values(&c->s->grad, b, g);
#pragma omp simd
            for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
                float ex, ey, ez, mj;
                eddy_sph_block_ghost(b, img, &r, mass, g, k, form, &ex, &ey, &ez, &mj);
                const float r2 = ex * ex + ey * ey + ez * ez;
                const float f = delta_pair(grad[k], r2, r.d[k], h2, li[k], cwq, sc, ncorr);
                ax[k] += f * ex;
                ay[k] += f * ey;
                az[k] += f * ez;
            }
        }
    }
}

/* Delta-p of the owned particles of a block from the lambdas (with s_corr, and over the wall ghosts
 * selected with the lists: prepare), then the collision projection; the new positions go to c->nx
 * (Jacobi: every particle reads the old positions, from the records and its block's lanes). */
EDDY_SPH_SIMD_BODY void delta_block(void *vc, const eddy_sph_block *b, const int form, const int ncorr)
{
    const pass *c = vc;
    const eddy_solver *s = c->s;
    const eddy_world *w = c->w;
    const eddy_particles *p = &w->particles;
    float li[EDDY_SPH_LANES];
    for (size_t k = 0; k < EDDY_SPH_LANES; ++k) li[k] = c->lam[b->particle[k]];
    float acc[3][EDDY_SPH_LANES] = {{0}};
    delta_rows(c, b, NULL, 0, li, ncorr, form, acc);
    eddy_sph_block_image img;
    for (int slot = 0; (slot = eddy_sph_block_next_image(&s->nb, b, slot, &img)) >= 0; ++slot)
        delta_rows(c, b, &img, slot, li, ncorr, form, acc);
    float nx[EDDY_SPH_LANES], ny[EDDY_SPH_LANES], nz[EDDY_SPH_LANES];
    for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
        nx[k] = b->x[k] + acc[0][k];
        ny[k] = b->y[k] + acc[1][k];
        nz[k] = b->z[k] + acc[2][k];
    }
    const eddy_boundaries *bd = &w->boundaries;
    /* The lanes within a contact radius of a surface at their new positions: the near-wall lanes
     * (within h at the list build) first, then the core's pick over those (<eddy/boundary_math.h>),
     * which leaves out only lanes the response would not move (all eight lanes: the padding ones are
     * defined, and a constant count lets the compiler see the arrays' bounds). */
    unsigned char touch[EDDY_SPH_LANES] = {0};
    int any = 0;
    for (uint32_t k = 0; k < b->lanes; ++k) any |= s->nb.near[b->particle[k]];
    if (bd->collider_count > 0 && any) {
        float reach = 0.0f;
        for (uint32_t k = 0; k < b->lanes; ++k) reach = fmaxf(reach, w->contacts[p->material[b->particle[k]]].radius);
        eddy_hd_contact_pick(bd->colliders, bd->collider_count, w->dimensions, reach, nx, ny, nz, EDDY_SPH_LANES, touch);
    }
    for (uint32_t k = 0; k < b->lanes; ++k) {
        const uint32_t i = b->particle[k], m = p->material[i];
        float pos[3] = {nx[k], ny[k], nz[k]};
        if (touch[k] && s->nb.near[i]) {
            /* Collision response inside the iteration: a full projection out of every surface (erp 1
             * of the material's contact); velocities follow from the positions after the iterations. */
            eddy_contact_params cp = w->contacts[m];
            cp.erp = 1.0f;
            float vzero[3] = {0.0f, 0.0f, 0.0f};
            eddy_hd_contact_respond_visible(bd->colliders, bd->collider_count, w->dimensions, &cp, pos, vzero);
        }
        c->nx[i] = pos[0];
        c->ny[i] = pos[1];
        c->nz[i] = w->dimensions == 3 ? pos[2] : 0.0f;
        /* The correction itself, not the change of the rounded position: far from the origin a float
         * coordinate cannot hold it (the step's velocity comes from these sums). The projection's move
         * pos - (x + delta-p) is 0 where the particle touched nothing. */
        c->cx[i] += acc[0][k] + (pos[0] - nx[k]);
        c->cy[i] += acc[1][k] + (pos[1] - ny[k]);
        if (w->dimensions == 3) c->cz[i] += acc[2][k] + (pos[2] - nz[k]);
    }
}
/* One function per s_corr exponent n (1 to 8, the parameter table's range) with n a constant, so the
 * power unrolls: the eight inlined into one function behind a switch grew it past what GCC 12's loop
 * vectorizer analyses, and some of the row loops stayed scalar. */
#define PBF_DELTA_N(N)                                                                                  \
    EDDY_SPH_SIMD_BODY void delta_block_##N(void *vc, const eddy_sph_block *b, const int form)        \
    {                                                                                                   \
        delta_block(vc, b, form, N);                                                                    \
    }                                                                                                   \
    EDDY_SPH_SIMD_BLOCK_CLONES(delta_block_##N);
PBF_DELTA_N(1)
PBF_DELTA_N(2)
PBF_DELTA_N(3)
PBF_DELTA_N(4)
PBF_DELTA_N(5)
PBF_DELTA_N(6)
PBF_DELTA_N(7)
PBF_DELTA_N(8)
#undef PBF_DELTA_N
static const eddy_sph_block_fn (*const delta_block_simd[8])[EDDY_SPH_SIMD_COUNT] = {
    delta_block_1_simd, delta_block_2_simd, delta_block_3_simd, delta_block_4_simd,
    delta_block_5_simd, delta_block_6_simd, delta_block_7_simd, delta_block_8_simd};

/* The new positions of every owned particle. Neighbours read the positions next (the next iteration,
 * the velocity passes), so the caller refreshes their halo copies. */
static void delta_pass(eddy_solver *s, eddy_world *w, float dt)
{
    pass c = make_pass(s, w);
    const float h = c.k.h;
    const float wq = eddy_poly6(&c.k, s->scorr_dq * h * s->scorr_dq * h);
    /* s_corr in the units of lambda (length^2): the artificial pressure k (W / W(dq))^n rho0 |g| h,
     * k times the hydrostatic pressure over one smoothing radius, times dt^2 / rho0 (lambda is
     * -p dt^2 / rho0 for a pressure p). It then acts like a pressure, whatever the time step. */
    const float gg = w->gravity[0] * w->gravity[0] + w->gravity[1] * w->gravity[1] + w->gravity[2] * w->gravity[2];
    c.cwq = c.k.poly6 / wq;
    c.sc = s->scorr_k * dt * dt * sqrtf(gg) * h;
    c.dt = dt;
    eddy_particles *p = &w->particles;
    c.nx = p->x;
    c.ny = p->y;
    c.nz = p->z;
    c.cx = s->corr[0];
    c.cy = s->corr[1];
    c.cz = s->corr[2];
    /* The lambda pass packed these positions (the halo refresh since then moved only lambda). */
    eddy_sph_records_set_d(&s->pos, p->count, c.lam);
    c.pos = &s->pos;
    eddy_sph_block_pass(&s->nb, p, delta_block_simd[s->scorr_n - 1][eddy_sph_block_form(&s->nb)][s->simd], &c);
}

/* The XSPH term of a pair, V_j (v_j - v_i) W_poly6, added into lane k's sums sv (r2 = |x_i - x_j|^2). */
static inline __attribute__((always_inline)) void xsph_add(float sv[3][EDDY_SPH_LANES], size_t k, float vj, float r2,
                                                           float h2, float cw, float du, float dv, float dw)
{
    const float d0 = h2 - r2, d = d0 > 0.0f ? d0 : 0.0f;
    const float wgt = vj * cw * d * d * d;
    sv[0][k] += wgt * du;
    sv[1][k] += wgt * dv;
    sv[2][k] += wgt * dw;
}

/* The XSPH sums sum_j V_j (v_j - v_i) W_poly6, V_j = m_j / rho0, of the lanes of a block. */
static inline __attribute__((always_inline)) void xsph_rows(const pass *c, const eddy_sph_block *b, const int form,
                                                            float sv[3][EDDY_SPH_LANES])
{
    const eddy_particles *p = &c->w->particles;
    const float *mass = p->mass, *vx = c->vx, *vy = c->vy, *vz = c->vz;
    const float h2 = c->k.h2, cw = c->k.poly6;
    float inv_rho0[EDDY_SPH_LANES], ui[EDDY_SPH_LANES], vi[EDDY_SPH_LANES], wi[EDDY_SPH_LANES];
    for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
        const uint32_t i = b->particle[k];
        inv_rho0[k] = c->s->inv_rho0[p->material[i]];
        ui[k] = vx[i];
        vi[k] = vy[i];
        wi[k] = vz[i];
    }
    for (uint32_t q = 0; q < b->rows; ++q) {
        eddy_sph_row4 r, v; /* positions; velocities */
        eddy_sph_block_load(c->pos, eddy_sph_block_row(b, q), &r);
        eddy_sph_block_load(c->vel, eddy_sph_block_row(b, q), &v);
#pragma omp simd
        for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
            float dx, dy, dz, mj;
            eddy_sph_block_neighbor(b, &r, mass, q, k, form, &dx, &dy, &dz, &mj);
            xsph_add(sv, k, mj * inv_rho0[k], dx * dx + dy * dy + dz * dz, h2, cw, v.a[k] - ui[k], v.b[k] - vi[k],
                     v.c[k] - wi[k]);
        }
    }
}

/*
 * omega_i = sum_j V_j (v_i - v_j) x grad_i W_spiky, V_j = m_j / rho0, for the lanes of a block; and, as
 * it reads the same pairs' velocities, their XSPH sums (xsph_rows), kept in scratch until xsph_block
 * adds them; and eta's gradient factors of the pairs (eta_rows), so that the eta pass reads the
 * positions and |omega| alone, and takes no square root or division.
 */
EDDY_SPH_SIMD_BODY void vorticity_block(void *vc, const eddy_sph_block *b, const int form)
{
    const pass *c = vc;
    const eddy_particles *p = &c->w->particles;
    const float *mass = p->mass, *vx = c->vx, *vy = c->vy, *vz = c->vz;
    const float h = c->k.h, h2 = c->k.h2, cw = c->k.poly6, cg = c->k.spiky_grad, tiny = c->tiny;
    float scale[EDDY_SPH_LANES], inv_rho0[EDDY_SPH_LANES], ui[EDDY_SPH_LANES], vi[EDDY_SPH_LANES],
        wi[EDDY_SPH_LANES];
    for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
        const uint32_t i = b->particle[k];
        inv_rho0[k] = c->s->inv_rho0[p->material[i]];
        scale[k] = -cg * inv_rho0[k];
        ui[k] = vx[i];
        vi[k] = vy[i];
        wi[k] = vz[i];
    }
    float ox[EDDY_SPH_LANES] = {0}, oy[EDDY_SPH_LANES] = {0}, oz[EDDY_SPH_LANES] = {0};
    float sv[3][EDDY_SPH_LANES] = {{0}};
    for (uint32_t q = 0; q < b->rows; ++q) {
        eddy_sph_row4 r, v; /* positions; velocities */
        eddy_sph_block_load(c->pos, eddy_sph_block_row(b, q), &r);
        eddy_sph_block_load(c->vel, eddy_sph_block_row(b, q), &v);
        float *grad = eddy_sph_block_values(&c->s->grad, b, q);
#pragma omp simd
        for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
            float dx, dy, dz, mj;
            eddy_sph_block_neighbor(b, &r, mass, q, k, form, &dx, &dy, &dz, &mj);
            const float bu = ui[k] - v.a[k], bv = vi[k] - v.b[k], bw = wi[k] - v.c[k];
            const float r2 = dx * dx + dy * dy + dz * dz;
            const spiky_terms sp = spiky_pair(r2, h, tiny);
            const float hr = sp.hr, inv_r = sp.inv_r;
            const float f = scale[k] * mj * hr * hr * inv_r; /* V_j grad_i W = f d */
            const float gx = f * dx, gy = f * dy, gz = f * dz;
            ox[k] += bv * gz - bw * gy;
            oy[k] += bw * gx - bu * gz;
            oz[k] += bu * gy - bv * gx;
            const float vj = mj * inv_rho0[k];
            xsph_add(sv, k, vj, r2, h2, cw, v.a[k] - ui[k], v.b[k] - vi[k], v.c[k] - wi[k]);
            grad[k] = -cg * vj * hr * hr * inv_r; /* eta's V_j grad_i W = grad d, in eta_rows' order */
        }
    }
    for (uint32_t k = 0; k < b->lanes; ++k) {
        const uint32_t i = b->particle[k];
        c->ox[i] = ox[k];
        c->oy[i] = oy[k];
        c->oz[i] = oz[k];
        c->onorm[i] = sqrtf(ox[k] * ox[k] + oy[k] * oy[k] + oz[k] * oz[k]);
        c->sx[i] = sv[0][k];
        c->sy[i] = sv[1][k];
        c->sz[i] = sv[2][k];
    }
}
EDDY_SPH_SIMD_BLOCK_CLONES(vorticity_block);

/* eta = sum_j V_j (|omega_j| - |omega_i|) grad_i W_spiky for the lanes of a block, from records of the
 * positions and |omega| and the pairs' V_j grad_i W kept by vorticity_block. */
static inline __attribute__((always_inline)) void eta_rows(const pass *c, const eddy_sph_block *b, const int form,
                                                           float e[3][EDDY_SPH_LANES])
{
    const eddy_particles *p = &c->w->particles;
    const float *mass = p->mass, *om = c->om;
    float omi[EDDY_SPH_LANES];
    for (size_t k = 0; k < EDDY_SPH_LANES; ++k) omi[k] = om[b->particle[k]];
    float *ex = e[0], *ey = e[1], *ez = e[2];
    for (uint32_t q = 0; q < b->rows; ++q) {
        eddy_sph_row4 r; /* positions and |omega| */
        eddy_sph_block_load(c->pos, eddy_sph_block_row(b, q), &r);
        const float *grad = eddy_sph_block_values(&c->s->grad, b, q);
#pragma omp simd
        for (size_t k = 0; k < EDDY_SPH_LANES; ++k) {
            float dx, dy, dz, mj;
            eddy_sph_block_neighbor(b, &r, mass, q, k, form, &dx, &dy, &dz, &mj);
            const float f = grad[k] * (r.d[k] - omi[k]);
            ex[k] += f * dx;
            ey[k] += f * dy;
            ez[k] += f * dz;
        }
    }
}

/* v_i += dt epsilon (N x omega_i) + c sum_j V_j (v_j - v_i) W_poly6, N = eta / |eta| (the XSPH sums from
 * vorticity_block when vorticity confinement is on). */
EDDY_SPH_SIMD_BODY void xsph_block(void *vc, const eddy_sph_block *b, const int form)
{
    const pass *c = vc;
    const int vort = c->s->vort_eps > 0.0f;
    float e[3][EDDY_SPH_LANES] = {{0}}, sv[3][EDDY_SPH_LANES] = {{0}};
    if (vort) {
        eta_rows(c, b, form, e);
        for (uint32_t k = 0; k < b->lanes; ++k) {
            const uint32_t i = b->particle[k];
            sv[0][k] = c->sx[i];
            sv[1][k] = c->sy[i];
            sv[2][k] = c->sz[i];
        }
    } else {
        xsph_rows(c, b, form, sv);
    }
    const float dt = c->dt, cx = c->s->xsph_c;
    for (uint32_t k = 0; k < b->lanes; ++k) {
        const uint32_t i = b->particle[k];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        const float en = sqrtf(e[0][k] * e[0][k] + e[1][k] * e[1][k] + e[2][k] * e[2][k]);
        if (vort && en > 0.0f) {
            const float Nx = e[0][k] / en, Ny = e[1][k] / en, Nz = e[2][k] / en, eps = c->s->vort_eps;
            ax = eps * (Ny * c->oz[i] - Nz * c->oy[i]);
            ay = eps * (Nz * c->ox[i] - Nx * c->oz[i]);
            az = eps * (Nx * c->oy[i] - Ny * c->ox[i]);
        }
        c->nx[i] = c->vx[i] + dt * ax + cx * sv[0][k];
        c->ny[i] = c->vy[i] + dt * ay + cx * sv[1][k];
        c->nz[i] = c->w->dimensions == 3 ? c->vz[i] + dt * az + cx * sv[2][k] : 0.0f;
    }
}
EDDY_SPH_SIMD_BLOCK_CLONES(xsph_block);

/*
 * Vorticity confinement and XSPH viscosity on the velocities of the position change, v* + dp / dt (step();
 * Macklin & Müller 2013 §5;
 * Mijalkovic §4.2, §4.3).
 * Pass 1: omega_i = sum_j V_j (v_i - v_j) x grad_i W_spiky (the SPH curl, V_j = m_j / rho0), and the
 *         XSPH sum sum_j V_j (v_j - v_i) W_poly6, which reads the same pairs.
 * Pass 2: eta = sum_j V_j (|omega_j| - |omega_i|) grad_i W, N = eta / |eta|, a = epsilon N x omega,
 *         and v_i += dt a + c (the XSPH sum), from the velocities before the passes.
 * Without vorticity confinement, pass 2 alone, with the XSPH sum.
 * Both update the owned particles; pass 2 reads the neighbors' vorticity, whose halo copies are
 * refreshed in between (their |omega| then follows from the refreshed field, as the owner computed it).
 */
static int velocity_passes(eddy_solver *s, eddy_world *w, float dt, eddy_error *err)
{
    pass c = make_pass(s, w);
    eddy_particles *p = &w->particles;
    c.vx = p->vx;
    c.vy = p->vy;
    c.vz = p->vz;
    c.om = c.onorm = s->s[3];
    c.dt = dt;
    c.nx = p->vx;
    c.ny = p->vy;
    c.nz = p->vz;
    c.sx = s->s[0];
    c.sy = s->s[1];
    c.sz = s->s[2];
    eddy_sph_records_pack(&s->pos, p->count, p->x, p->y, p->z, NULL);
    c.pos = &s->pos;
    c.vel = &s->vel;
    const long long n = (long long)p->count;
    const uint8_t *halo = halo_flags(p);
    if (s->vort_eps > 0.0f) {
        c.ox = eddy_particles_field(p, s->f_vort, 0);
        c.oy = eddy_particles_field(p, s->f_vort, 1);
        c.oz = eddy_particles_field(p, s->f_vort, 2);
        eddy_sph_records_pack(&s->vel, p->count, p->vx, p->vy, p->vz, NULL);
        eddy_sph_block_pass(&s->nb, p, vorticity_block_simd[eddy_sph_block_form(&s->nb)][s->simd], &c);
        const int f_vort = s->f_vort;
        int rc = eddy_world_refresh_fields(w, &f_vort, 1, err);
        if (rc) return rc;
        c.ox = eddy_particles_field(p, s->f_vort, 0);
        c.oy = eddy_particles_field(p, s->f_vort, 1);
        c.oz = eddy_particles_field(p, s->f_vort, 2);
        if (halo) {
            float *om = s->s[3];
            const float *ox = c.ox, *oy = c.oy, *oz = c.oz;
#pragma omp parallel for schedule(static)
            for (long long i = 0; i < n; ++i)
                if (halo[i] & EDDY_PARTICLE_HALO) om[i] = sqrtf(ox[i] * ox[i] + oy[i] * oy[i] + oz[i] * oz[i]);
        }
    }
    if (s->vort_eps > 0.0f)
        eddy_sph_records_set_d(&s->pos, p->count, c.om); /* eta reads the positions and |omega| */
    else
        eddy_sph_records_pack(&s->vel, p->count, p->vx, p->vy, p->vz, NULL);
    eddy_sph_block_pass(&s->nb, p, xsph_block_simd[eddy_sph_block_form(&s->nb)][s->simd], &c);
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    eddy_particles *p = &w->particles;
    const int f_position = EDDY_FIELD_POSITION, f_velocity = EDDY_FIELD_VELOCITY, f_lambda = s->f_lambda;
    double t0 = eddy_time_ms();
    /* Gravity and prediction: remember x (the field previous_position, for frames and checkpoints; the
     * step no longer reads it), then v* = v + dt g and x* = x + dt v*. */
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
    if ((rc = prepare(s, w, err))) return rc; /* sorts by cell: v*, previous_position and lambda follow */
    /* Density and lambda as the step found them (s[0], s[1]), and the sum of the iterations' lambdas
     * (s[2], for the pressure): scratch free until the velocity passes. Another
     * process's failure in its own prepare() (a particle that left the domain at its predicted
     * position) is learned only at the first lambda refresh, after this process's lambda pass wrote
     * both; one process stops before that pass, so they are put back there and the failed state is
     * the same on any number of processes. */
    float *const rho_before = s->s[0], *const lam_before = s->s[1], *const lam_sum = s->s[2];
    float *const lam = eddy_particles_field(p, f_lambda, 0);
    {
        /* The corrections' sums start at 0 for every particle in the order the sort left. */
        const long long n = (long long)p->count;
        float *cx = s->corr[0], *cy = s->corr[1], *cz = s->corr[2];
        const float *rho = p->density;
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) {
            cx[i] = cy[i] = cz[i] = 0.0f;
            rho_before[i] = rho[i];
            lam_before[i] = lam[i];
            lam_sum[i] = 0.0f;
        }
    }
    double dens = 0.0, forces = 0.0;
    for (int it = 0; it < s->iterations; ++it) {
        double a = eddy_time_ms();
        lambda_pass(s, w, lam_sum);
        if ((rc = eddy_world_refresh_fields(w, &f_lambda, 1, err))) {
            if (it == 0) {
                const long long n = (long long)p->count;
                float *rho = p->density;
#pragma omp parallel for schedule(static)
                for (long long i = 0; i < n; ++i) {
                    rho[i] = rho_before[i];
                    lam[i] = lam_before[i];
                }
            }
            return rc;
        }
        double b = eddy_time_ms();
        delta_pass(s, w, dt);
        if ((rc = eddy_world_refresh_fields(w, &f_position, 1, err))) return rc;
        dens += b - a;
        forces += eddy_time_ms() - b;
    }
    double t2 = eddy_time_ms();
    /* Velocity of the position change, v = (x* - x) / dt = v* + dp / dt with dp the sum of the corrections:
     * taken as that sum, never as the difference of two rounded positions. The step's displacement
     * dt v* is of the order of the float spacing of a coordinate (dt^2 g = 1e-7 m against 2.4e-7 m at
     * 3.8 m), so that difference rounded gravity's gain away or quantized it: a block released at
     * y = 3.8 m never fell, a periodic channel at x = 1 m never started. The sums hold only what the
     * iterations moved a particle by, rounded relative to that; v* keeps its own precision. No periodic
     * minimum image either: nothing here wraps. */
    /* The pressure the constraint exerted over the step: delta-p is linear in lambda (the pairs'
     * gradients barely move within a step), so the iterations' displacement is that of one lambda, their
     * sum, and a pressure p moves a particle by dt^2 grad p / rho0 (header: lambda = -p dt^2 / rho0).
     * delta-p's spiky gradient is not renormalized, and on the rest lattice it reads a linear field's
     * gradient low by the lattice moment (0.874 in 2D, 0.947 in 3D at h = 2 spacings), so the lambda
     * that balances gravity's dt^2 g is that much larger: dividing by the material's gradient_scale
     * (1 / that moment, as the EOS solvers' pressure forces apply it) gives the hydrostatic pressure.
     * s_corr's artificial pressure is not part of it. It is written for frames and probes; no pass of
     * the method reads it. */
    {
        const float *cx = s->corr[0], *cy = s->corr[1], *cz = s->corr[2];
        const long long n = (long long)p->count;
        const uint8_t *halo = halo_flags(p);
        const float inv_dt2 = 1.0f / (dt * dt);
        /* The average's weight on this step: all of it on a run's first step, whose field before is the
         * host's zero fill; a resumed run goes on from the checkpoint's average. */
        const float keep = w->step == 0 ? 0.0f : (float)(s->pressure_average / (s->pressure_average + dt_in));
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < n; ++i) {
            if (is_halo(halo, (size_t)i)) continue;
            p->vx[i] += cx[i] / dt;
            p->vy[i] += cy[i] / dt;
            if (w->dimensions == 3) p->vz[i] += cz[i] / dt;
            const uint32_t m = p->material[i];
            /* (0 - x: a particle without compression reads 0, not -0, in a CSV frame) */
            const float step_p = 0.0f - lam_sum[i] * s->mat.rest_density[m] * inv_dt2 / s->mat.gradient_scale[m];
            p->pressure[i] = step_p + keep * (p->pressure[i] - step_p);
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
    lambda_pass(s, w, NULL);
    const int f_lambda = s->f_lambda;
    return eddy_world_refresh_fields(w, &f_lambda, 1, err);
}

static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    /* CFL alone has no limit at rest: a fluid released with a step of 1 s (a user's time.dt) fell 9.8 m
     * in its first step. Gravity's acceleration bounds it as the SPH solvers' force limit bounds theirs
     * (0.25 sqrt(h / |g|): 5.6 ms at h = 5 mm, above every shipped scene's dt). */
    const double g = sqrt((double)w->gravity[0] * w->gravity[0] + (double)w->gravity[1] * w->gravity[1] +
                          (double)w->gravity[2] * w->gravity[2]);
    *dt = eddy_world_stable_dt(w, s->cfl, 0.0, 0.0, g, limit);
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
    /* 2.1: the velocity is v* + dp / dt, not (x* - x) / dt; a resume of a 2.0 checkpoint works (the same
     * fields) and the host warns that it may differ from an uninterrupted run. */
    .version = "2.1.0",
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
    .version = "2.1.0",
    .init = NULL,
    .deinit = NULL,
    .component_count = 1,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
