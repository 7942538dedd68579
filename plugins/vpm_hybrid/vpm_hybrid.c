/*
 * vpm_hybrid: vortex particle method with SPH density gradients (Gourlay, "Fluid Simulation for Video
 * Games" part 16, Intel, and the parts it summarizes), in three modes:
 *
 *   vpm     velocity from vorticity only: u = u_omega(x), the regularized Biot–Savart law of the
 *           vortons (biot_savart.h); gravity acts through baroclinic generation alone.
 *   sph     SPH pressure and viscosity (sph_terms.c) with gravity reduced by the ambient fluid's
 *           buoyancy, g (1 - rho_a / rho0); no vorticity.
 *   hybrid  both, added as Gourlay mixes them ("compute a velocity field, then advect particles
 *           according to that field"): u = v_s + u_omega, v_s the SPH velocity. With hybrid_gravity
 *           (default) v_s also feels the buoyancy-reduced gravity, so buoyancy drives the flow twice,
 *           as a body force and through the baroclinic vorticity; without it gravity acts only through
 *           the vorticity and the SPH part only keeps the particles apart.
 *
 * One step: grid -> number/mass density -> density gradient (canonical away from walls, difference
 * within h of one) and the baroclinic rate (grad rho x g) / rho, PSE diffusion, SPH accelerations
 * -> SPH velocity (semi-implicit Euler, contact response) -> midpoint (RK2) step of positions and
 * vorticity with u_omega and the stretching (omega . grad) u_omega evaluated at the start and at the
 * midpoint -> contact response of the move -> x += dt u. In vpm mode every remesh_every-th step
 * begins by putting the vortons back on a regular lattice (remesh.c).
 * Tracers (material `tracer_material`) carry no vorticity, are left out of every sum and move with the
 * flow at their position (u_omega there plus the SPH velocity interpolated from the fluid).
 */
#include "vpm_hybrid.h"

#include <eddy/boundary_math.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    P_MODE,
    P_CORE_RADIUS,
    P_BIOT_SAVART,
    P_TREECODE_THRESHOLD,
    P_OPENING_ANGLE,
    P_STRETCHING,
    P_DIFFUSION,
    P_BAROCLINIC,
    P_AMBIENT_DENSITY,
    P_TRACER_MATERIAL,
    P_HYBRID_GRAVITY,
    P_NEGATIVE_PRESSURE,
    P_CFL,
    P_VORTEX_CFL,
    P_REMESH_EVERY,
    P_REMESH_THRESHOLD,
    P_COUNT
};

static const char *const modes[] = {"vpm", "sph", "hybrid", NULL};
static const char *const bs_methods[] = {"auto", "direct", "treecode", NULL};

/* The vorton count from which the treecode is faster than direct summation on the development
 * machine (docs/performance.md, measured with tests/vpm_hybrid/bench_vpm_hybrid). */
#define TREECODE_CROSSOVER 5000

/* remesh_every where the scene leaves it unset and remeshing applies (docs/solvers/vpm_hybrid.md,
 * "Remeshing": the measured accuracy and cost on the Lamb–Oseen vortex and the validation cases). */
#define REMESH_EVERY_DEFAULT 5

