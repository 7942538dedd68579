/*
 * eddy/world.h — the simulated world: particles, materials, global parameters, boundaries, grid.
 *
 * Global parameters (the Bullet-Fluids reference (2014) §3.1) belong to the world; per-material
 * parameters (§3.2, Bullet's "local" parameters) to eddy_material. Everything is in *simulation units*: a
 * world-scale length L is stored as L * simulation_scale (the Bullet-Fluids reference (2014) §1.1.1).
 * Solvers never need the simulation scale; hosts use it to convert input and output. A scene gives
 * masses, densities, gravity and velocities in simulation units already; the host scales only the
 * lengths it gives in world units (docs/scenes.md).
 *
 * Units in 2D: a 2D world is a slab of unit depth. A particle's mass is per unit depth (kg/m; hosts
 * derive it as about rho0 spacing^2), and densities stay kg/m^3, since sum_j m_j W with the 2D kernels
 * (1/m^2) gives (kg/m) / m^2. Pressures are Pa in 2D and 3D alike.
 *
 * Ownership: the host creates and owns the world (eddy_world_create / eddy_world_destroy) and hands it
 * to the solver's callbacks; a solver may modify particle data and register fields, but must not
 * replace materials, boundaries or the grid.
 *
 * Threads: every function is [main thread] unless marked otherwise; the OpenMP-parallel helpers
 * parallelize inside and use the host's thread count (host.h).
 *
 * Arguments: the world pointer `w` must not be NULL (only eddy_world_destroy and eddy_world_unmap_field
 * accept NULL); arrays and structs passed in are borrowed for the call and copied where kept, unless a
 * function says otherwise.
 */
#ifndef EDDY_WORLD_H
#define EDDY_WORLD_H

#include "boundary.h"
#include "defs.h"
#include "error.h"
#include "grid.h"
#include "host.h"
#include "params.h"
#include "particles.h"

EDDY_BEGIN_DECLS

#define EDDY_MATERIAL_NAME_MAX 32

/*
 * One fluid material (Bullet's "local" parameters). The members every method shares are fixed; the
 * rest (viscosity, stiffness, initial_sum, ...) are declared by the solver as a per-material parameter
 * table (plugin.h, eddy_component.material_params) and arrive validated in `params`. Growth: begins
 * with its size; fill one with eddy_default_material().
 */
typedef struct eddy_material {
    size_t size;               /* sizeof(eddy_material) as compiled by whoever filled it */
    char name[EDDY_MATERIAL_NAME_MAX];
    eddy_real rest_density;    /* rho0, kg/m^3 in 2D too (sim units) */
    eddy_real particle_mass;   /* m, kg (per unit depth in 2D: kg/m) */
    eddy_real particle_dist;   /* derived by eddy_world_add_material: the lattice spacing at which poly6
                                * summation with this mass and the world's smoothing radius gives
                                * rest_density (eddy_lattice_density); sim units */
    eddy_contact_params contact; /* rigid-boundary response */
    /* The solver's per-material parameters, one per entry of its material table. In the world the
     * values are owned by the world (copied by eddy_world_add_material). Read them once in create()
     * with eddy_material_param(material, &material_params[M]), which falls back to the table entry's
     * default; eddy_param_get(&material->params, "viscosity", fallback) is the lower-level lookup by
     * id with a fallback of the caller's. */
    eddy_param_values params;
} eddy_material;

/*
 * The per-material parameters of the SPH solvers in this tree, as table-entry initializers: a solver
 * lists the ones it reads in its component's material_params, so they are declared once, with one
 * default and range, and a scene that sets them stays valid whichever of these solvers runs it. A
 * solver whose term differs in form (another viscosity discretization, say) may write its own entry
 * with the same id, default, range and unit and a description of its own term; `eddy describe` prints
 * the description of the solver's entry.
 */
#define EDDY_MATERIAL_VISCOSITY_DESC \
    EDDY_PARAM_REAL_DESC("viscosity", 0.1, 0.0, 1e30, "Pa s", \
                         "Dynamic viscosity mu of the solver's physical viscous term, simulation " \
                         "units (in this tree's SPH solvers the viscosity Laplacian of Mueller et al. " \
                         "2003, eq. 14; the solver's docs say how it enters).")
