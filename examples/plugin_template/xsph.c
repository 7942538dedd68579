/*
 * xsph — weakly compressible SPH with XSPH velocity smoothing: the eddy plugin template (ABI 2.1 or a
 * later 2.x: it sets EDDY_COMPONENT_STATE_COMPLETE).
 *
 * A complete, small solver written against the installed SDK alone (<eddy/eddy.h>). Copy this folder,
 * rename the solver, and change the physics; docs/plugin-guide.md walks through it.
 *
 * Method (Monaghan 1992, "Smoothed particle hydrodynamics", Annu. Rev. Astron. Astrophys. 30; and
 * Monaghan 1994, "Simulating free surface flows with SPH", J. Comput. Phys. 110), with h the kernel
 * support radius:
 *   density    rho_i = sum_j m_j W_poly6(r_ij)                     (summation, walls' ghosts included)
 *   pressure   p_i   = max(0, k (rho_i - rho0))                    (the material's stiffness k)
 *   momentum   dv_i/dt = -sum_j m_j (p_i / rho_i^2 + p_j / rho_j^2 + Pi_ij) s grad W_spiky(r_ij) + g
 *              Pi_ij = -alpha c h (v_ij . x_ij) / (rho_ij (r_ij^2 + 0.01 h^2)) when v_ij . x_ij < 0
 *              (artificial viscosity; c = sqrt(k) is the speed of sound of p = k (rho - rho0), and s
 *              normalizes the spiky gradient on the rest lattice, so a fluid at rest carries rho0 g H)
 *   XSPH       dx_i/dt = v_i + eps sum_j 2 m_j / (rho_i + rho_j) (v_j - v_i) W_poly6(r_ij)
 * XSPH moves each particle with a velocity averaged over its neighbours, which keeps particles orderly
 * at high speed without dissipating momentum; the correction is stored in the registered field
 * "xsph_correction" and written to every frame.
 *
 * Walls: each sum includes the mirror ghosts of the container and colliders (eddy_boundaries_mirrors),
 * so a particle at a wall sees a full neighbourhood; the core's contact response then keeps particles
 * out of solids. Of the per-material parameters only the stiffness is used (alpha replaces the
 * viscosity; initial_sum is taken as 1).
 *
 * Several processes: every loop that writes particles skips halo copies (particles another process
 * owns, kept here as neighbours), and density and pressure are refreshed on them after the density
 * pass, because the force pass reads them of every neighbour. That is all a solver needs to be
 * EDDY_COMPONENT_DECOMPOSABLE; in one process there is no halo copy and both cost nothing.
 *
 * Determinism: every sum is a gather over the particle's neighbour cells in the grid's fixed order, so
 * the result is bit-identical for any number of OpenMP threads.
 *
 * The neighbour machinery comes from the SPH toolkit installed with the SDK (<eddy_sph/sph.h>,
 * docs/toolkit.md; eddy_add_plugin links it): per cell, the candidates of the 3-cell bars that the
 * cell's particles can reach are gathered once into contiguous arrays (eddy_sph_gather), and every
 * particle of the cell runs one SIMD loop over them, written once in partner_sums(): called with no
 * image it sums the real neighbours, called with a wall's mirror image (eddy_sph_image) it sums their
 * ghosts (eddy_sph/partners.h). What is left here is the physics: the pair terms in pair() and the
 * per-particle updates. Keep the pair function branch-free (selects, no division or load under a
 * condition), or the compiler will not vectorize the loops that call it.
 */
#include <eddy/eddy.h>
#include <eddy_sph/sph.h>
#include <eddy_sph/simd.h>

#include <math.h>
#include <stdlib.h>

/* The solver's id: the component id that scenes and --solver name, the component of its log lines and
 * the tag of its checkpoint record. CMakeLists.txt passes its SOLVER_ID (one line to rename the
 * solver); this default is for builds without CMake (pkg-config, README.md). */