static const eddy_param_desc params[P_COUNT] = {
    [P_MODE] = EDDY_PARAM_ENUM_DESC(
        "mode", MODE_HYBRID, modes,
        "vpm: velocity from vorticity only (gravity acts through baroclinic vorticity); sph: SPH pressure, "
        "viscosity and buoyancy-reduced gravity, no vorticity; hybrid (default): the sum of the two "
        "velocities (see hybrid_gravity)."),
    [P_CORE_RADIUS] = EDDY_PARAM_DERIVED_REAL_DESC(
        "core_radius", 1e-9, 1e9, "m",
        "Gaussian core radius sigma of every vorton (the Biot-Savart law is regularized by the blob "
        "exp(-r^2 / 2 sigma^2)). Derived (default): the largest rest spacing of the fluid materials, so that "
        "neighbouring blobs overlap."),
    [P_BIOT_SAVART] = EDDY_PARAM_ENUM_DESC(
        "biot_savart", 0, bs_methods,
        "How the velocity is summed over the vortons: auto (default) uses the treecode from "
        "treecode_threshold vortons on, direct summation below; direct; treecode."),
    [P_TREECODE_THRESHOLD] = EDDY_PARAM_INT_DESC(
        "treecode_threshold", TREECODE_CROSSOVER, 1, 1e9, "vortons",
        "With biot_savart = auto: the number of vortons (particles with non-zero vorticity) from which the "
        "Barnes-Hut treecode is used; the default is the measured crossover (docs/performance.md)."),
    [P_OPENING_ANGLE] = EDDY_PARAM_REAL_DESC(
        "opening_angle", 0.4, 0.05, 1.0, "1",
        "Barnes-Hut opening angle theta: a cell of radius b is summed through its quadrupole expansion when "
        "b / distance < theta. Smaller is more accurate and slower (error ~ theta^3)."),
    [P_STRETCHING] = EDDY_PARAM_BOOL_DESC(
        "stretching", 1, "Vortex stretching and tilting (omega . grad) u of the vortex velocity (3D only)."),
    [P_DIFFUSION] = EDDY_PARAM_BOOL_DESC(
        "diffusion", 1,
        "Viscous diffusion of vorticity, nu lap omega with nu = viscosity / rest_density of the materials, by "
        "particle strength exchange."),
    [P_BAROCLINIC] = EDDY_PARAM_BOOL_DESC(
        "baroclinic", 1,
        "Baroclinic generation D omega / Dt = (grad rho x g) / rho from the SPH mass density gradient."),
    [P_AMBIENT_DENSITY] = EDDY_PARAM_REAL_DESC(
        "ambient_density", 0.0, 0.0, 1e9, "kg/m^3",
        "Density rho_a of the ambient fluid that fills the space without particles (Gourlay's "
        "mAmbientDensity), kg/m^3 in 2D too. The density gradient is that of rho0 - rho_a, and sph mode reduces "
        "gravity by the ambient's buoyancy, g (1 - rho_a / rho0). 0 (default): empty space, whose free "
        "surfaces generate no vorticity (difference formula everywhere)."),
    [P_TRACER_MATERIAL] = EDDY_PARAM_INT_DESC(
        "tracer_material", -1, -1, 1e6, "",
        "Index into the scene's materials of the passive tracers: advected with the flow, no vorticity, no "
        "influence on it. -1 (default): none."),
    [P_HYBRID_GRAVITY] = EDDY_PARAM_BOOL_DESC(
        "hybrid_gravity", 1,
        "hybrid only. true (default): Gourlay's additive mix, u = v_s + u_omega with v_s an SPH "
        "velocity that feels the buoyancy-reduced gravity too, so buoyancy drives the flow twice (as a "
        "body force and through the baroclinic vorticity). false: gravity acts through the vorticity "
        "alone and the SPH part only keeps the particles apart."),
    [P_NEGATIVE_PRESSURE] = EDDY_PARAM_REAL_DESC(
        "negative_pressure", 0.0, 0.0, 1.0, "1",
        "Factor on negative SPH pressures; 0 (default) clamps p >= 0, 1 keeps p = k (rho - rho0), an "
        "attraction that holds a drop together (Gourlay's SPH, part 15)."),
    [P_CFL] = EDDY_PARAM_REAL_DESC(
        "cfl", 0.25, 0.01, 1.0, "1",
        "CFL number of the time-step limit cfl h / (c + v_max), c = sqrt(stiffness) in sph and hybrid "
        "modes, 0 in vpm mode."),
    [P_VORTEX_CFL] = EDDY_PARAM_REAL_DESC(
        "vortex_cfl", 0.25, 0.01, 2.0, "1",
        "Time-step limit vortex_cfl / max |omega|: the largest rotation of a vortex core per step, in "
        "radians times 2."),
    [P_REMESH_EVERY] = EDDY_PARAM_DESC_ALL_(
        "remesh_every", EDDY_PARAM_INT, EDDY_PARAM_DERIVED, 0, 0, 1e6, "steps",
        "vpm mode: every this many steps the vortons' strengths are interpolated (M4' kernel) onto a "
        "lattice of the material's rest spacing, whose nodes replace them (tracers stay); 0: never. "
        "Derived (default): 5 where it applies (vpm mode, one fluid material, no free-surface "
        "generation) and PSE diffusion acts (diffusion on, viscosity > 0), 0 elsewhere; a value above 0 "
        "where it does not apply is an error.",
        NULL, NULL),
    [P_REMESH_THRESHOLD] = EDDY_PARAM_REAL_DESC(
        "remesh_threshold", 1e-6, 0.0, 0.1, "1",
        "Remeshing drops the lattice nodes whose strength |alpha| is at most this fraction of the "
        "strongest node's (0 keeps every node with strength: circulation and impulses are then kept to "
        "rounding, but the particle count grows with the stencil's reach at every remesh)."),
};

/* The per-material parameters the method reads (the shared declarations of world.h): viscosity (SPH
 * viscosity, and nu = viscosity / rest_density for the PSE diffusion), stiffness (the SPH equation of
 * state and the sound speed of the CFL limit), initial_sum (the self term of the number density). */
enum { M_VISCOSITY, M_STIFFNESS, M_INITIAL_SUM, M_COUNT };
static const eddy_param_desc material_params[M_COUNT] = {
    [M_VISCOSITY] = EDDY_MATERIAL_VISCOSITY_DESC,
    [M_STIFFNESS] = EDDY_MATERIAL_STIFFNESS_DESC,
    [M_INITIAL_SUM] = EDDY_MATERIAL_INITIAL_SUM_DESC,
};