#define EDDY_MATERIAL_STIFFNESS_DESC \
    EDDY_PARAM_REAL_DESC("stiffness", 1000.0, 0.0, 1e30, "m^2/s^2", \
                         "Gas stiffness k of p = k (rho - rho0) (Mueller et al. 2003, eq. 12); " \
                         "sqrt(k) is the speed of sound the time-step limit uses.")
#define EDDY_MATERIAL_INITIAL_SUM_DESC \
    EDDY_PARAM_REAL_DESC("initial_sum", 1.0, 1e-6, 1.0, "1", \
                         "Self-contribution to a particle's density sum, in units of m W(0), in (0, 1].")

/* The value a material gives the parameter `desc` (an entry of the running solver's material table):
 * the material's own value, or desc's default when the material has none (a world built without that
 * table, a test); also desc's default when the material's value is unset (a DERIVED entry). The value
 * is looked up by desc->id, in the entry's unit. Neither pointer may be NULL. Solvers read each one
 * once, in create(). [any thread] */
EDDY_API double eddy_material_param(const eddy_material *material, const eddy_param_desc *desc);

/* A material with every fixed member at its documented default (rest density 1000, no mass, the
 * default contact response) and no solver parameters. [any thread] */
EDDY_API eddy_material eddy_default_material(void);

/* Phases whose wall time solvers report for `eddy bench` (eddy_world_add_phase_time). */
typedef enum eddy_phase {
    EDDY_PHASE_GRID = 0,
    EDDY_PHASE_DENSITY = 1,
    EDDY_PHASE_FORCES = 2,
    EDDY_PHASE_INTEGRATE = 3,
    EDDY_PHASE_COUNT = 4
} eddy_phase;

/*
 * The world. Created and owned by the host; handed to the solver's callbacks, which may modify
 * particle data and register fields but must not replace materials, boundaries or the grid. Plugins
 * only read this struct's members (and write particle arrays); growth: begins with its size (filled
 * by libeddy), new members appended at the end.
 */
typedef struct eddy_world {
    size_t size;               /* sizeof(eddy_world) as compiled into libeddy */
    int dimensions;            /* 2 or 3 */
    double time;               /* simulated time, s */
    uint64_t step;             /* steps taken */
    eddy_real smoothing_radius;/* h, sim units: the support radius of every kernel */
    eddy_real gravity[3];      /* sim units / s^2 */
    eddy_real simulation_scale;/* sim length / world length; for hosts only */
    eddy_particles particles;
    eddy_material *materials;  /* [material_count], owned by the world; moves when a material is added */
    size_t material_count;
    eddy_contact_params *contacts; /* [material_count] copies of materials[m].contact, for helpers;
                                    * moves like materials */
    eddy_boundaries boundaries;
    eddy_grid grid;            /* valid after eddy_world_init_grid() */
    double phase_ms[EDDY_PHASE_COUNT]; /* accumulated wall time per phase, ms */
    const eddy_host *host;     /* the host's services (host.h); eddy_host_silent() until the host sets
                                * its own with eddy_world_set_host() */
    struct eddy_world_impl *impl; /* private to libeddy */
} eddy_world;

/* Allocates an empty world for `dimensions` (2 or 3; anything else is EDDY_ERR_INVALID_ARGUMENT):
 * no material, particle, collider or grid, smoothing radius 0, simulation scale 1, host
 * eddy_host_silent(). *out is NULL on failure (out must not be NULL). The caller owns it; release with
 * eddy_world_destroy(). [any thread]: it touches no shared state. */
EDDY_API int eddy_world_create(int dimensions, eddy_world **out, eddy_error *err);

/* Frees the world and everything it owns (particles, materials and their parameter copies,
 * colliders, the grid and its backend state); not the host services, the residency provider or the
 * exchange, which their installers own. NULL-safe. */
EDDY_API void eddy_world_destroy(eddy_world *w);