#ifndef SOLVER_ID
#define SOLVER_ID "xsph"
#endif

/* Forces inlining of the pair function into the SIMD loops. */
#if defined(__GNUC__) || defined(__clang__)
#define PAIR_INLINE static inline __attribute__((always_inline))
#else
#define PAIR_INLINE static inline
#endif

/* Parameters as data: the host validates a scene's "solvers": {"<id>": {...}} section against this
 * table (eddy describe <id> prints it) and passes typed values in table order. The EDDY_PARAM_*_DESC
 * initializers (params.h) fill each entry's size, so the table stays readable by newer hosts. */
enum { P_CFL, P_ALPHA, P_XSPH, P_COUNT };

static const eddy_param_desc params[P_COUNT] = {
    [P_CFL] = EDDY_PARAM_REAL_DESC(
        "cfl", 0.25, 0.01, 1.0, "1",
        "CFL number of the time-step limit cfl * h / (c + v_max), with c = sqrt(stiffness)."),
    [P_ALPHA] = EDDY_PARAM_REAL_DESC(
        "alpha", 0.02, 0.0, 1.0, "1",
        "Artificial viscosity (Monaghan): the effective kinematic viscosity is about alpha c h / 8 in 2D "
        "and alpha c h / 10 in 3D. 0 turns it off."),
    [P_XSPH] = EDDY_PARAM_REAL_DESC(
        "xsph", 0.5, 0.0, 1.0, "1",
        "XSPH factor eps: the share of the neighbourhood's mean velocity difference added to the "
        "velocity that moves a particle. 0 is plain SPH advection."),
};

/* Per-material parameters: the ones the method reads, in the shared declarations of world.h (one id,
 * default and range for every solver, so a scene's materials stay valid whichever solver runs). A
 * scene sets them in its "materials" entries; each material's values arrive in
 * world->materials[m].params. */
enum { M_STIFFNESS, M_COUNT };

static const eddy_param_desc material_params[M_COUNT] = {
    [M_STIFFNESS] = EDDY_MATERIAL_STIFFNESS_DESC,
};

/* Solver state: scalars and per-material values only. Per-particle data lives in registered fields,
 * which the core keeps in order when the grid sorts the particles. */
struct eddy_solver {
    float cfl, alpha, xsph;
    eddy_kernels kernels; /* coefficients for the world's smoothing radius, which never changes */
    eddy_sph_simd simd;   /* the vector ISA the neighbour loops run (<eddy_sph/simd.h>) */
    float gradient_scale; /* 1 / eddy_lattice_gradient_moment() of material 0's rest spacing */
    size_t material_count;
    float *stiffness;     /* [material_count] k of p = k (rho - rho0) */
    float *sound_speed;   /* [material_count] c = sqrt(k) */
    int acceleration;     /* field ids: stable for the life of the particle set */
    int correction;
    /* The fields' arrays, re-read after every grid build: the particle set owns them, reorders them in
     * place there and moves them when adding particles reallocates (particles.h). */
    float *acc[3], *corr[3];
    /* Largest acceleration of the last force pass, for max_dt's force limit. It is state between
     * steps outside the particle fields, so save() and load() carry it: on resume the host calls no
     * compute_fields(), and without load() the first resumed step would use create()'s 0 (no force
     * limit) and could take another time step than the uninterrupted run. */
    eddy_real max_accel;
};

static void destroy(eddy_solver *s)
{
    if (!s) return;
    free(s->stiffness);
    free(s->sound_speed);
    free(s);
}

/* `setup` lives during this call only; setup->world, setup->params and setup->host stay valid until
 * destroy(). Error messages say what is wrong without naming the solver: the host prefixes
 * "solver '<id>': " (in step(), "solver '<id>' at step N (t = ... s): "). */