static void destroy(eddy_solver *s)
{
    if (!s) return;
    float **arrays[] = {&s->rest_density, &s->stiffness, &s->viscosity, &s->nu, &s->gscale,
                        &s->self_number, &s->buoyancy};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; ++a) free(*arrays[a]);
    for (int a = 0; a < 3; ++a) {
        free(s->rate[a]);
        free(s->x0[a]);
        free(s->w0[a]);
        free(s->u[a]);
        free(s->vs[a]);
    }
    for (int a = 0; a < 9; ++a) free(s->grad[a]);
    free(s->sx);
    free(s->sy);
    free(s->sz);
    free(s->sax);
    free(s->say);
    free(s->saz);
    bs_free(&s->ws);
    free(s);
}

/*
 * remesh_every and the lattice. Remeshing replaces the particles by the lattice nodes where there is
 * vorticity, so it is right only where the particles carry vorticity and nothing else the method
 * reads: not where they are also the SPH fluid (sph, hybrid), not across materials (one lattice, one
 * material's volume), and not where their extent is the fluid's body that generates vorticity at its
 * free surface (ambient_density > 0 with baroclinic generation).
 */
static int setup_remesh(eddy_solver *s, const eddy_world *w, const eddy_param_value *every, double threshold,
                        eddy_error *err)
{
    char why[512] = "";
    size_t fluids = 0;
    char names[256] = "";
    for (size_t m = 0; m < w->material_count; ++m) {
        if ((uint32_t)m == s->tracer) continue;
        if (fluids++ == 0) s->remesh_material = (uint32_t)m;
        const size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s'%s'", len ? ", " : "", w->materials[m].name);
    }
    if (s->mode != MODE_VPM)
        snprintf(why, sizeof why,
                 "remeshing replaces the particles by lattice nodes where there is vorticity, which only mode "
                 "\"vpm\" allows: in mode \"%s\" the particles are also the SPH fluid, whose mass and pressure "
                 "the nodes would not keep",
                 modes[s->mode]);
    else if (fluids != 1)
        snprintf(why, sizeof why,
                 "remeshing puts every vorton on the lattice of one material, and the scene has %zu fluid "
                 "materials (%s; tracers aside)",
                 fluids, names);
    else if (s->baroclinic && s->ambient > 0.0f)
        snprintf(why, sizeof why,
                 "with ambient_density %g and baroclinic generation the particles mark the fluid's body, whose "
                 "free surface generates vorticity, and remeshing would keep only the nodes that carry "
                 "vorticity (set baroclinic = false or ambient_density = 0)",
                 (double)s->ambient);
    if (every->is_set) {
        s->remesh_every = (int)every->integer;
        if (s->remesh_every > 0 && why[0])
            return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "remesh_every %d: %s; set remesh_every = 0",
                                  s->remesh_every, why);
    } else {
        /* On by default only where PSE diffusion acts: that is what disordered particles spoil. An
         * inviscid flow keeps its accuracy without it (the ring and the pair), and there the lattice
         * only adds cost (a rim of weak nodes that nothing diffuses grows at every remesh) and
         * M4's negative lobes, which move the measures that split the vorticity by sign. */
        const int diffusing = s->diffusion && s->nu[s->remesh_material] > 0.0f;
        s->remesh_every = why[0] || !diffusing ? 0 : REMESH_EVERY_DEFAULT;
    }
    s->remesh_threshold = threshold;
    if (s->remesh_every > 0) {
        const eddy_material *mat = &w->materials[s->remesh_material];
        s->remesh_h = mat->particle_dist;
        s->remesh_volume = (double)mat->particle_mass / mat->rest_density;
    }
    return EDDY_OK;
}