/*
 * Lattice helpers: sums over an infinite square (2D) or cubic (3D) lattice of `spacing` with the
 * kernels of radius h (support radius, as everywhere in eddy). They are defined for
 * h / spacing <= EDDY_LATTICE_RATIO_MAX: SPH resolves a fluid with h / spacing of about 1.2 to 4 (every
 * scene in scenes/ uses 2), and tracer materials of a vortex method carry a nominal mass whose rest
 * spacing lies further down (20 in scenes/vpm_drop_in_tank.json); 32 leaves headroom above both, while
 * a sum that reaches thousands of neighbours (about 4/3 pi 32^3 = 137000 in 3D) describes no useful
 * discretisation. Each helper costs O(1) (the gradient moment O(ratio^2)) at any ratio: they read one
 * table of lattice-point counts per dimension, built on first use and shared by every thread.
 * Out-of-range input never loops and never overflows: the helpers return NaN for a ratio above the
 * limit, non-finite arguments, or dimensions other than 2 and 3 (hosts check the ratio first and
 * refuse such input with a message; host/scene/scene_materials.c does).
 */
#define EDDY_LATTICE_RATIO_MAX 32

/*
 * Poly6 summation density at a particle inside the lattice with particle `mass`:
 * mass * sum_j W_poly6(|x_j|). With mass = rho0 * spacing^d it misses rho0 by up to a few % (1.5% at
 * h = 2 spacing in 2D), which a stiff equation of state turns into a large spurious pressure; hosts
 * therefore derive the mass of a given spacing as rho0 * mass / eddy_lattice_density(mass, ...).
 * 0 when spacing or h <= 0; NaN out of range (above). For spacing >= h the particle sees only itself.
 * Double precision (about 1e-14 relative); pure. [any thread]
 */
EDDY_API double eddy_lattice_density(double mass, double spacing, double h, int dimensions);

/* The lattice spacing at which eddy_lattice_density(mass, spacing, h, d) equals rho0 (found by
 * bisection around the plain estimate (m / rho0)^(1/d)); the plain estimate itself when h <= 0, and
 * when no spacing near it sums to rho0 (a mass so large that the particle alone outweighs rho0: the
 * spacing would reach beyond h). NaN when the spacing would exceed the ratio limit
 * (h / spacing > EDDY_LATTICE_RATIO_MAX: a mass too small for h), for non-positive or non-finite
 * mass or rho0, non-finite h, or dimensions other than 2 and 3. This is particle_dist. Pure.
 * [any thread] */
EDDY_API eddy_real eddy_rest_spacing(double mass, double rho0, double h, int dimensions);

/*
 * First moment of the spiky kernel gradient on the same lattice, with volumes V = 1 / sum_j W_poly6
 * (the lattice-consistent mass over rho0): V sum_j x_j^2 |grad W_spiky(|x_j|)| / |x_j|, the factor by
 * which sum_j V (p_j - p_i) |grad W| e_ij underestimates a linear pressure gradient (1 in the continuum
 * limit; 0.87 at h = 2 spacing in 2D, 0.95 in 3D). Solvers divide their spiky pressure gradient by it
 * so that a fluid at rest carries exactly rho0 g H. 1 when spacing or h <= 0; 0 for spacing >= h (no
 * neighbour in reach); NaN out of range (above). Double precision; pure. [any thread]
 */
EDDY_API double eddy_lattice_gradient_moment(double spacing, double h, int dimensions);

/* Appends a material (copied, its parameter values and their strings too; the name is cut to
 * EDDY_MATERIAL_NAME_MAX - 1 bytes; m->size must cover `params`). params.desc is kept as given, not
 * copied: that table must outlive the world (the registry's copy does). particle_dist is derived here,
 * overwriting m's (set the smoothing radius first: with h still 0 it is the plain (m / rho0)^(1/d)).
 * Validated with messages naming the material and the key, EDDY_ERR_INVALID_ARGUMENT: positive finite
 * rest density and mass, contact parameters in their ranges (radius >= 0, margin in [0, radius) unless
 * radius is 0, restitution, friction and erp in [0, 1]), each parameter value against its descriptor
 * (eddy_param_check), a name not used before, a mass whose rest spacing is within the lattice ratio
 * limit; also a NULL m, or more than 2^32 - 2 materials. EDDY_ERR_OUT_OF_MEMORY. On error the world's
 * materials are as they were (w->materials and w->contacts may still have moved); on success they may
 * move. [main thread] */