static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    const eddy_param_values *pv = setup->params;
    if (w->material_count == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "the world has no material");
    /* The vector ISA of the neighbour loops: AVX2 where the CPU runs it; EDDY_SIMD chooses. */
    eddy_sph_simd simd;
    int rc = eddy_sph_simd_select(&simd, err);
    if (rc) return rc;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->simd = simd;
    s->cfl = (float)pv->values[P_CFL].number;
    s->alpha = (float)pv->values[P_ALPHA].number;
    s->xsph = (float)pv->values[P_XSPH].number;
    s->kernels = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    s->gradient_scale = (float)(1.0 / eddy_lattice_gradient_moment(
                                          w->materials[0].particle_dist, w->smoothing_radius,
                                          w->dimensions));
    /* Read each material's values once, here: the pair loops then index small arrays. */
    s->material_count = w->material_count;
    s->stiffness = calloc(w->material_count, sizeof(float));
    s->sound_speed = calloc(w->material_count, sizeof(float));
    if (!s->stiffness || !s->sound_speed) {
        destroy(s);
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    }
    float c_max = 0.0f;
    for (size_t m = 0; m < w->material_count; ++m) {
        s->stiffness[m] = (float)eddy_material_param(&w->materials[m], &material_params[M_STIFFNESS]);
        s->sound_speed[m] = sqrtf(s->stiffness[m]);
        c_max = s->sound_speed[m] > c_max ? s->sound_speed[m] : c_max;
    }
    rc = eddy_particles_add_field(&w->particles, "acceleration", 3, &s->acceleration, err);
    if (!rc) rc = eddy_particles_add_field(&w->particles, "xsph_correction", 3, &s->correction, err);
    if (rc) { /* the core's message names the field */
        destroy(s);
        return rc;
    }
    /* Plugins never print: they log through the host, which decides what to show (INFO: once per
     * run, hidden by --quiet). */
    eddy_host_log(setup->host, EDDY_LOG_INFO, SOLVER_ID,
                  "speed of sound sqrt(stiffness) up to %.4g m/s (sim units); spiky gradient scaled by %.4f",
                  (double)c_max, (double)s->gradient_scale);
    *out = s;
    return EDDY_OK;
}

/* --- density and pressure --- */

/* What the density pass hands back for each owned particle i: its poly6 sum over the neighbours (i
 * itself included) and the walls' ghosts. initial_sum is taken as 1, so there is no extra self term. */
typedef struct density_ctx {
    const eddy_solver *s;
    const eddy_world *w;
    eddy_particles *p;
} density_ctx;

static void density_finish(void *ctx, uint32_t i, float sum)
{
    const density_ctx *c = ctx;
    const uint32_t m = c->p->material[i];
    c->p->density[i] = eddy_sph_density(&c->s->kernels, sum, 0.0f);
    /* Clamped at zero: free-surface particles lack neighbours and must not be pulled inwards. */
    const float pr = c->s->stiffness[m] * (c->p->density[i] - c->w->materials[m].rest_density);
    c->p->pressure[i] = pr > 0.0f ? pr : 0.0f;
}

/* --- pressure force, artificial viscosity and the XSPH correction --- */

/* What the pair terms of particle i share. */
typedef struct pair_ctx {
    eddy_kernels k;
    float tiny2, pi_rho2, rho_i, c_i, alpha, scale;
} pair_ctx;

/* The weights of one pair: particle i's acceleration gains -g d, its XSPH sum -x (v_i - v_j). */
typedef struct pair_w {
    float g, x;
} pair_w;

/* One partner j (a real particle or a ghost) at d = x_i - x_j, r2 = |d|^2, with mass, density,
 * pressure, v_i - v_j and sound speed; 0 outside h. Branch-free, so the loops calling it vectorize;
 * the weights come back by value, which keeps the loop's sums in registers. */