static int create(const eddy_solver_setup *setup, eddy_solver **out, eddy_error *err)
{
    eddy_world *w = setup->world;
    const eddy_param_values *pv = setup->params;
    if (w->material_count == 0)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT, "the world has no material");
    const double tracer = pv->values[P_TRACER_MATERIAL].number;
    if (tracer >= (double)w->material_count)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "tracer_material %.0f is not a material index (the scene has %zu "
                              "material%s, 0 to %zu; -1 for no tracers)",
                              tracer, w->material_count, w->material_count == 1 ? "" : "s", w->material_count - 1);
    if (tracer >= 0 && w->material_count == 1)
        return eddy_error_set(err, EDDY_ERR_INVALID_ARGUMENT,
                              "tracer_material 0 is the scene's only material: nothing would be "
                              "left to carry the flow (add a fluid material, or -1 for no tracers)");
    eddy_sph_simd simd;
    int rc = eddy_sph_simd_select(&simd, err);
    if (rc) return rc;
    eddy_solver *s = calloc(1, sizeof *s);
    if (!s) return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
    s->simd = simd;
    s->mode = (int)pv->values[P_MODE].integer;
    s->dims = w->dimensions;
    s->bs_choice = (int)pv->values[P_BIOT_SAVART].integer;
    s->tree_threshold = (int)pv->values[P_TREECODE_THRESHOLD].integer;
    s->theta = (float)pv->values[P_OPENING_ANGLE].number;
    s->stretching = pv->values[P_STRETCHING].number != 0;
    s->diffusion = pv->values[P_DIFFUSION].number != 0;
    s->baroclinic = pv->values[P_BAROCLINIC].number != 0;
    s->hybrid_gravity = pv->values[P_HYBRID_GRAVITY].number != 0;
    s->ambient = (float)pv->values[P_AMBIENT_DENSITY].number;
    s->tracer = tracer < 0 ? UINT32_MAX : (uint32_t)tracer;
    s->negative_pressure = (float)pv->values[P_NEGATIVE_PRESSURE].number;
    s->cfl = pv->values[P_CFL].number;
    s->vortex_cfl = pv->values[P_VORTEX_CFL].number;
    s->f_sph_velocity = s->f_acceleration = -1;

    const size_t nm = s->nm = w->material_count;
    float **arrays[] = {&s->rest_density, &s->stiffness, &s->viscosity, &s->nu, &s->gscale,
                        &s->self_number, &s->buoyancy};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; ++a) {
        *arrays[a] = calloc(nm, sizeof(float));
        if (!*arrays[a]) {
            destroy(s);
            return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    const eddy_kernels k = eddy_kernels_make(w->smoothing_radius, w->dimensions);
    float spacing = 0.0f;
    for (size_t m = 0; m < nm; ++m) {
        const eddy_material *mat = &w->materials[m];
        /* Floats, as the material members of ABI 1.x were: the arithmetic below stays in float. */
        const float viscosity = (float)eddy_material_param(mat, &material_params[M_VISCOSITY]);
        const float stiffness = (float)eddy_material_param(mat, &material_params[M_STIFFNESS]);
        const float initial_sum = (float)eddy_material_param(mat, &material_params[M_INITIAL_SUM]);
        s->rest_density[m] = mat->rest_density;
        s->stiffness[m] = stiffness;
        s->viscosity[m] = viscosity;
        s->nu[m] = viscosity / mat->rest_density;
        /* The spiky gradient (and the PSE Laplacian built from it) of a linear (quadratic) field falls
         * short by this moment on the rest lattice; dividing by it makes them exact there. */
        s->gscale[m] = (float)(1.0 / eddy_lattice_gradient_moment(mat->particle_dist, w->smoothing_radius,
                                                                   w->dimensions));
        s->self_number[m] = (initial_sum - 1.0f) * eddy_poly6(&k, 0.0f);
        s->buoyancy[m] = 1.0f - s->ambient / mat->rest_density;
        if ((uint32_t)m == s->tracer) continue;
        const float c = sqrtf(stiffness);
        s->c_max = c > s->c_max ? c : s->c_max;
        s->nu_max = s->nu[m] > s->nu_max ? s->nu[m] : s->nu_max;
        spacing = mat->particle_dist > spacing ? mat->particle_dist : spacing;
    }
    /* Derived unless the scene gives it: unset (NAN) then. */
    const eddy_param_value *core = &pv->values[P_CORE_RADIUS];
    const double sigma = core->is_set ? core->number : NAN;
    s->sigma = !isnan(sigma) ? (float)sigma : spacing > 0.0f ? spacing : 0.5f * w->smoothing_radius;
    const eddy_host *host = setup->host;
    /* Blobs narrower than the spacing leave gaps between them: the regularized sum then converges
     * only for sigma / spacing >= 1 (the overlap condition; Beale & Majda 1985, J. Comput. Phys. 58:188). */
    for (size_t m = 0; m < nm && !isnan(sigma); ++m) {
        const eddy_material *mat = &w->materials[m];
        if ((uint32_t)m == s->tracer || !(s->sigma < mat->particle_dist)) continue;
        eddy_host_log(host, EDDY_LOG_WARNING, "vpm_hybrid",
                      "core_radius %g m is below the particle spacing %g m of material '%s' (sigma / spacing = "
                      "%.3g): the vortex blobs must overlap, sigma / spacing >= 1 (Beale & Majda 1985), or the "
                      "Biot-Savart velocity and the diffusion lose accuracy; leave core_radius unset (the "
                      "spacing) or raise it",
                      (double)s->sigma, (double)mat->particle_dist, mat->name,
                      (double)(s->sigma / mat->particle_dist));
    }
    const int resuming = EDDY_HAS_MEMBER(setup, eddy_solver_setup, resuming) ? setup->resuming : 0;
    if (s->mode == MODE_VPM && !resuming) {
        /* vpm mode has no velocity of its own to keep: a scene's initial velocity cannot be
         * represented, and is reported rather than refused so that scenes written for the other
         * solvers (and the other modes, where it starts the SPH part) still run in vpm mode. */
        const eddy_particles *p = &w->particles;
        size_t moving = 0;
        double vmax = 0.0;
        for (size_t i = 0; i < p->count; ++i) {
            const double v2 = (double)p->vx[i] * p->vx[i] + (double)p->vy[i] * p->vy[i] +
                              (double)p->vz[i] * p->vz[i];
            if (v2 > 0.0) ++moving;
            vmax = v2 > vmax ? v2 : vmax;
        }
        if (moving)
            eddy_host_log(host, EDDY_LOG_WARNING, "vpm_hybrid",
                          "fluids[].velocity is ignored in mode \"vpm\": the particles move only with the velocity "
                          "their vorticity induces (%zu particle%s had an initial velocity, up to %g m/s); use "
                          "mode \"hybrid\", where it starts the SPH velocity, or give the flow as vorticity",
                          moving, moving == 1 ? "" : "s", sqrt(vmax));
    }
    if ((rc = setup_remesh(s, w, &pv->values[P_REMESH_EVERY], pv->values[P_REMESH_THRESHOLD].number, err))) {
        destroy(s);
        return rc;
    }

    eddy_particles *p = &w->particles;
    rc = eddy_particles_add_field(p, "vorticity", 3, &s->f_vorticity, err);
    if (!rc) rc = eddy_particles_add_field(p, "density_gradient", 3, &s->f_gradient, err);
    if (!rc) rc = eddy_particles_add_field(p, "number_density", 1, &s->f_number, err);
    if (!rc && s->mode != MODE_VPM) rc = eddy_particles_add_field(p, "acceleration", 3, &s->f_acceleration, err);
    if (!rc && s->mode == MODE_HYBRID) {
        rc = eddy_particles_add_field(p, "sph_velocity", 3, &s->f_sph_velocity, err);
        /* The scene's initial velocities belong to the SPH part; a resumed run restores the field. */
        if (!rc)
            for (int a = 0; a < 3; ++a) {
                const float *v = a == 0 ? p->vx : a == 1 ? p->vy : p->vz;
                memcpy(eddy_particles_field(p, s->f_sph_velocity, a), v, p->count * sizeof(float));
            }
    }
    if (rc) {
        destroy(s);
        return rc;
    }
    *out = s;
    return EDDY_OK;
}

/* ---------------------------------------------------------------------------------------------- */
/* Velocity from vorticity                                                                         */
/* ---------------------------------------------------------------------------------------------- */

/*
 * u_omega (into s->u) and, with stretching in 3D, its gradient (s->grad) at every particle, for the
 * vorticity in the field. Sources are the fluid particles with omega != 0, strength omega m / rho0.
 * Returns the number of sources, or -1 when memory ran out.
 */
static long long induced_velocity(eddy_solver *s, eddy_world *w, int want_grad)
{
    eddy_particles *p = &w->particles;
    const size_t n = p->count;
    const float *wx = eddy_particles_field(p, s->f_vorticity, 0);
    const float *wy = eddy_particles_field(p, s->f_vorticity, 1);
    const float *wz = eddy_particles_field(p, s->f_vorticity, 2);
    size_t ns = 0;
    for (size_t i = 0; i < n; ++i) {
        if (p->material[i] == s->tracer) continue;
        if (wx[i] == 0.0f && wy[i] == 0.0f && wz[i] == 0.0f) continue;
        const float V = p->mass[i] / s->rest_density[p->material[i]];
        s->sx[ns] = p->x[i];
        s->sy[ns] = p->y[i];
        s->sz[ns] = p->z[i];
        s->sax[ns] = wx[i] * V;
        s->say[ns] = wy[i] * V;
        s->saz[ns] = wz[i] * V;
        ++ns;
    }
    bs_params prm;
    prm.dimensions = w->dimensions;
    prm.sigma = s->sigma;
    prm.theta = s->theta;
    prm.leaf_size = 64; /* measured best of 16..128 (docs/performance.md) */
    prm.method = s->bs_choice == 1 ? BS_DIRECT
                 : s->bs_choice == 2 ? BS_TREECODE
                 : ns >= (size_t)s->tree_threshold ? BS_TREECODE : BS_DIRECT;
    bs_sources src = {ns, s->sx, s->sy, s->sz, s->sax, s->say, s->saz};
    bs_targets tgt = {n, p->x, p->y, p->z, s->u[0], s->u[1], s->u[2], want_grad ? s->grad : NULL};
    s->last_sources = ns;
    s->last_method = (int)prm.method;
    if (bs_evaluate(&prm, &src, &tgt, &s->ws)) return -1;
    return (long long)ns;
}

/* ---------------------------------------------------------------------------------------------- */
/* Step                                                                                            */
/* ---------------------------------------------------------------------------------------------- */

static int out_of_memory(eddy_error *err)
{
    return eddy_error_set(err, EDDY_ERR_OUT_OF_MEMORY, "out of memory");
}

/* Density, and the terms the mode needs, at the current (grid-sorted) positions. */
static int neighbour_terms(eddy_solver *s, eddy_world *w)
{
    if (vpm_density(s, w)) return -1;
    vpm_terms t;
    memset(&t, 0, sizeof t);
    t.forces = s->mode != MODE_VPM;
    t.gradient = s->mode != MODE_SPH && s->baroclinic;
    t.diffusion = s->mode != MODE_SPH && s->diffusion && s->nu_max > 0.0f;
    /* The mirror ghosts continue the pressure hydrostatically for the gravity the SPH part feels. */
    const float gs = s->mode == MODE_SPH || (s->mode == MODE_HYBRID && s->hybrid_gravity) ? 1.0f : 0.0f;
    for (int a = 0; a < 3; ++a) t.gravity[a] = gs * w->gravity[a];
    return vpm_terms_pass(s, w, &t) ? -1 : 0;
}

/* The core's contact response (eddy_world_respond_boundaries) for the hybrid's SPH velocity, a field
 * of its own; the other moves respond with the particles' velocity. */
#define RESPOND_BLOCK 256 /* particles per range of the response, as the core's */
static void respond_sph_velocity(eddy_world *w, float *vx, float *vy, float *vz)
{
    eddy_particles *p = &w->particles;
    const eddy_boundaries *b = &w->boundaries;
    const size_t n = p->count;
    const long long blocks = (long long)((n + RESPOND_BLOCK - 1) / RESPOND_BLOCK);
#pragma omp parallel for schedule(static)
    for (long long blk = 0; blk < blocks; ++blk) {
        const size_t i0 = (size_t)blk * RESPOND_BLOCK;
        const size_t len = n - i0 < RESPOND_BLOCK ? n - i0 : RESPOND_BLOCK;
        unsigned char flag[RESPOND_BLOCK];
        eddy_hd_contact_respond_range(b->colliders, b->collider_count, w->dimensions, w->contacts, p->material + i0,
                                      p->x + i0, p->y + i0, p->z + i0, vx + i0, vy + i0, vz + i0, len, flag);
    }
}

/* SPH velocity update v += (a + g b) dt of the fluid (b: the buoyancy factor, or 0), then the tracers'
 * interpolated velocity; the caller applies the contact response. */
static int sph_velocity(eddy_solver *s, eddy_world *w, float *vx, float *vy, float *vz, int gravity, float dt)
{
    eddy_particles *p = &w->particles;
    const float *ax = eddy_particles_field(p, s->f_acceleration, 0);
    const float *ay = eddy_particles_field(p, s->f_acceleration, 1);
    const float *az = eddy_particles_field(p, s->f_acceleration, 2);
    const long long n = (long long)p->count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        const uint32_t m = p->material[i];
        if (m == s->tracer) continue;
        const float gb = gravity ? s->buoyancy[m] : 0.0f;
        vx[i] += (ax[i] + gb * w->gravity[0]) * dt;
        vy[i] += (ay[i] + gb * w->gravity[1]) * dt;
        vz[i] += (az[i] + gb * w->gravity[2]) * dt;
    }
    if (vpm_tracer_velocity(s, w, vx, vy, vz)) return -1;
    if (w->dimensions == 2)
        for (long long i = 0; i < n; ++i) vz[i] = 0.0f;
    return 0;
}