EDDY_API int eddy_world_add_material(eddy_world *w, const eddy_material *m, eddy_error *err);

/* Appends n particles of material index `material` (< material_count, else EDDY_ERR_INVALID_ARGUMENT)
 * through eddy_particles_add: positions / velocities are 3*n reals in simulation units, copied (in 2D
 * the z components are ignored and stored as 0; velocities may be NULL for rest). The new particles
 * are owned (flags 0) and take consecutive ids from the next id the set issues (the largest ever
 * issued or set, plus 1), so ids are never reused. Their mass is the material's particle_mass; every
 * other field starts at 0. Bumps the layout generation when n > 0. Errors are eddy_particles_add's
 * (positions NULL with n > 0, ids exhausted, memory), with the world unchanged; the particle arrays
 * may move (particles.h). [main thread] */
EDDY_API int eddy_world_add_particles(eddy_world *w, size_t n, const eddy_real *positions,
                                      const eddy_real *velocities, uint32_t material, eddy_error *err);

/* Sets the container (an axis-aligned box that holds the fluid; min, max in simulation units, finite,
 * min < max on each used axis; in 2D z is ignored and stored as 0); its walls become plane colliders
 * at the start of the collider list, facing inward, except on periodic axes (`periodic` may be NULL:
 * none). Call once, before adding colliders: a second call, or a call after a collider, is
 * EDDY_ERR_INVALID_ARGUMENT, as are bad bounds; after any error (EDDY_ERR_OUT_OF_MEMORY while adding
 * the walls too) the container and the colliders are as before the call. min and max must not be
 * NULL. [main thread] */
EDDY_API int eddy_world_set_container(eddy_world *w, const eddy_real min[3], const eddy_real max[3],
                                      const int periodic[3], eddy_error *err);

/* Appends a collider (copied; c->size must be at least this libeddy's sizeof(eddy_collider): start
 * from eddy_default_collider()), in simulation units. The plane normal is normalized here (a zero or non-finite normal is refused), a
 * sphere needs a radius > 0 and a box min < max on each used axis; is_container_wall is cleared. An
 * unknown shape, a NULL or short c and those checks are EDDY_ERR_INVALID_ARGUMENT;
 * EDDY_ERR_OUT_OF_MEMORY; on error nothing changes. w->boundaries.colliders may move. [main thread] */
EDDY_API int eddy_world_add_collider(eddy_world *w, const eddy_collider *c, eddy_error *err);

/* Sets up the grid over the domain [lo, hi] (simulation units) with cells of the smoothing radius
 * (eddy_grid_layout_init), a backend (NULL: CPU; the vtable must outlive the world) and the
 * out-of-domain policy. Call after the smoothing radius is set (> 0, else EDDY_ERR_INVALID_ARGUMENT);
 * a second call replaces the grid. Errors are eddy_grid_layout_init's and eddy_grid_init's; the new
 * grid is made before the old one is freed, so after any error the world keeps the grid it had (a
 * device backend's old and new grid exist together for that moment). */
EDDY_API int eddy_world_init_grid(eddy_world *w, const eddy_real lo[3], const eddy_real hi[3],
                                  const int periodic[3], const eddy_grid_backend_vtable *backend,
                                  eddy_domain_policy policy, eddy_error *err);

/* As eddy_world_init_grid, with the backend's validated parameters (grid.h, eddy_grid_setup) and the
 * world's host services handed to the backend's create(). `params` may be NULL (no parameters). */
EDDY_API int eddy_world_init_grid_with(eddy_world *w, const eddy_real lo[3], const eddy_real hi[3],
                                       const int periodic[3], const eddy_grid_backend_vtable *backend,
                                       const eddy_param_values *params, eddy_domain_policy policy,
                                       eddy_error *err);