PAIR_INLINE pair_w pair(const pair_ctx *f, float r2, float vr, float m_j, float rho_j, float p_j, float c_j)
{
    const float w6 = eddy_sph_poly6(&f->k, r2);
    const float grad = eddy_sph_spiky_grad(&f->k, r2, f->tiny2) * f->scale; /* grad W = grad * d */
    const float h = f->k.h;
    /* vr = (v_i - v_j) . d: Monaghan's artificial viscosity on approaching pairs only. */
    const float av = -f->alpha * 0.5f * (f->c_i + c_j) * h * vr /
                     (0.5f * (f->rho_i + rho_j) * (r2 + 0.01f * h * h));
    const float term = f->pi_rho2 + p_j / (rho_j * rho_j) + (vr < 0.0f ? av : 0.0f);
    const pair_w w = {m_j * term * grad, 2.0f * m_j / (f->rho_i + rho_j) * w6};
    return w;
}

/* Candidate arrays the force pass reads besides positions, masses and the state eddy_sph_gather_state
 * copies (velocity, pressure, density: eddy_sph/partners.h). */
enum { C_SOUND = EDDY_SPH_STATE_SLOTS, C_EXTRA };

/* The sums of particle i: acceleration, XSPH correction. */
typedef struct force_sums {
    float a[3], x[3];
} force_sums;

/* Particle i's sums over its partners: the candidates themselves (img NULL) or their ghosts in the
 * mirror img (position, velocity, and the pressure continued through the wall; eddy_sph/partners.h).
 * One SIMD loop; pair() is 0 beyond h, so no candidate is tested first. */
EDDY_SPH_SIMD_BODY force_sums partner_sums(const pair_ctx *f, const eddy_sph_candidates *c, const eddy_sph_image *img,
                                           const float xi[3], const float vi[3])
{
    const eddy_sph_partners v = eddy_sph_partners_make(c, img);
    const float *sound = c->extra[C_SOUND];
    float a0 = 0, a1 = 0, a2 = 0, x0 = 0, x1 = 0, x2 = 0;
    EDDY_SPH_SIMD_SUM(a0, a1, a2, x0, x1, x2)
    for (size_t q = 0; q < v.count; ++q) {
        const eddy_sph_partner j = eddy_sph_partner_at(&v, q, xi[0], xi[1], xi[2]);
        const float ux = vi[0] - j.vx, uy = vi[1] - j.vy, uz = vi[2] - j.vz;
        const pair_w t = pair(f, j.dx * j.dx + j.dy * j.dy + j.dz * j.dz, ux * j.dx + uy * j.dy + uz * j.dz,
                              v.m[q], v.density[q], j.pressure, sound[q]);
        a0 -= t.g * j.dx, a1 -= t.g * j.dy, a2 -= t.g * j.dz;
        x0 -= t.x * ux, x1 -= t.x * uy, x2 -= t.x * uz;
    }
    const force_sums r = {{a0, a1, a2}, {x0, x1, x2}};
    return r;
}

typedef struct force_ctx {
    const eddy_solver *s;
    const eddy_world *w;
    const eddy_particles *p;
} force_ctx;

/* One cell of the force pass (eddy_sph_cell_pass hands it the cell's gathered candidates); *amax2 is
 * this thread's largest |a|^2. Written once as an EDDY_SPH_SIMD_BODY: EDDY_SPH_SIMD_CELL_CLONES below
 * compiles it for each vector ISA (<eddy_sph/simd.h>), and create() picks one. */