/* d omega / dt = rate + (omega . grad) u_omega, into out[3][n] (the stretching only in 3D). */
static void vorticity_rate(const eddy_solver *s, const eddy_world *w, int stretch, float *const out[3])
{
    const eddy_particles *p = &w->particles;
    const float *wv[3];
    for (int a = 0; a < 3; ++a) wv[a] = eddy_particles_field(p, s->f_vorticity, a);
    const long long n = (long long)p->count;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a) {
            float r = s->rate[a][i];
            if (stretch) r += wv[0][i] * s->grad[3 * a + 0][i] + wv[1][i] * s->grad[3 * a + 1][i] +
                              wv[2][i] * s->grad[3 * a + 2][i];
            out[a][i] = r;
        }
    }
}

/*
 * The vortex part of a vpm or hybrid step, from the vorticity and the (already updated) SPH velocity
 * vs (NULL in vpm mode): midpoint rule for x and omega, d x/dt = vs + u_omega,
 * d omega / dt = rate + (omega . grad) u_omega, then the contact response and x += dt u.
 */
static int vortex_step(eddy_solver *s, eddy_world *w, float *const vs[3], float dt, eddy_error *err)
{
    eddy_particles *p = &w->particles;
    const size_t n = p->count;
    float *wv[3], *pos[3] = {p->x, p->y, p->z};
    for (int a = 0; a < 3; ++a) wv[a] = eddy_particles_field(p, s->f_vorticity, a);
    const int stretch = s->stretching && w->dimensions == 3;
    int any = 0;
    for (size_t i = 0; i < n && !any; ++i)
        any = wv[0][i] != 0.0f || wv[1][i] != 0.0f || wv[2][i] != 0.0f || s->rate[0][i] != 0.0f ||
              s->rate[1][i] != 0.0f || s->rate[2][i] != 0.0f;
    float *v[3] = {p->vx, p->vy, p->vz};
    if (!any) {
        /* No vorticity now or by the midpoint: the vortex velocity is zero. */
        for (int a = 0; a < 3; ++a)
            for (size_t i = 0; i < n; ++i) v[a][i] = vs ? vs[a][i] : 0.0f;
    } else {
        double t0 = eddy_time_ms();
        for (int a = 0; a < 3; ++a) {
            memcpy(s->x0[a], pos[a], n * sizeof(float));
            memcpy(s->w0[a], wv[a], n * sizeof(float));
        }
        if (induced_velocity(s, w, stretch) < 0) return out_of_memory(err);
        float *dw[3] = {s->vs[0], s->vs[1], s->vs[2]}; /* scratch for the stage's vorticity rate */
        /* The velocity field holds the SPH part (zero in vpm mode) until the vortex part is added. */
        for (int a = 0; a < 3; ++a) {
            if (vs) memcpy(v[a], vs[a], n * sizeof(float));
            else memset(v[a], 0, n * sizeof(float));
        }
        vorticity_rate(s, w, stretch, dw);
        const float h = 0.5f * dt;
        for (int a = 0; a < 3; ++a)
            for (size_t i = 0; i < n; ++i) {
                pos[a][i] = s->x0[a][i] + h * (v[a][i] + s->u[a][i]);
                wv[a][i] = s->w0[a][i] + h * dw[a][i];
            }
        if (w->dimensions == 2)
            for (size_t i = 0; i < n; ++i) pos[2][i] = 0.0f;
        if (induced_velocity(s, w, stretch) < 0) {
            /* Leave the particles as the step found them. */
            for (int a = 0; a < 3; ++a) {
                memcpy(pos[a], s->x0[a], n * sizeof(float));
                memcpy(wv[a], s->w0[a], n * sizeof(float));
            }
            return out_of_memory(err);
        }
        vorticity_rate(s, w, stretch, dw);
        for (int a = 0; a < 3; ++a)
            for (size_t i = 0; i < n; ++i) {
                wv[a][i] = s->w0[a][i] + dt * dw[a][i];
                pos[a][i] = s->x0[a][i];
                v[a][i] += s->u[a][i];
            }
        if (w->dimensions == 2)
            for (size_t i = 0; i < n; ++i) v[2][i] = wv[0][i] = wv[1][i] = 0.0f;
        eddy_world_add_phase_time(w, EDDY_PHASE_FORCES, eddy_time_ms() - t0);
    }
    double t1 = eddy_time_ms();
    eddy_world_respond_boundaries(w, dt);
    eddy_world_integrate_position(w, dt);
    eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, eddy_time_ms() - t1);
    return EDDY_OK;
}

