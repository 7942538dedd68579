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
 * particle that crossed a wall back. Both are free slip unless `wall_velocity` = no_slip
 * (eddy_sph_wall_images): the ghosts then carry 2 v_wall - v_j, the virtual particle the wall's velocity.
 *
 * Every sum is a gather over the grid's cell ranges in their fixed order (eddy_grid_cell_ranges), so a
 * run is bit-identical for any number of threads.
 *
 * Several processes: both passes update owned particles only and read halo copies as neighbours;
 * density and pressure are refreshed on the halo copies (eddy_world_refresh_fields) before the force
 * pass reads them. In one process there is no halo copy and the refresh returns at once.
 */
#include <eddy/eddy.h>
#include <eddy/boundary_math.h>
#include <eddy_sph/simd.h>
#include <eddy_sph/sph.h>

#include <math.h>
#include <stdio.h>
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
    P_WALL_VELOCITY,
    P_SHIFTING,
    P_SHIFTING_COEFFICIENT,
    P_PRESSURE_FORCE,
    P_COUNT
};

enum { BOUNDARY_MIRROR = 0, BOUNDARY_VIRTUAL = 1 };

static const char *const boundary_methods[] = {"mirror", "virtual", NULL};
static const char *const pressure_forces[] = {"spiky", "variational", NULL};

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
        "that low-pressure particles are still pushed off the wall. Sim units (Pa, in 2D as in 3D: world.h)."),
    [P_WALL_VELOCITY] = EDDY_PARAM_ENUM_DESC(
        "wall_velocity", EDDY_SPH_WALL_SLIP, eddy_sph_wall_velocity_choices,
        "What the walls do to the velocity in the forces (eddy_sph/gather.h). slip (default): free slip, "
        "the ghosts (boundary = mirror) reverse only the normal velocity relative to the wall, the virtual "
        "particles (virtual) take only the normal viscous force. no_slip: the ghosts carry 2 v_wall - v_j, "
        "the virtual particles the whole velocity relative to the wall, so the viscous force holds the "
        "fluid at the wall's velocity (Morris, Fox & Zhu 1997; Poiseuille and Couette flow). v_wall is "
        "the collider's velocity; pressures are the same either way."),
    [P_SHIFTING] = EDDY_SPH_SHIFTING_DESC,
    [P_SHIFTING_COEFFICIENT] = EDDY_SPH_SHIFTING_COEFFICIENT_DESC,
    [P_PRESSURE_FORCE] = EDDY_PARAM_ENUM_DESC(
        "pressure_force", 0, pressure_forces,
        "Kernels of the pressure force m_j (p_i / rho_i^2 + p_j / rho_j^2) grad W. spiky (default): the "
        "write-up's spiky gradient over the poly6 density. variational: density and gradient with the "
        "Wendland C2 kernel, minus the gradient of the elastic energy, so energy-conserving without "
        "viscosity, where the spiky gradient does work no energy accounts for "
        "(docs/solvers/sph_mueller.md, Energy)."),
};

/* The per-material parameters the method reads, as world.h declares them for every SPH solver:
 * viscosity, the stiffness whose square root is c0 without a fall height, and the density's self term.
 * The stiffness entry is tait's own: world.h's text (the gas stiffness of p = k (rho - rho0)) would
 * tell a user of this solver that k sets c0, which it does only without gravity. Its id, default,
 * range and unit stay world.h's (EDDY_MATERIAL_STIFFNESS_DESC), so that a scene's value means the same
 * key for every solver; test_tait's stiffness_entry_is_the_shared_key holds the two together. */
enum { M_VISCOSITY, M_STIFFNESS, M_INITIAL_SUM, M_COUNT };

static const eddy_param_desc material_params[M_COUNT] = {
    [M_VISCOSITY] = EDDY_MATERIAL_VISCOSITY_DESC,
    [M_STIFFNESS] = EDDY_PARAM_REAL_DESC(
        "stiffness", 1000.0, 0.0, 1e30, "m^2/s^2",
        "Gas stiffness k of p = k (rho - rho0), read by tait only when solvers.tait.sound_speed is not "
        "given and there is no fall height (no gravity, or particles spanning no height along it): then "
        "this material's speed of sound is c0 = sqrt(k), which sets its Tait B = rho0 c0^2 / gamma and the "
        "time-step limit. Otherwise c0 is sound_speed or 10 sqrt(2 |g| H) and k has no effect (a run says "
        "so when k is not the default)."),
    [M_INITIAL_SUM] = EDDY_MATERIAL_INITIAL_SUM_DESC,
};