EDDY_SPH_SIMD_BODY int force_cell(void *ctx, uint32_t cell, eddy_sph_candidates *c, eddy_sph_candidates *near,
                                  float *amax2)
{
    (void)near; /* the mirror loops run over the candidates themselves */
    const force_ctx *fc = ctx;
    const eddy_solver *s = fc->s;
    const eddy_particles *p = fc->p;
    const eddy_grid *g = &fc->w->grid;
    /* What the pairs read of each candidate, copied into the buffer once per cell. */
    eddy_sph_gather_state(c, p);
    eddy_sph_gather_table(c, C_SOUND, s->sound_speed, p->material);
    /* Cells clear of every wall skip the per-particle mirror search (eddy_sph_cell_near_walls). */
    const int walls = eddy_sph_cell_near_walls(&fc->w->boundaries, g, p, cell, s->kernels.h);
    for (uint32_t i = g->cell_begin[cell]; i < g->cell_end[cell]; ++i) {
        if (eddy_particle_is_halo(p, i)) continue; /* its owner updates it */
        const pair_ctx f = {.k = s->kernels,
                            .tiny2 = 0.0f,
                            .pi_rho2 = p->pressure[i] / (p->density[i] * p->density[i]),
                            .rho_i = p->density[i],
                            .c_i = s->sound_speed[p->material[i]],
                            .alpha = s->alpha,
                            .scale = s->gradient_scale};
        const float xi[3] = {p->x[i], p->y[i], p->z[i]}, vi[3] = {p->vx[i], p->vy[i], p->vz[i]};
        force_sums sum = partner_sums(&f, c, NULL, xi, vi);
        /* The ghosts of each wall within h (eddy_sph/gather.h, "Mirror ghosts"), one mirror at a time. */
        eddy_sph_image img[EDDY_MAX_MIRRORS];
        const int nimg =
            walls ? eddy_sph_images(&fc->w->boundaries, fc->w->gravity, s->kernels.h, xi[0], xi[1], xi[2], img) : 0;
        for (int mi = 0; mi < nimg; ++mi) {
            const force_sums ghosts = partner_sums(&f, c, &img[mi], xi, vi);
            for (int a = 0; a < 3; ++a) sum.a[a] += ghosts.a[a], sum.x[a] += ghosts.x[a];
        }
        s->acc[0][i] = sum.a[0];
        s->acc[1][i] = sum.a[1];
        s->acc[2][i] = sum.a[2];
        s->corr[0][i] = s->xsph * sum.x[0];
        s->corr[1][i] = s->xsph * sum.x[1];
        s->corr[2][i] = s->xsph * sum.x[2];
        const float am2 = sum.a[0] * sum.a[0] + sum.a[1] * sum.a[1] + sum.a[2] * sum.a[2];
        *amax2 = am2 > *amax2 ? am2 : *amax2;
    }
    return 0;
}
EDDY_SPH_SIMD_CELL_CLONES(force_cell);

/* Grid, density, pressure and forces for the current positions. */
static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    /* Fields neighbours read after the density pass: with several processes, halo copies must carry
     * their owners' new values before the force pass (a no-op in one process). */
    static const int density_fields[] = {EDDY_FIELD_DENSITY, EDDY_FIELD_PRESSURE};
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    for (int a = 0; a < 3; ++a) {
        s->acc[a] = eddy_particles_field(&w->particles, s->acceleration, a);
        s->corr[a] = eddy_particles_field(&w->particles, s->correction, a);
    }
    double t0 = eddy_time_ms();
    density_ctx dc = {s, w, &w->particles};
    if (eddy_sph_density_pass_simd(s->simd, &w->grid, &w->particles, &w->boundaries, w->gravity, s->kernels.h,
                                   density_finish, &dc))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    rc = eddy_world_refresh_fields(w, density_fields, 2, err);
    if (rc) return rc;
    double t1 = eddy_time_ms();
    force_ctx fc = {s, w, &w->particles};
    float amax2 = 0.0f;
    if (eddy_sph_cell_pass(&w->grid, &w->particles, C_EXTRA, NULL, force_cell_simd[s->simd], &fc, &amax2))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    /* The largest acceleration over every process (collective; in one process just sqrtf). */
    rc = eddy_sph_max_accel(w, amax2, &s->max_accel, err);
    if (rc) return rc;
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, t1 - t0);
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, eddy_time_ms() - t1);
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    int rc = compute_fields(s, w, err);
    if (rc) return rc;
    double t0 = eddy_time_ms();
    /* Semi-implicit Euler: velocity first (core helper, adds gravity), walls, then positions moved
     * with the XSPH-corrected velocity. The core helpers advance halo copies too (world.h), which is
     * harmless: the host overwrites them with their owners' state before the next step. */
    eddy_world_integrate_velocity(w, s->acceleration, dt);
    eddy_world_respond_boundaries(w, dt);
    eddy_particles *p = &w->particles;
    const float *cx = s->corr[0], *cy = s->corr[1], *cz = s->corr[2];
    const long long n = (long long)p->count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        if (eddy_particle_is_halo(p, (size_t)i)) continue; /* its owner moves it */
        p->x[i] += (p->vx[i] + cx[i]) * dt;
        p->y[i] += (p->vy[i] + cy[i]) * dt;
        p->z[i] += (p->vz[i] + cz[i]) * dt;
    }
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, eddy_time_ms() - t0);
    return EDDY_OK;
}