static int step(eddy_solver *s, eddy_world *w, double dt_in, eddy_error *err)
{
    const float dt = (float)dt_in;
    /* At the start of a step, so that the step computes every field of the new particles (velocity
     * included) and the frames between steps stay consistent; by the step count, which a checkpoint
     * restores, so that a resumed run remeshes where the uninterrupted one did. */
    if (s->remesh_every > 0 && w->step > 0 && w->step % (uint64_t)s->remesh_every == 0) {
        const double t0 = eddy_time_ms();
        const int rc = vpm_remesh(s, w, err);
        if (rc) return rc;
        eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, eddy_time_ms() - t0);
    }
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    eddy_particles *p = &w->particles;
    const size_t n = p->count;
    if (vpm_reserve(s, n)) return out_of_memory(err);
    double t0 = eddy_time_ms();
    if (neighbour_terms(s, w)) return out_of_memory(err);
    eddy_world_add_phase_time(w, EDDY_PHASE_DENSITY, eddy_time_ms() - t0);

    if (s->mode == MODE_SPH) {
        double t1 = eddy_time_ms();
        if (sph_velocity(s, w, p->vx, p->vy, p->vz, 1, dt)) return out_of_memory(err);
        eddy_world_respond_boundaries(w, dt);
        eddy_world_integrate_position(w, dt);
        eddy_world_add_phase_time(w, EDDY_PHASE_INTEGRATE, eddy_time_ms() - t1);
        return EDDY_OK;
    }
    float *const *vs = NULL;
    float *svel[3];
    if (s->mode == MODE_HYBRID) {
        for (int a = 0; a < 3; ++a) svel[a] = eddy_particles_field(p, s->f_sph_velocity, a);
        if (sph_velocity(s, w, svel[0], svel[1], svel[2], s->hybrid_gravity, dt)) return out_of_memory(err);
        respond_sph_velocity(w, svel[0], svel[1], svel[2]);
        vs = svel;
    }
    return vortex_step(s, w, vs, dt, err);
}