struct eddy_solver {
    double cfl;
    float negative_pressure;
    float alpha;
    int boundary;
    float boundary_pressure;
    eddy_sph_wall_velocity wall_velocity;
    int variational;           /* pressure_force = variational */
    eddy_sph_kernel density_kernel; /* poly6, or Wendland C2 with the variational force */
    int acceleration;          /* field id, 3 components */
    size_t nm;
    /* Per material: rest density, viscosity, stiffness, self term, gradient scale (eddy_sph). */
    eddy_sph_materials mat;
    float *tait_b, *gamma, *sound_speed; /* per material, derived in create() */
    /* Per material: the spiky gradient's scale, which the virtual wall partner takes in every
     * pressure form (mat.gradient_scale is Wendland's with the variational one). */
    float *wall_gradient_scale;
    float c_max;               /* largest sound speed, m/s */
    float max_accel;           /* of the last force evaluation, for max_dt */
    int resuming;              /* created on a checkpoint's particles: load() must bring c0 and B */
    eddy_sph_shifting shifting; /* particle shifting (eddy_sph/shifting.h); coefficient 0: off */
    eddy_sph_simd simd;         /* the neighbour passes' vector ISA (eddy_sph/simd.h) */
};

static void destroy(eddy_solver *s)
{
    if (!s) return;
    eddy_sph_materials_free(&s->mat);
    eddy_sph_shifting_free(&s->shifting);
    free(s->tait_b);
    free(s->gamma);
    free(s->sound_speed);
    free(s->wall_gradient_scale);
    free(s);
}

/* 10 sqrt(2 |g| H), H the height the particles span along gravity (eddy_sph_fall_height, over every
 * process): the speed of sound ten times that of the fastest free fall in the scene, which keeps
 * density errors near 1% (Monaghan 1994). 0 without gravity or particles. */
static int derived_sound_speed(eddy_world *w, double *c0, double *g_out, eddy_error *err)
{
    double H = 0.0;
    const int rc = eddy_sph_fall_height(w, &H, err);
    if (rc) return eddy_error_prefix(err, "derived sound speed: ");
    const double g = sqrt((double)w->gravity[0] * w->gravity[0] + (double)w->gravity[1] * w->gravity[1] +
                          (double)w->gravity[2] * w->gravity[2]);
    *c0 = 10.0 * sqrt(2.0 * g * H);
    *g_out = g;
    return EDDY_OK;
}

/*
 * Says, once per run, which materials' stiffness has no effect because c0 was derived from the fall
 * height: a user who sets it under gravity would otherwise change nothing without a word. A value is
 * taken as given when it differs from the entry's default: the ABI hands a material's values with the
 * defaults already filled in (is_set is 1 for both), so a scene that gives exactly the default is not
 * told. INFO, not WARNING: the host says INFO on the first of several processes alone and a warning on
 * every one, while this condition is the same on all (c_fall is reduced over them); like the host's
 * own warning of unused --set values, it is not said under --quiet.
 */