/* The CFL limit with c = sqrt(k) of the stiffest material, or the force limit of the last step's
 * largest acceleration when that is smaller; eddy_world_stable_dt names the one that applied and takes
 * the largest speed from the step's cached reduction (no scan of its own). No viscous limit: 0. */
static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    double kmax = 0.0;
    for (size_t m = 0; m < s->material_count; ++m)
        if (s->stiffness[m] > kmax) kmax = s->stiffness[m];
    *dt = eddy_world_stable_dt(w, s->cfl, sqrt(kmax), 0.0, s->max_accel, limit);
    return EDDY_OK;
}

/* Checkpoints: the state between steps that is not in particle fields, max_accel, as a tagged record
 * (state.h). The tag names the solver and the record's layout: bump "/1" when the record changes, so
 * that an old checkpoint is refused with a message instead of misread. The component sets
 * EDDY_COMPONENT_STATE_COMPLETE (create() derives nothing from the particles), so on resume the host
 * builds the world with the checkpoint's clock and particles in place of the scene's fluid (no
 * initial state is computed), calls create() on it with setup->resuming = 1, restores the fields
 * create() registered (acceleration, xsph_correction) as saved, then calls load(). It never calls
 * compute_fields() on resume, so what load() restores is what the first step's max_dt() uses
 * (plugin.h, "The resume order"). */
#define STATE_TAG SOLVER_ID "/1"

static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    return eddy_state_save_floats(STATE_TAG, &s->max_accel, 1, data, size, err);
}

static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    return eddy_state_load_floats(STATE_TAG, &s->max_accel, 1, data, size, err);
}

/* Every interface's vtable begins with its size, so a host built against a newer minor version knows
 * which of the optional callbacks this plugin has; designated initializers leave the rest NULL (here
 * reduce, which only a solver whose particles live in device memory needs). */
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

/* CONCURRENT_INSTANCES: all state is in the eddy_solver instance, none in globals, so two instances
 * may step at once. DECOMPOSABLE: halo copies are read, never written, and refreshed (see above). */
static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = SOLVER_ID,
    .version = "2.0.0",
    .description = "Weakly compressible SPH with artificial viscosity and XSPH smoothing (template)",
    .params = params,
    .param_count = P_COUNT,
    .vtable = &vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES | EDDY_COMPONENT_DECOMPOSABLE | EDDY_COMPONENT_STATE_COMPLETE,
    .material_params = material_params,
    .material_param_count = M_COUNT,
};

static const eddy_component *const components[] = {&component};

/* The descriptor begins with the ABI version this file was compiled against (the host refuses a
 * mismatch by name). init/deinit: nothing shared between instances to set up. */
static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "eddy plugin template",
    .version = "2.0.0",
    .init = NULL,
    .deinit = NULL,
    .component_count = 1,
    .components = components,
};

/* The one exported symbol. */
EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
