/*
 * Müller, Charypar & Gross 2003 SPH with the Bullet-Fluids update loop (Bullet-Fluids reference (2014)
 * §2, §5.1):
 *   grid -> density (poly6, initial_sum, plus the walls' share) and pressure p = k (rho - rho0)
 *        -> pressure (spiky gradient) and viscosity (viscosity Laplacian) accelerations
 *        -> integrate velocity -> boundary response -> integrate position.
 *
 * Walls: besides the reference's velocity response, every sum includes the mirror ghosts of the core
 * (eddy_boundaries_mirrors): the fluid reflected across each wall within reach, with the hydrostatic
 * pressure continuation and a free-slip velocity (no slip with wall_velocity = no_slip). Without them
 * wall particles sum to ~0.8 rho0 and the bulk squeezes them along the walls (the clustering of its
 * §5.2); a continuum wall integral instead misses the discrete lattice sum by ~1.5% at two spacings
 * per h, which a stiff fluid turns into jets along the walls.
 *
 * Every sum is a gather over the 3-cell bars of the particle's cell, in the grid's fixed range order,
 * so the result does not depend on the number of threads.
 *
 * Several processes: both passes update owned particles only and read halo copies as neighbours;
 * density and pressure are refreshed on the halo copies (eddy_world_refresh_fields) before the force
 * pass reads them. In one process there is no halo copy and the refresh returns at once.
 */
#include <eddy/eddy.h>
#include <eddy_sph/simd.h>
#include <eddy_sph/sph.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mueller_equations.h"

enum { P_CFL, P_NEGATIVE_PRESSURE, P_PRESSURE_FORCE, P_WALL_VELOCITY, P_SHIFTING, P_SHIFTING_COEFFICIENT, P_COUNT };

static const char *const pressure_forces[] = {"consistent", "mueller", "variational", NULL};
enum { PF_CONSISTENT, PF_MUELLER, PF_VARIATIONAL };

static const eddy_param_desc params[P_COUNT] = {
    [P_CFL] = EDDY_PARAM_REAL_DESC(
        "cfl", 0.4, 0.01, 1.0, "1",
        "CFL number of the time-step limit cfl * h / (c + v_max), with c = sqrt(stiffness)."),
    [P_NEGATIVE_PRESSURE] = EDDY_PARAM_REAL_DESC(
        "negative_pressure", 0.0, 0.0, 1.0, "1",
        "Factor on negative pressures. 0 (default) clamps p >= 0: free-surface particles, whose sums "
        "lack neighbors, are not pulled into the bulk. 1 is Bullet-Fluids' p = k (rho - rho0) exactly, "
        "stable only with a soft stiffness."),
    [P_PRESSURE_FORCE] = EDDY_PARAM_ENUM_DESC(
        "pressure_force", 0, pressure_forces,
        "Pair weight of the pressure force. consistent (default): (p_i + p_j) / (rho_i rho_j) with the "
        "spiky gradient normalized by its first moment on the rest lattice, which reproduces grad p for a "
        "linear pressure field, so fluid at rest carries rho0 g H. mueller: Bullet-Fluids' "
        "(p_i + p_j) / (2 rho_i rho_j), half of grad p in the bulk (fluid at rest settles at about "
        "2 rho0 g H, and the fluid is effectively half as stiff). variational: density and pressure "
        "gradient with the Wendland C2 kernel, m_j (p_i / rho_i^2 + p_j / rho_j^2) grad W: minus the "
        "gradient of the elastic energy, so energy-conserving without viscosity, where the spiky "
        "gradient of the other two does work no energy accounts for (docs/solvers/sph_mueller.md, "
        "Energy)."),
    [P_WALL_VELOCITY] = EDDY_PARAM_ENUM_DESC(
        "wall_velocity", EDDY_SPH_WALL_SLIP, eddy_sph_wall_velocity_choices,
        "Velocity of the walls' mirror ghosts (eddy_sph/gather.h). slip (default): free slip, the normal "
        "velocity relative to the wall reversed, so the viscous force sees no shear at the wall. no_slip: "
        "2 v_wall - v_j, so the viscous force holds the fluid at the wall's velocity (Morris, Fox & Zhu "
        "1997; Poiseuille and Couette flow). v_wall is the collider's velocity; pressures are the same "
        "either way."),
    [P_SHIFTING] = EDDY_SPH_SHIFTING_DESC,
    [P_SHIFTING_COEFFICIENT] = EDDY_SPH_SHIFTING_COEFFICIENT_DESC,
};