static void note_unused_stiffness(const eddy_host *host, const eddy_world *w, double c_fall)
{
    const eddy_param_desc *d = &material_params[M_STIFFNESS];
    enum { ITEM_MAX = 64 }; /* "materials[N].stiffness = %g, " with N of 20 digits at most */
    char *list = malloc(w->material_count * ITEM_MAX + 1);
    if (!list) return; /* a note is not worth failing the run */
    size_t len = 0, given = 0;
    list[0] = '\0';
    for (size_t m = 0; m < w->material_count; ++m) {
        const double k = eddy_material_param(&w->materials[m], d);
        if (k == d->def) continue;
        len += (size_t)snprintf(list + len, ITEM_MAX, "%smaterials[%zu].stiffness = %g", given ? ", " : "", m, k);
        ++given;
    }
    if (given)
        eddy_host_log(host, EDDY_LOG_INFO, "tait",
                      "%s %s no effect: with gravity the speed of sound is derived from the fall height "
                      "(c0 = %.4g m/s); set solvers.tait.sound_speed to choose c0",
                      list, given == 1 ? "has" : "have", c_fall);
    free(list);
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
    s->cfl = pv->values[P_CFL].number;
    s->negative_pressure = (float)pv->values[P_NEGATIVE_PRESSURE].number;
    s->alpha = (float)pv->values[P_ALPHA].number;
    s->boundary = (int)pv->values[P_BOUNDARY].integer;
    s->boundary_pressure = (float)pv->values[P_BOUNDARY_PRESSURE].number;
    s->wall_velocity = pv->values[P_WALL_VELOCITY].integer == 1 ? EDDY_SPH_WALL_NO_SLIP : EDDY_SPH_WALL_SLIP;
    s->variational = pv->values[P_PRESSURE_FORCE].integer == 1;
    s->density_kernel = s->variational ? EDDY_SPH_WENDLAND : EDDY_SPH_POLY6;
    s->shifting = eddy_sph_shifting_make(
        pv->values[P_SHIFTING].integer ? (float)pv->values[P_SHIFTING_COEFFICIENT].number : 0.0f);
    const double gamma = pv->values[P_GAMMA].number;
    /* NAN: derive c0 (the parameter is EDDY_PARAM_DERIVED, unset unless the scene gives it). */
    const double c_param = pv->values[P_SOUND_SPEED].is_set ? pv->values[P_SOUND_SPEED].number : NAN;
    size_t nm = s->nm = w->material_count;
    float **arrays[] = {&s->tait_b, &s->gamma, &s->sound_speed, &s->wall_gradient_scale};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; ++a) {
        *arrays[a] = calloc(nm, sizeof(float));
        if (!*arrays[a]) {
            destroy(s);
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    /* Viscosity, the self term ((initial_sum - 1) m W(0), Bullet-Fluids reference (2014) §3.2.1) and
     * the gradient scale: the spiky pressure gradient of a linear pressure field falls short by the
     * lattice's first gradient moment (0.87 at h = 2 spacings in 2D); dividing by it lets fluid at rest
     * carry rho0 g H (world.h, eddy_lattice_gradient_moment). */
    int rc = eddy_sph_materials_init(&s->mat, w, &material_params[M_VISCOSITY], &material_params[M_STIFFNESS],
                                     &material_params[M_INITIAL_SUM], NULL, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    memcpy(s->wall_gradient_scale, s->mat.gradient_scale, nm * sizeof(float));
    rc = eddy_sph_materials_use_kernel(&s->mat, w, s->density_kernel, &material_params[M_INITIAL_SUM], NULL, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    /* Resuming (plugin.h, EDDY_COMPONENT_STATE_COMPLETE): the particles are the checkpoint's, whose
     * height is not the run's initial H; load() brings the sound speeds derived at the start. */
    const int resuming = EDDY_HAS_MEMBER(setup, eddy_solver_setup, resuming) && setup->resuming;
    double c_fall = 0.0, g = 0.0;
    rc = resuming ? EDDY_OK : derived_sound_speed(w, &c_fall, &g, err);
    /* Without a fall height c0 comes from the stiffness; the messages say which of the two was
     * missing (a layer one particle thick under gravity was told it had no gravity). */
    const char *no_fall = g > 0 ? "the particles span no height along gravity" : "no gravity";
    if (rc) {
        destroy(s);
        return rc;
    }
    for (size_t m = 0; m < nm; ++m) {
        const eddy_material *mat = &w->materials[m];
        const float stiffness = s->mat.stiffness[m];
        double c0 = !isnan(c_param) ? c_param : c_fall > 0 ? c_fall : sqrt((double)stiffness);
        if (!resuming && !(c0 > 0)) {
            destroy(s);
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                  "%s, and material '%s' has stiffness 0, so the derived sound "
                                  "speed sqrt(stiffness) is 0; set materials[%zu].stiffness > 0 (c0^2 in "
                                  "m^2/s^2) or solvers.tait.sound_speed",
                                  no_fall, mat->name, m);
        }
        s->sound_speed[m] = (float)c0;
        s->gamma[m] = (float)gamma;
        s->tait_b[m] = (float)(mat->rest_density * c0 * c0 / gamma);
        if (s->sound_speed[m] > s->c_max) s->c_max = s->sound_speed[m];
    }
    rc = eddy_particles_add_field(&w->particles, "acceleration", 3, &s->acceleration, err);
    if (rc) {
        destroy(s);
        return rc;
    }
    /* A derived value the user may want to see once (it sets the time step). */
    s->resuming = resuming;
    if (!resuming && isnan(c_param) && c_fall > 0) {
        eddy_host_log(setup->host, EDDY_LOG_INFO, "tait",
                      "sound speed c0 = 10 sqrt(2 |g| H) = %.4g m/s (sim units), H the height the "
                      "particles span along gravity", c_fall);
        note_unused_stiffness(setup->host, w, c_fall);
    } else if (!resuming && isnan(c_param))
        eddy_host_log(setup->host, EDDY_LOG_INFO, "tait",
                      "%s: sound speed c0 = sqrt(stiffness) of each material, at most %.4g m/s "
                      "(sim units)", no_fall, (double)s->c_max);
    *out = s;
    return EDDY_OK;
}

static inline float tait_pressure(const eddy_solver *s, uint32_t m, float rho)
{
    float p = s->tait_b[m] * (powf(rho / s->mat.rest_density[m], s->gamma[m]) - 1.0f);
    return p < 0.0f ? p * s->negative_pressure : p;
}

/* Density and Tait pressure of particle i from its density sum (eddy_sph_density_pass_simd). */
typedef struct density_ctx {
    const eddy_solver *s;
    eddy_particles *p;
    eddy_kernels k;
} density_ctx;

static void density_finish(void *ctx, uint32_t i, float sum)
{
    const density_ctx *c = ctx;
    const uint32_t m = c->p->material[i];
    const float density = c->s->mat.density_scale[m] * sum + c->s->mat.self_density[m];
    c->p->density[i] = density;
    c->p->pressure[i] = tait_pressure(c->s, m, density);
}

/* Both wall methods complete the density with the mirror ghosts: with the write-up's bare sum a wall
 * particle lacks ~20% of its neighbours, its pressure clamps to 0, the virtual particle max(P_b, 0)
 * cannot hold it, and the wall layer is squeezed and shot along the floor. */
static int compute_density(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    density_ctx c = {s, &w->particles, eddy_kernels_make(w->smoothing_radius, w->dimensions)};
    if (eddy_sph_density_pass_kernel_simd(s->simd, s->density_kernel, &w->grid, &w->particles, &w->boundaries,
                                          w->gravity, c.k.h, density_finish, &c))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return EDDY_OK;
}

/* What the pair terms of particle i share. */
typedef struct pair_ctx {
    float h, h2, tiny2, cg, cv;
    float pi_over_rho2; /* p_i / rho_i^2 */
    float rho_i, inv_rho_i, mu_i, gscale_i, c_i;
    float alpha, hs;    /* artificial viscosity and the smoothing length h/2 it uses */
} pair_ctx;

/* The pair weights: particle i's acceleration gains fg d - fv dv. */
typedef struct pair_w {
    float fg, fv;
} pair_w;

/*
 * Acceleration weights of particle i from one partner (a real neighbour, a mirror ghost or a virtual
 * wall particle) at offset d = x_i - x_j, with the partner's mass, density, p_j / rho_j^2, volume
 * m_j / rho_j and velocity difference dv = v_i - v_j; 0 outside h and for the particle itself. The
 * pressure gradient is spiky's, or with `variational` (a constant after inlining) Wendland C2's, the
 * kernel the density then sums with (k: the kernels). The
 * per-partner quotients come from the gather, and the artificial viscosity takes one division, so a
 * pair costs two. Branch-free (selects only), so
 * the loops that call it vectorize; the weights come back by value (accumulating into an array
 * argument kept the sums in memory and made the loop about 2.4 times as slow).
 */
static inline __attribute__((always_inline)) pair_w pair(const pair_ctx *pc, const eddy_kernels *k, int variational,
                                                         float dx, float dy, float dz,
                                                         float mj, float rho_j, float pr2_j, float vol_j,
                                                         float dvx, float dvy, float dvz, float mu_j, float c_j,
                                                         float gscale_j)
{
    const float r2 = dx * dx + dy * dy + dz * dz;
    const int inside = (r2 < pc->h2) & (r2 > pc->tiny2);
    const float rr = sqrtf(r2);
    const float hr = inside ? pc->h - rr : 0.0f;
    const float inv_r = 1.0f / (inside ? rr : 1.0f);
    /* grad_i W = gf * d */
    const float gf = variational ? eddy_sph_wendland_grad(k, rr) : -pc->cg * hr * hr * inv_r;
    /* The pair's mean gradient scale keeps f_ij = -f_ji between materials. The variational form weighs
     * each term by its own particle's scale instead, which keeps f_ij = -f_ji too and makes the force
     * minus the gradient of sum_i (gscale_i / density scale_i) m_i e(rho_i) between materials as well. */
    float f = variational ? -mj * (pc->gscale_i * pc->pi_over_rho2 + gscale_j * pr2_j)
                          : -mj * (pc->pi_over_rho2 + pr2_j) * 0.5f * (pc->gscale_i + gscale_j);
    /* Monaghan's artificial viscosity (1992, 1994), approaching pairs only:
     * Pi_ij = -alpha c_ij mu_ij / rho_ij, mu_ij = hs v_ij.x_ij / (r^2 + 0.01 hs^2). */
    const float vr = dvx * dx + dvy * dy + dvz * dz;
    const float pi_ij = -pc->alpha * 0.5f * (pc->c_i + c_j) * pc->hs * vr /
                        ((r2 + 0.01f * pc->hs * pc->hs) * (0.5f * (pc->rho_i + rho_j)));
    f -= vr < 0.0f ? mj * pi_ij : 0.0f;
    /* Physical viscosity (Müller 2003 eq. 14, the pair's mean mu): (mu / rho_i) V_j (v_j - v_i) lap W. */
    const float lap = pc->cv * hr;
    const pair_w w = {f * gf, 0.5f * (pc->mu_i + mu_j) * vol_j * lap * pc->inv_rho_i};
    return w;
}

/* The candidate arrays the force pass reads besides positions and masses (eddy_sph/gather.h). */
enum { C_PR2 = EDDY_SPH_STATE_SLOTS, C_VOL, C_VISC, C_SOUND, C_GSCALE, C_EXTRA };

/* What the force pass's cells read. */
typedef struct force_ctx {
    const eddy_solver *s;
    const eddy_world *w;
    float *ax, *ay, *az;
} force_ctx;

/* The acceleration sums of particle i. */
typedef struct force_sums {
    float a[3];
} force_sums;

/* Particle i's acceleration sums over its partners: the candidates themselves (img NULL) or their
 * ghosts in the mirror img (eddy_sph/partners.h), one SIMD loop either way; pair() is 0 beyond h
 * (eddy_sph/gather.h, "Mirror ghosts"). A ghost's p / rho^2 is its own (its pressure continues through
 * the wall), a real neighbour's the one the gather computed. */
EDDY_SPH_SIMD_BODY force_sums partner_sums(const pair_ctx *pc, const eddy_kernels *k, int variational,
                                           const eddy_sph_candidates *c, const eddy_sph_image *img,
                                           const float xi[3], const float vi[3])
{
    const eddy_sph_partners v = eddy_sph_partners_make(c, img);
    const float *pr2 = c->extra[C_PR2], *vol = c->extra[C_VOL], *mu = c->extra[C_VISC], *cs = c->extra[C_SOUND],
                *gs = c->extra[C_GSCALE];
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    EDDY_SPH_SIMD_SUM(sx, sy, sz)
    for (size_t q = 0; q < v.count; ++q) {
        const eddy_sph_partner j = eddy_sph_partner_at(&v, q, xi[0], xi[1], xi[2]);
        const float rho_j = v.density[q];
        const float pr2_j = img ? j.pressure / (rho_j * rho_j) : pr2[q];
        const float dvx = vi[0] - j.vx, dvy = vi[1] - j.vy, dvz = vi[2] - j.vz;
        const pair_w pw = pair(pc, k, variational, j.dx, j.dy, j.dz, v.m[q], rho_j, pr2_j, vol[q], dvx, dvy, dvz,
                               mu[q], cs[q], gs[q]);
        sx += pw.fg * j.dx - pw.fv * dvx;
        sy += pw.fg * j.dy - pw.fv * dvy;
        sz += pw.fg * j.dz - pw.fv * dvz;
    }
    const force_sums r = {{sx, sy, sz}};
    return r;
}

/* One cell of the force pass with one pressure force; *amax2 the thread's largest |a|^2. */
EDDY_SPH_SIMD_BODY int force_cell_form(const force_ctx *fc, uint32_t c, eddy_sph_candidates *cand, float *amax2,
                                       const int variational)
{
    const eddy_solver *s = fc->s;
    const eddy_world *w = fc->w;
    const eddy_grid *g = &w->grid;
    const eddy_particles *p = &w->particles;
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    const float *rho = p->density, *pres = p->pressure, *mass = p->mass;
    const uint32_t *mat = p->material;
    float *ax = fc->ax, *ay = fc->ay, *az = fc->az;
    const int mirrors = s->boundary == BOUNDARY_MIRROR;
    const int dims = w->dimensions;
    const eddy_boundaries *b = &w->boundaries;
    eddy_sph_gather_state(cand, p);
    /* p_j / rho_j^2 and m_j / rho_j once per candidate instead of once per pair. */
    for (size_t q = 0; q < cand->count; ++q) {
        const float rj = cand->extra[EDDY_SPH_DENSITY][q];
        cand->extra[C_PR2][q] = cand->extra[EDDY_SPH_PRESSURE][q] / (rj * rj);
        cand->extra[C_VOL][q] = cand->m[q] / rj;
    }
    eddy_sph_gather_table(cand, C_VISC, s->mat.viscosity, mat);
    eddy_sph_gather_table(cand, C_SOUND, s->sound_speed, mat);
    eddy_sph_gather_table(cand, C_GSCALE, s->mat.gradient_scale, mat);
    /* Cells clear of every wall skip the per-particle mirror search (eddy_sph_cell_near_walls). */
    const int walls = mirrors && eddy_sph_cell_near_walls(b, g, p, c, k.h);
    for (uint32_t i = g->cell_begin[c]; i < g->cell_end[c]; ++i) {
        if (eddy_particle_is_halo(p, i)) continue; /* updated by its owner */
        const uint32_t m = mat[i];
        const pair_ctx pc = {.h = k.h, .h2 = k.h2, .tiny2 = 1e-12f * k.h2, .cg = k.spiky_grad,
                             .cv = k.visc_lap, .pi_over_rho2 = pres[i] / (rho[i] * rho[i]),
                             .rho_i = rho[i], .inv_rho_i = 1.0f / rho[i], .mu_i = s->mat.viscosity[m],
                             .gscale_i = s->mat.gradient_scale[m], .c_i = s->sound_speed[m],
                             .alpha = s->alpha, .hs = 0.5f * k.h};
        const float xi[3] = {p->x[i], p->y[i], p->z[i]}, vi[3] = {p->vx[i], p->vy[i], p->vz[i]};
        const force_sums real = partner_sums(&pc, &k, variational, cand, NULL, xi, vi);
        float acc[3] = {real.a[0], real.a[1], real.a[2]};
        if (mirrors) {
            /* The ghosts of each wall within h, one mirror at a time. */
            eddy_sph_image img[EDDY_MAX_MIRRORS];
            const int nimg =
                walls ? eddy_sph_wall_images(b, w->gravity, k.h, s->wall_velocity, xi[0], xi[1], xi[2], img) : 0;
            for (int mi = 0; mi < nimg; ++mi) {
                const force_sums ghosts = partner_sums(&pc, &k, variational, cand, &img[mi], xi, vi);
                for (int a = 0; a < 3; ++a) acc[a] += ghosts.a[a];
            }
        } else {
            /* Theng & Zhao: one virtual particle per surface within h, at the projection of x_i. */
            const float pb = pres[i] > s->boundary_pressure ? pres[i] : s->boundary_pressure;
            pair_ctx pc_wall = pc;
            pc_wall.gscale_i = s->wall_gradient_scale[m];
            for (size_t cidx = 0; cidx < b->collider_count; ++cidx) {
                const eddy_collider *col = &b->colliders[cidx];
                float n[3];
                const float dist = eddy_collider_distance(col, dims, xi, n);
                /* (a solid inside another, a box under the floor, is no wall: boundary_math.h) */
                if (!(dist < k.h) || eddy_hd_collider_hidden(b->colliders, b->collider_count, dims, cidx)) continue;
                /* A particle already across the wall is projected back by the contact
                 * response; its virtual partner sits at the smallest distance that still has
                 * a direction. */
                const float dd = dist > 1e-3f * k.h ? dist : 1e-3f * k.h;
                float vrel = 0.0f;
                for (int a = 0; a < 3; ++a) vrel += (vi[a] - col->velocity[a]) * n[a];
                /* Free slip: only the normal part of the viscous force, the fluid slides along the wall.
                 * No slip: the virtual particle moves with the wall. */
                const float e[3] = {dd * n[0], dd * n[1], dd * n[2]};
                float dv[3] = {vrel * n[0], vrel * n[1], vrel * n[2]};
                if (s->wall_velocity == EDDY_SPH_WALL_NO_SLIP)
                    for (int a = 0; a < 3; ++a) dv[a] = vi[a] - col->velocity[a];
                /* The write-up's push in every pressure form: the spiky gradient is largest at the wall,
                 * where Wendland's (the variational form's) vanishes and would let particles reach it.
                 * The term is a wall model, not part of the fluid's elastic energy either way. */
                const float rho_b = s->mat.rest_density[m];
                const pair_w pw = pair(&pc_wall, &k, 0, e[0], e[1], e[2], mass[i], rho_b, pb / (rho_b * rho_b),
                                       mass[i] / rho_b, dv[0], dv[1], dv[2], s->mat.viscosity[m],
                                       s->sound_speed[m], s->wall_gradient_scale[m]);
                for (int a = 0; a < 3; ++a) acc[a] += pw.fg * e[a] - pw.fv * dv[a];
            }
        }
        ax[i] = acc[0];
        ay[i] = acc[1];
        az[i] = acc[2];
        const float a2 = acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2];
        *amax2 = a2 > *amax2 ? a2 : *amax2;
    }
    return 0;
}

/* One cell of the force pass (eddy_sph_cell_pass), compiled for each vector ISA (eddy_sph/simd.h): one
 * instance of the loops per pressure force, each vectorized with its own gradient. */
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
    force_ctx fc = {.s = s, .w = w, .ax = eddy_particles_field(p, s->acceleration, 0),
                    .ay = eddy_particles_field(p, s->acceleration, 1), .az = eddy_particles_field(p, s->acceleration, 2)};
    float amax2 = 0.0f;
    if (eddy_sph_cell_pass(&w->grid, p, C_EXTRA, NULL, force_cell_simd[s->simd], &fc, &amax2))
        return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    return eddy_sph_max_accel(w, amax2, &s->max_accel, err); /* over every process: one state record */
}