static int compute_fields(eddy_solver *s, eddy_world *w, eddy_error *err)
{
    int rc = eddy_world_build_grid(w, err);
    if (rc) return rc;
    eddy_particles *p = &w->particles;
    const size_t n = p->count;
    if (vpm_reserve(s, n)) return out_of_memory(err);
    if (neighbour_terms(s, w)) return out_of_memory(err);
    if (s->mode == MODE_SPH) return EDDY_OK;
    if (induced_velocity(s, w, 0) < 0) return out_of_memory(err);
    /* As in a step: the SPH part (tracers: interpolated from the fluid's) plus u_omega at the particle. */
    float *v[3] = {p->vx, p->vy, p->vz};
    for (int a = 0; a < 3; ++a) {
        const float *vs = s->mode == MODE_HYBRID ? eddy_particles_field(p, s->f_sph_velocity, a) : NULL;
        for (size_t i = 0; i < n; ++i) v[a][i] = vs ? vs[i] : 0.0f;
    }
    if (s->mode == MODE_HYBRID && vpm_tracer_velocity(s, w, v[0], v[1], v[2])) return out_of_memory(err);
    for (int a = 0; a < 3; ++a)
        for (size_t i = 0; i < n; ++i) v[a][i] += s->u[a][i];
    return EDDY_OK;
}