/* Builds the grid on the current positions (eddy_grid_build: wraps periodic axes, applies the domain
 * policy, sorts the particles, permuting every field) and adds its time to EDDY_PHASE_GRID. Errors and
 * the state after one are eddy_grid_build's. While an exchange is installed (and no residency
 * provider), the built-in backend stores a window of the grid (grid.h). OpenMP-parallel. */
EDDY_API int eddy_world_build_grid(eddy_world *w, eddy_error *err);

/* Monotonic wall clock in milliseconds (CLOCK_MONOTONIC). [any thread] */
EDDY_API double eddy_time_ms(void);

/* Adds `ms` to a phase's accumulated time; a phase out of range is ignored. [main thread] */
EDDY_API void eddy_world_add_phase_time(eddy_world *w, eddy_phase phase, double ms);

/* --- Integration helpers every solver shares (semi-implicit Euler; Bullet-Fluids reference (2014) §2.1) --- */

/*
 * The integration helpers update every particle of [0, count), halo copies included. A decomposable
 * solver computes accelerations for owned particles only, so a halo copy is advanced with whatever its
 * acceleration field holds, and afterwards its position and velocity are not its owner's. That is
 * harmless for the next step: between steps the host's halo update overwrites each halo copy's
 * position, velocity, density, pressure, mass and material with its owner's. Within the step it
 * is not: a solver that reads neighbours' positions or velocities after these calls refreshes them on
 * the halo copies first (eddy_world_refresh_fields; pbf does, after predicting positions). In one
 * process there is no halo copy. dt in seconds.
 */

/* v += (a + gravity) * dt for every particle (see above). `a` is a 3-component field id (e.g.
 * "acceleration", sim units / s^2), or -1 for gravity alone; an id that is not a field of at least 3
 * components acts as -1, and the first such call of the process says so through w->host's log (a
 * WARNING). In 2D gravity's z is not applied. OpenMP-parallel. */
EDDY_API void eddy_world_integrate_velocity(eddy_world *w, int acceleration_field, eddy_real dt);

/* x += v * dt for every particle (see above). OpenMP-parallel. */
EDDY_API void eddy_world_integrate_position(eddy_world *w, eddy_real dt);

/* Applies the boundary response (eddy_boundaries_respond) to every particle (see above), each with
 * its material's contact parameters (w->contacts). dt: unused, kept for the ABI (the response is a
 * position projection). OpenMP-parallel; deterministic. */
EDDY_API void eddy_world_respond_boundaries(eddy_world *w, eddy_real dt);

/* The Bullet-Fluids update (Bullet-Fluids reference (2014) §2.1): eddy_world_integrate_velocity, then the
 * boundary response, then eddy_world_integrate_position, for every particle, halo copies included
 * (see above); its wall time is added to EDDY_PHASE_INTEGRATE. */
EDDY_API void eddy_world_symplectic_euler(eddy_world *w, int acceleration_field, eddy_real dt);

/* Largest speed of an owned particle with a finite velocity, sim units / s:
 * eddy_world_step_stats(w)->max_speed (cached; computed, and downloaded, when missing, so it may update
 * the cache despite the const). [main thread] */
EDDY_API eddy_real eddy_world_max_speed(const eddy_world *w);

/* The CFL time step limit cfl * h / (signal_speed + max particle speed), in seconds (speeds in sim
 * units / s; max speed from eddy_world_max_speed); +inf when that sum is not > 0 (a world at rest with
 * zero signal speed). [main thread] */
EDDY_API double eddy_world_cfl_dt(const eddy_world *w, double cfl, double signal_speed);

/*
 * The smallest of the three explicit-SPH stability limits, in seconds, and the name of the one that
 * applies in *limit (a static string: "CFL", "viscous" or "force", or "acceleration overflow" for the
 * force limit of an infinite accel_max, which is 0 and which the host reports as the state's overflow,
 * not as the solver's max_dt; may be NULL):
 *   CFL      cfl * h / (signal_speed + max particle speed)   (eddy_world_cfl_dt)
 *   viscous  0.125 h^2 / nu_max                               (nu_max: kinematic viscosity, sim m^2/s)
 *   force    0.25 sqrt(h / accel_max)                         (accel_max: sim m/s^2, of the last step)
 * A viscous or force limit whose input (nu_max, accel_max) is not > 0 does not apply; +inf when none
 * does (*limit is then "CFL"). The CFL limit always applies: cfl must be > 0 (dimensionless; 0 or
 * less gives a step of 0 or less, which the host refuses from max_dt()). The max speed comes from
 * eddy_world_step_stats(), so a solver's max_dt() adds no scan of its own. [main thread]
 */