/* Density and pressure of the owned particles, then of their halo copies (eddy_world_refresh_fields:
 * the owners' new values; a no-op in one process), which the force pass reads as neighbours. */
static int density_pass(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    static const int fields[] = {EDDY_FIELD_DENSITY, EDDY_FIELD_PRESSURE};
    int rc = compute_density(s, w, err);
    if (rc) return rc;
    return eddy_world_refresh_fields(w, fields, sizeof fields / sizeof *fields, err);
}

static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    if ((rc = density_pass(s, w, err))) return rc;
    return compute_forces(s, w, err);
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    int rc = eddy_world_build_grid(w, err);
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
    *dt = eddy_sph_stable_dt(w, s->cfl, s->c_max, &s->mat, s->max_accel, limit);
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
    const float *parts[] = {&s->max_accel, s->sound_speed, s->tait_b};
    const size_t counts[] = {1, s->nm, s->nm};
    return eddy_sph_state_save(TAIT_STATE_TAG, parts, counts, 3, data, size, err);
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
    float max_accel = 0.0f;
    float *c0 = malloc(2 * s->nm * sizeof *c0);
    if (!c0) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    float *b = c0 + s->nm;
    float *const parts[] = {&max_accel, c0, b};
    const size_t counts[] = {1, s->nm, s->nm};
    int rc = eddy_sph_state_load(TAIT_STATE_TAG, parts, counts, 3, data, size, err);
    for (size_t m = 0; m < s->nm && !rc; ++m) {
        if (!(c0[m] > 0) || !(b[m] > 0))
            rc = eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                                "state record '%s': material %zu has sound speed %g and stiffness %g, expected "
                                "both > 0", TAIT_STATE_TAG, m, (double)c0[m], (double)b[m]);
    }
    if (!rc) {
        s->max_accel = max_accel;
        memcpy(s->sound_speed, c0, s->nm * sizeof *c0);
        memcpy(s->tait_b, b, s->nm * sizeof *b);
        s->c_max = 0.0f;
        for (size_t m = 0; m < s->nm; ++m)
            if (s->sound_speed[m] > s->c_max) s->c_max = s->sound_speed[m];
    }
    free(c0);
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