static int max_dt(eddy_solver *s, eddy_world *w, double *dt, const char **limit, eddy_error *err)
{
    (void)err;
    const int sph = s->mode != MODE_VPM;
    const int vortex = s->mode != MODE_SPH;
    /* CFL (pressure waves in sph and hybrid, advection alone in vpm), SPH viscosity and force limits. */
    double lim = eddy_world_stable_dt(w, s->cfl, sph ? s->c_max : 0.0, sph ? s->nu_max : 0.0,
                                      sph ? s->max_accel : 0.0, limit);
    if (vortex) {
        const eddy_particles *p = &w->particles;
        const float *wv[3];
        for (int a = 0; a < 3; ++a) wv[a] = eddy_particles_field(p, s->f_vorticity, a);
        float w2 = 0.0f;
        for (size_t i = 0; i < p->count; ++i) {
            const float q = wv[0][i] * wv[0][i] + wv[1][i] * wv[1][i] + wv[2][i] * wv[2][i];
            w2 = q > w2 ? q : w2;
        }
        if (w2 > 0.0f && s->vortex_cfl / sqrt((double)w2) < lim) {
            lim = s->vortex_cfl / sqrt((double)w2);
            *limit = "vorticity";
        }
        /* Explicit PSE: the Laplacian's largest decay rate on the rest lattice (h = 2 spacings) is
         * 23.7 nu / h^2 in 3D, 21.5 in 2D, so forward steps stay stable below about h^2 / (12 nu); the
         * limit keeps a margin of more than 2.5 for particles closer than the rest spacing, where the
         * spiky kernel's weight grows. */
        if (s->diffusion && s->nu_max > 0.0f) {
            const double h = w->smoothing_radius;
            const double d = h * h / (32.0 * s->nu_max);
            if (d < lim) {
                lim = d;
                *limit = "diffusion";
            }
        }
    }
    *dt = lim;
    return EDDY_OK;
}

/* Between steps the solver keeps only the last step's largest SPH acceleration (max_dt's force
 * limit); a checkpoint carries it so that a resumed run picks the same time steps. */
static int save(const eddy_solver *s, void **data, size_t *size, eddy_error *err)
{
    return eddy_state_save_floats("vpm_hybrid/1", &s->max_accel, 1, data, size, err);
}

static int load(eddy_solver *s, const void *data, size_t size, eddy_error *err)
{
    return eddy_state_load_floats("vpm_hybrid/1", &s->max_accel, 1, data, size, err);
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

/* Not EDDY_COMPONENT_DECOMPOSABLE: the Biot-Savart sum gives every particle the velocity induced by
 * every vorton in the world, not only by its neighbours, so a process holding its owned particles and
 * their halo copies lacks most sources (a decomposed run must gather every vorton first, or refuse the
 * solver). No state outside the instance: concurrent instances are safe. */
static const eddy_component component = {
    .size = sizeof(eddy_component),
    .interface_id = EDDY_INTERFACE_SOLVER,
    .id = "vpm_hybrid",
    .version = "2.1.0",
    .description = "Vortex particle method (regularized Biot-Savart, direct or Barnes-Hut treecode, stretching, "
                   "PSE diffusion) with SPH density gradients for baroclinic vorticity; modes vpm, sph, hybrid "
                   "(Gourlay, part 16)",
    .params = params,
    .param_count = P_COUNT,
    .vtable = &vtable,
    .flags = EDDY_COMPONENT_CONCURRENT_INSTANCES | EDDY_COMPONENT_STATE_COMPLETE,
    .material_params = material_params,
    .material_param_count = M_COUNT,
};

static const eddy_component *const components[] = {&component};

static const eddy_plugin_descriptor descriptor = {
    EDDY_PLUGIN_DESCRIPTOR_HEADER,
    .name = "vpm_hybrid",
    .version = "2.1.0",
    .init = NULL,
    .deinit = NULL,
    .component_count = 1,
    .components = components,
};

EDDY_EXPORT const eddy_plugin_descriptor *eddy_plugin_entry(void) { return &descriptor; }