EDDY_API double eddy_world_stable_dt(const eddy_world *w, double cfl, double signal_speed,
                                     double nu_max, double accel_max, const char **limit);

/* --- The per-step reduction the host needs ------------------------------------------------------ */

/* What the host checks after every step, reduced over the owned particles in one parallel pass. */
typedef struct eddy_step_stats {
    size_t size;               /* sizeof(eddy_step_stats) as compiled by whoever filled it */
    uint64_t step;             /* world->step the figures describe */
    double max_speed;          /* largest |v| over finite velocities, sim units / s */
    size_t nonfinite_velocity; /* particles with a NaN or infinite velocity component */
    size_t nonfinite_position; /* particles with a NaN or infinite position component */
    size_t first_nonfinite;    /* index of the nonfinite particle with the smallest id; SIZE_MAX if none */
} eddy_step_stats;

/*
 * The reduction for the world's current state: computed once (OpenMP-parallel, deterministic) and
 * cached until the step counter or the particle count changes, the layout's generation moves (a
 * grid build that moved or removed a particle, particles added) or a write mapping edits positions,
 * velocities or the layout, so the host's explosion check and the solver's max_dt() share one pass.
 * Positions and velocities the solver writes itself do not drop the cache: query it after a step. A
 * solver whose particles live on a device provides them instead through eddy_solver_vtable.reduce;
 * the host then stores them here with eddy_world_set_step_stats(). Where those figures are missing
 * (before the first step, after such a write mapping), the core computes them from the host arrays,
 * downloading a device-resident position or velocity first (a failed download leaves figures of the
 * stale copy, not cached). The struct is owned by the world, valid until the next call that may
 * recompute it. Never NULL. [main thread]
 */
EDDY_API const eddy_step_stats *eddy_world_step_stats(eddy_world *w);

/* Stores figures a solver computed (stats->step should be w->step) as the cache above, copied as far
 * as stats->size covers them (members it does not cover: 0, first_nonfinite SIZE_MAX). Figures of
 * another step are not taken as current; NULL drops the cache. [main thread] */
EDDY_API void eddy_world_set_step_stats(eddy_world *w, const eddy_step_stats *stats);

/* --- Field residency: how the host reaches particles -------------------------------------------- */

typedef enum eddy_map_access {
    EDDY_MAP_READ = 1,       /* the host reads; nothing changes */
    EDDY_MAP_WRITE = 2,      /* the host overwrites every value; the field's generation is bumped */
    EDDY_MAP_READ_WRITE = 3  /* the host edits; the field's generation is bumped */
} eddy_map_access;

/* A mapped field: host arrays valid from map to unmap (and only while nothing reallocates the
 * particles). Filled by eddy_world_map_field; the arrays are owned by the world. */
typedef struct eddy_field_view {
    size_t size;               /* set by the caller: sizeof(eddy_field_view) */
    int field;                 /* the field id mapped */
    eddy_map_access access;
    int components;            /* the field's; 0 for EDDY_FIELD_LAYOUT */
    size_t count;              /* particles, halo copies included */
    eddy_real *data[EDDY_FIELD_MAX_COMPONENTS]; /* [components] arrays of count values */
    const uint64_t *id;        /* [count] ids, same order */
    const uint32_t *material;  /* [count] */
    const uint8_t *flags;      /* [count] */
    uint64_t generation;       /* the field's edit generation at map time */
} eddy_field_view;

/*
 * A solver that keeps a field in device memory says so with eddy_world_set_field_space(), and gives
 * the world this provider. The world then calls download() when the host maps a field whose host copy
 * is stale (after eddy_world_mark_host_stale), before handing the arrays out. Owned by the solver; the
 * solver removes it (eddy_world_set_residency(w, NULL)) in destroy().
 */