/* The per-material parameters the method reads, as world.h declares them for every SPH solver. */
enum { M_VISCOSITY, M_STIFFNESS, M_INITIAL_SUM, M_COUNT };

static const eddy_param_desc material_params[M_COUNT] = {
    [M_VISCOSITY] = EDDY_MATERIAL_VISCOSITY_DESC,
    [M_STIFFNESS] = EDDY_MATERIAL_STIFFNESS_DESC,
    [M_INITIAL_SUM] = EDDY_MATERIAL_INITIAL_SUM_DESC,
};

struct eddy_solver {
    double cfl;
    float negative_pressure;
    float pair_weight; /* 1 consistent, 1/2 Müller 2003 (the spiky forms) */
    int variational;   /* pressure_force = variational: mueller_pair_variational */
    eddy_sph_kernel density_kernel; /* poly6, or Wendland C2 with the variational form */
    eddy_sph_wall_velocity wall_velocity;
    int acceleration;  /* field id */
    /* Per material: viscosity, rest density, stiffness, the density's kernel scale and self term, and
     * the gradient scale (1 / the lattice gradient moment of the spiky kernel with the consistent pair
     * weight, of Wendland C2 with the variational one; 1 with Müller's). */
    eddy_sph_materials mat;
    float max_accel; /* of the last step, for max_dt */
    float *volume;   /* m_i / rho_i of the current step, indexed like the particles */
    size_t volume_capacity;
    eddy_sph_shifting shifting; /* particle shifting (eddy_sph/shifting.h); coefficient 0: off */
    eddy_sph_simd simd;         /* the neighbour passes' vector ISA (eddy_sph/simd.h) */
};

static void destroy(eddy_solver *s)
{
    if (!s) return;
    eddy_sph_materials_free(&s->mat);
    eddy_sph_shifting_free(&s->shifting);
    free(s->volume);
    free(s);
}

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    const eddy_param_values *pv = setup->params;
    eddy_sph_simd simd;
    int rc = eddy_sph_simd_select(&simd, err);
    if (rc) return rc;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->simd = simd;
    s->cfl = pv->values[P_CFL].number;
    s->negative_pressure = (float)pv->values[P_NEGATIVE_PRESSURE].number;
    const int64_t pressure_force = pv->values[P_PRESSURE_FORCE].integer;
    s->pair_weight = pressure_force == PF_MUELLER ? 0.5f : 1.0f;
    s->variational = pressure_force == PF_VARIATIONAL;
    s->wall_velocity = pv->values[P_WALL_VELOCITY].integer == 1 ? EDDY_SPH_WALL_NO_SLIP : EDDY_SPH_WALL_SLIP;
    s->shifting = eddy_sph_shifting_make(
        pv->values[P_SHIFTING].integer ? (float)pv->values[P_SHIFTING_COEFFICIENT].number : 0.0f);
    rc = eddy_sph_materials_init(&s->mat, w, &material_params[M_VISCOSITY], &material_params[M_STIFFNESS],
                                     &material_params[M_INITIAL_SUM], NULL, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    if (pressure_force == PF_MUELLER)
        for (size_t m = 0; m < s->mat.count; ++m) s->mat.gradient_scale[m] = 1.0f;
    s->density_kernel = s->variational ? EDDY_SPH_WENDLAND : EDDY_SPH_POLY6;
    rc = eddy_sph_materials_use_kernel(&s->mat, w, s->density_kernel, &material_params[M_INITIAL_SUM], NULL, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    rc = eddy_particles_add_field(&w->particles, "acceleration", 3, &s->acceleration, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    *out = s;
    return EDDY_OK;
}

/* The candidate arrays the force pass reads besides positions and masses (eddy_sph/gather.h). */
enum { C_VOLUME = EDDY_SPH_STATE_SLOTS, C_GSCALE, C_VISC, C_EXTRA };

/* Density, volume and pressure of particle i from its density sum (eddy_sph_density_pass_simd). */
typedef struct density_ctx {
    const eddy_solver *s;
    eddy_particles *p;
    eddy_kernels k;
} density_ctx;

static void density_finish(void *ctx, uint32_t i, float sum)
{
    const density_ctx *c = ctx;
    const eddy_solver *s = c->s;
    eddy_particles *p = c->p;
    const uint32_t m = p->material[i];
    const float density = s->mat.density_scale[m] * sum + s->mat.self_density[m];
    p->density[i] = density;
    s->volume[i] = p->mass[i] / density;
    p->pressure[i] = mueller_pressure(s->mat.stiffness[m], density, s->mat.rest_density[m], s->negative_pressure);
}


static int compute_density(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    density_ctx c = {s, &w->particles, eddy_kernels_make(w->smoothing_radius, w->dimensions)};
    if (eddy_sph_density_pass_kernel_simd(s->simd, s->density_kernel, &w->grid, &w->particles, &w->boundaries,
                                          w->gravity, c.k.h, density_finish, &c))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return EDDY_OK;
}

/* What the force pass's cells read. */
typedef struct force_ctx {
    const eddy_solver *s;
    const eddy_world *w;
    const eddy_particles *p;
    const eddy_grid *g;
    eddy_kernels k;
    float *ax, *ay, *az;
} force_ctx;

/* The pressure and viscosity terms of one pair (variational: a constant after inlining, so each
 * instance of the loops below evaluates one form and vectorizes; pi_rho2 = p_i / rho_i^2 is the
 * variational form's). */
EDDY_SPH_SIMD_BODY mueller_pair_w pair_terms(const mueller_pair_ctx *pc, const eddy_kernels *k, float pi_rho2,
                                             int variational, float r2, float vol, float mj, float pj, float rhoj,
                                             float gs_j, float mu_j)
{
    return variational ? mueller_pair_variational(pc, k, pi_rho2, r2, vol, mj, pj, rhoj, gs_j, mu_j)
                       : mueller_pair(pc, r2, vol, pj, gs_j, mu_j);
}

/* The sums of particle i: pressure acceleration, and the viscous force per unit volume. */
typedef struct force_sums {
    float p[3], f[3];
} force_sums;

/* Particle i's sums over its partners: the candidates themselves (img NULL) or their ghosts in the
 * mirror img (eddy_sph/partners.h), one SIMD loop either way. mueller_pair() is 0 beyond h, and with
 * the gather's ~80 candidates a masked loop over all of them costs less than selecting the ~30 within
 * h first. */
EDDY_SPH_SIMD_BODY force_sums partner_sums(const mueller_pair_ctx *pc, const eddy_kernels *k, float pi_rho2,
                                           int variational, const eddy_sph_candidates *c, const eddy_sph_image *img,
                                           const float xi[3], const float vi[3])
{
    const eddy_sph_partners v = eddy_sph_partners_make(c, img);
    const float *vol = c->extra[C_VOLUME], *gs = c->extra[C_GSCALE], *mu = c->extra[C_VISC];
    float px = 0.0f, py = 0.0f, pz = 0.0f, fx = 0.0f, fy = 0.0f, fz = 0.0f;
    EDDY_SPH_SIMD_SUM(px, py, pz, fx, fy, fz)
    for (size_t q = 0; q < v.count; ++q) {
        const eddy_sph_partner j = eddy_sph_partner_at(&v, q, xi[0], xi[1], xi[2]);
        const mueller_pair_w pw = pair_terms(pc, k, pi_rho2, variational, j.dx * j.dx + j.dy * j.dy + j.dz * j.dz,
                                             vol[q], v.m[q], j.pressure, v.density[q], gs[q], mu[q]);
        px += pw.fp * j.dx;
        py += pw.fp * j.dy;
        pz += pw.fp * j.dz;
        fx += pw.fv * (j.vx - vi[0]);
        fy += pw.fv * (j.vy - vi[1]);
        fz += pw.fv * (j.vz - vi[2]);
    }
    const force_sums r = {{px, py, pz}, {fx, fy, fz}};
    return r;
}

/* One cell of the force pass with one pressure form; *amax2 the thread's largest |a|^2. */
EDDY_SPH_SIMD_BODY int force_cell_form(const force_ctx *fc, uint32_t c, eddy_sph_candidates *cand, float *amax2,
                                       const int variational)
{
    const eddy_solver *s = fc->s;
    const eddy_world *w = fc->w;
    const eddy_particles *p = fc->p;
    const eddy_grid *g = fc->g;
    const eddy_kernels k = fc->k;
    const float *rho = p->density, *pres = p->pressure;
    const uint32_t *mat = p->material;
    float *ax = fc->ax, *ay = fc->ay, *az = fc->az;
    static const int slots[] = {C_VOLUME};
    const float *const fields[] = {s->volume};
    eddy_sph_gather_state_with(cand, p, 1, slots, fields);
    eddy_sph_gather_table(cand, C_GSCALE, s->mat.gradient_scale, mat);
    eddy_sph_gather_table(cand, C_VISC, s->mat.viscosity, mat);
    /* Cells clear of every wall skip the per-particle mirror search (eddy_sph_cell_near_walls). */
    const int walls = eddy_sph_cell_near_walls(&w->boundaries, g, p, c, k.h);
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
        if (eddy_particle_is_halo(p, i)) continue; /* updated by its owner */
        const float xi[3] = {p->x[i], p->y[i], p->z[i]}, vi[3] = {p->vx[i], p->vy[i], p->vz[i]};
        const float inv_rho_i = 1.0f / rho[i];
        /* Pairs closer than tiny2 are the particle itself (or coincident particles): no
         * direction. */
        const mueller_pair_ctx pc = {.h = k.h, .h2 = k.h2, .tiny2 = 1e-12f * k.h2, .cp = k.spiky_grad,
                             .cv = k.visc_lap, .wp = s->pair_weight * inv_rho_i, .pi = pres[i],
                             .mu_i = s->mat.viscosity[mat[i]], .gs_i = s->mat.gradient_scale[mat[i]]};
        const float pi_rho2 = pres[i] * inv_rho_i * inv_rho_i;
        force_sums sum = partner_sums(&pc, &k, pi_rho2, variational, cand, NULL, xi, vi);
        /* Mirror ghosts of the walls within reach, one mirror at a time. */
        eddy_sph_image img[EDDY_MAX_MIRRORS];
        const int nimg = walls ? eddy_sph_wall_images(&w->boundaries, w->gravity, k.h, s->wall_velocity, xi[0],
                                                      xi[1], xi[2], img)
                               : 0;
        for (int mi = 0; mi < nimg; ++mi) {
            const force_sums ghosts = partner_sums(&pc, &k, pi_rho2, variational, cand, &img[mi], xi, vi);
            for (int a = 0; a < 3; ++a) sum.p[a] += ghosts.p[a], sum.f[a] += ghosts.f[a];
        }
        ax[i] = sum.p[0] + sum.f[0] * inv_rho_i;
        ay[i] = sum.p[1] + sum.f[1] * inv_rho_i;
        az[i] = sum.p[2] + sum.f[2] * inv_rho_i;
        float a2 = ax[i] * ax[i] + ay[i] * ay[i] + az[i] * az[i];
        *amax2 = a2 > *amax2 ? a2 : *amax2;
    }
    return 0;
}

/* One cell of the force pass (eddy_sph_cell_pass), compiled for each vector ISA (eddy_sph/simd.h). */
EDDY_SPH_SIMD_BODY int force_cell(void *ctx, uint32_t c, eddy_sph_candidates *cand, eddy_sph_candidates *near,
                                  float *amax2)
{
    (void)near; /* the mirror loops run over the candidates themselves */
    const force_ctx *fc = ctx;
    return fc->s->variational ? force_cell_form(fc, c, cand, amax2, 1) : force_cell_form(fc, c, cand, amax2, 0);
}
EDDY_SPH_SIMD_CELL_CLONES(force_cell);

static int compute_forces(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    eddy_particles *p = &w->particles;
    force_ctx fc = {.s = s, .w = w, .p = p, .g = &w->grid,
                    .k = eddy_kernels_make(w->smoothing_radius, w->dimensions),
                    .ax = eddy_particles_field(p, s->acceleration, 0),
                    .ay = eddy_particles_field(p, s->acceleration, 1),
                    .az = eddy_particles_field(p, s->acceleration, 2)};
    float amax2 = 0.0f;
    if (eddy_sph_cell_pass(&w->grid, p, C_EXTRA, NULL, force_cell_simd[s->simd], &fc, &amax2))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return eddy_sph_max_accel(w, amax2, &s->max_accel, err); /* over every process: one state record */
}

/*
 * Density and pressure of the owned particles, then of their halo copies: eddy_world_refresh_fields
 * brings the owners' new values (a no-op in one process, where there is no halo), and the volumes
 * m / rho that the force pass reads of every neighbour follow from them.
 */
static int density_pass(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    static const int fields[] = {EDDY_FIELD_DENSITY, EDDY_FIELD_PRESSURE};
    int rc = compute_density(s, w, err);
    if (!rc) rc = eddy_world_refresh_fields(w, fields, sizeof fields / sizeof *fields, err);
    if (rc) return rc;
    const eddy_particles *p = &w->particles;
    if (p->halo_count == 0) return EDDY_OK;
    for (size_t i = 0; i < p->count; ++i)
        if (eddy_particle_is_halo(p, i)) s->volume[i] = p->mass[i] / p->density[i];
    return EDDY_OK;
}

/* Grid and per-particle scratch for the current positions. */
static int prepare(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    if (w->particles.count > s->volume_capacity) {
        float *v = realloc(s->volume, w->particles.count * sizeof(float));
        if (!v) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        s->volume = v;
        s->volume_capacity = w->particles.count;
    }
    return EDDY_OK;
}

static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = prepare(s, w, err);
    if (rc) return rc;
    if ((rc = density_pass(s, w, err))) return rc;
    rc = compute_forces(s, w, err);
    return rc;
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    int rc = prepare(s, w, err);
    if (rc) return rc;
    double t0 = eddy_time_ms();
    if ((rc = density_pass(s, w, err))) return rc;
    double t1 = eddy_time_ms();
    if ((rc = compute_forces(s, w, err))) return rc;
    /* Shifts from the positions the forces saw, before the update (eddy_sph/shifting.h). */
    if ((rc = eddy_sph_shift(&s->shifting, w, &s->mat, dt, NULL, err))) return rc;
    double t2 = eddy_time_ms();
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, t1 - t0);
    eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, t2 - t1);
    eddy_world_symplectic_euler(w, s->acceleration, dt);
    return EDDY_OK;
}

static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    /* p = k (rho - rho0) gives dp/drho = k, so the speed of sound is sqrt(k) (with the mueller pair
     * weight the fluid is half as stiff; sqrt(k) stays on the safe side). */
    *dt = eddy_sph_stable_dt(w, s->cfl, sqrt(eddy_sph_stiffness_max(&s->mat)), &s->mat, s->max_accel, limit);
    return EDDY_OK;
}

/* Between steps the solver keeps only the last step's largest acceleration (max_dt's force limit);
 * a checkpoint carries it so that a resumed run picks the same time steps. */
static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    return eddy_state_save_floats("sph_mueller/1", &s->max_accel, 1, data, size, err);
}

static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    return eddy_state_load_floats("sph_mueller/1", &s->max_accel, 1, data, size, err);
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
 * particles only and refresh density and pressure on halo copies (DECOMPOSABLE). */
static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "sph_mueller",
    .version = "2.0.0",
    .description = "Müller 2003 SPH: poly6 density, spiky pressure, viscosity Laplacian (Bullet-Fluids loop)",
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
    .name = "sph_mueller",
    .version = "2.0.0",
    .init = NULL,
    .deinit = NULL,
    .component_count = 1,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