typedef struct eddy_residency {
    size_t size;    /* sizeof(eddy_residency) as compiled by the solver */
    void *context;  /* the solver's, passed back */
    /* Copies `field` (and the layout: count, order, ids, materials, flags, which a field is meaningless
     * without) from the device into the host arrays of w->particles; `field` EDDY_FIELD_LAYOUT: the
     * layout only. [main thread] */
    int (*download)(void *context, eddy_world *w, int field, eddy_error *err);
} eddy_residency;

/* Declares where a field's (or, for EDDY_FIELD_LAYOUT, the layout's) authoritative copy lives; the
 * host copy counts as current at that moment. Every field starts in EDDY_MEMORY_HOST. A GPU solver
 * declares its device fields in create(). EDDY_ERR_NOT_FOUND for an unknown field,
 * EDDY_ERR_INVALID_ARGUMENT for an unknown space; nothing changes then. [main thread] */
EDDY_API int eddy_world_set_field_space(eddy_world *w, int field, eddy_memory_space space,
                                        eddy_error *err);

/* The field's (or the layout's, for EDDY_FIELD_LAYOUT) memory space (EDDY_MEMORY_HOST for an invalid
 * id). [main thread] */
EDDY_API eddy_memory_space eddy_world_field_space(const eddy_world *w, int field);

/* Installs (or removes, with NULL) the residency provider; the struct is copied as far as
 * residency->size covers it, `context` is not (it must stay valid while installed). [main thread] */
EDDY_API void eddy_world_set_residency(eddy_world *w, const eddy_residency *residency);

/* Marks the host copy of a device field stale (field = -1, which is EDDY_FIELD_LAYOUT: every device
 * field, and the layout when any field or the layout lives on the device), so the next map downloads
 * it. A host field or an invalid id is ignored. A GPU solver calls it at the end of each step for what
 * it changed. [main thread] */
EDDY_API void eddy_world_mark_host_stale(eddy_world *w, int field);

/*
 * Maps a field (or the layout alone, field EDDY_FIELD_LAYOUT: ids, materials, flags) for the host:
 * downloads it first when its host copy is stale (EDDY_MAP_WRITE skips the values but not the layout),
 * and fills `view` (view->size must be set, to at least the 2.0 size). Every host access to particles
 * goes through here: frames, probes, diagnostics, checkpoints, hashes. EDDY_ERR_INVALID_ARGUMENT for a
 * NULL or short view or an unknown access, EDDY_ERR_NOT_FOUND for an unknown field, EDDY_ERR_DEVICE
 * for a stale field without a residency provider, a download's error otherwise; `view` is not
 * filled on error. Mappings may nest and overlap. [main thread]
 */
EDDY_API int eddy_world_map_field(eddy_world *w, int field, eddy_map_access access,
                                  eddy_field_view *view, eddy_error *err);

/* Ends a mapping. A write mapping bumps the field's (or the layout's) edit generation (a device solver
 * uploads it before its next step), marks its host copy current, and drops the cached step stats when
 * it was position, velocity or the layout. A read mapping changes nothing. NULL-safe. [main thread] */
EDDY_API void eddy_world_unmap_field(eddy_world *w, eddy_field_view *view);

/* Maps every field and the layout for reading (ensures the whole host copy is current), for hosts that
 * then read the eddy_particles arrays directly: output frames, checkpoints, hashes. Returns the first
 * map's error (fields before it may be downloaded already). [main thread] */
EDDY_API int eddy_world_sync_host(eddy_world *w, eddy_error *err);

/* The edit generation of a field (eddy_particles_generation). A device solver compares it with the
 * generation it last uploaded. [main thread] */
EDDY_API uint64_t eddy_world_field_generation(const eddy_world *w, int field);

/* eddy_world_sync_host, then eddy_particles_hash; either's error (*hash unchanged). [main thread] */
EDDY_API int eddy_world_hash(eddy_world *w, uint64_t *hash, eddy_error *err);

/* --- Several processes: owned particles and halo copies ----------------------------------------- */

/* Operations of eddy_world_reduce() and eddy_exchange.reduce: the smallest, the largest, the sum. */
typedef enum eddy_reduce_op {
    EDDY_REDUCE_MIN = 0,
    EDDY_REDUCE_MAX = 1,
    EDDY_REDUCE_SUM = 2
} eddy_reduce_op;

/*
 * How halo copies are refreshed, and values combined over processes. In one process there is none
 * (the default): eddy_world_refresh_fields() only checks its field ids and eddy_world_reduce() leaves
 * the values as they are. A domain-decomposed host (MPI) installs one that sends the named fields of owned
 * particles to the processes holding their halo copies and receives theirs. Owned by the host, which
 * installs it with eddy_world_set_exchange() (copied); solvers never call its members directly.
 */
typedef struct eddy_exchange {
    size_t size;    /* sizeof(eddy_exchange) as compiled by the host */
    void *context;  /* the host's, passed back to both callbacks */
    /* Copies the owners' values of fields[0 .. field_count) (ids already checked by
     * eddy_world_refresh_fields) onto every halo copy of w. Collective: every process calls it with the
     * same fields in the same order. Required: an exchange without it counts as none (reduce is not
     * called either). [main thread] */
    int (*refresh)(void *context, eddy_world *w, const int *fields, size_t field_count,
                   eddy_error *err);
    /* Optional (NULL: eddy_world_reduce leaves the values as they are). Combines values[count] over
     * every process, in place, with `op`; the result must be the same bits on every process and
     * independent of the number of processes for MIN and MAX. Collective. [main thread] */
    int (*reduce)(void *context, eddy_reduce_op op, double *values, size_t count, eddy_error *err);
} eddy_exchange;

/* Installs (or removes, with NULL) the exchange; the struct is copied (as far as exchange->size
 * covers it), `context` is not. While one is installed, eddy_world_build_grid may store a window of the
 * grid (grid.h: built-in backend, no residency provider installed). Hosts only. [main thread] */
EDDY_API void eddy_world_set_exchange(eddy_world *w, const eddy_exchange *exchange);

/*
 * A solver calls this after computing a field that neighbours read later in the same step (density,
 * pressure, lambda in every PBF iteration, vorticity): halo copies then hold their owners' new values.
 * A no-op in one process. Collective: every process calls it with the same fields in the same order.
 * At the start of a step a halo copy holds its owner's id, material and built-in fields (position,
 * velocity, density, pressure, mass); a solver's own registered fields on it hold unspecified values
 * until the solver refreshes them, so a field computed in one step and read on neighbours in the next
 * must be refreshed too (the host keeps halo copies between steps and updates only those).
 * `fields` is borrowed for the call (NULL with field_count > 0: EDDY_ERR_INVALID_ARGUMENT). The ids
 * are checked on one process too (an id that is not a field: EDDY_ERR_NOT_FOUND, "refresh fields: no
 * field N"; libeddy builds before 2026-11-25 checked
 * them only where an exchange was installed); otherwise the exchange's error, which on a split run is
 * also another process's failure within the step (eddy's host: its code and message, so that every
 * process stops with the same error): return it from step() as it is. [main thread]
 */
EDDY_API int eddy_world_refresh_fields(eddy_world *w, const int *fields, size_t field_count,
                                       eddy_error *err);

/*
 * Combines `count` doubles over every process, in place (the smallest, the largest, or the sum), for a
 * decision every process must take alike: a time step, a derived sound speed from the fluid's height.
 * Leaves the values as they are in one process. Collective, like eddy_world_refresh_fields(). An
 * unknown op, or values NULL with count > 0, is EDDY_ERR_INVALID_ARGUMENT (in one process too);
 * otherwise the exchange's error, as for
 * eddy_world_refresh_fields() (another process's failure within the step). [main thread]
 */
EDDY_API int eddy_world_reduce(eddy_world *w, eddy_reduce_op op, double *values, size_t count,
                               eddy_error *err);

/* Sets the host services components of this world see (NULL: eddy_host_silent()); the pointer is
 * kept, not copied. Hosts only. The host must outlive the world. [main thread] */
EDDY_API void eddy_world_set_host(eddy_world *w, const eddy_host *host);

EDDY_END_DECLS

#endif /* EDDY_WORLD_H */
