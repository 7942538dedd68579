/*
 * eddy/world.h — the simulated world: particles, materials, global parameters, boundaries, grid.
 *
 * Global parameters (Bullet-Fluids reference (2014) §3.1) belong to the world; per-material parameters
 * (§3.2, Bullet's "local" parameters) to eddy_material. Everything is in *simulation units*: a
 * world-scale length L is stored as L * simulation_scale (§1.1.1 there). Solvers never need the
 * simulation scale; hosts use it to convert input and output.
 *
 * Ownership: the host creates and owns the world (eddy_world_create / eddy_world_destroy) and hands it
 * to the solver's callbacks; a solver may modify particle data and register fields, but must not
 * replace materials, boundaries or the grid.
 */
#ifndef EDDY_WORLD_H
#define EDDY_WORLD_H

#include "boundary.h"
#include "defs.h"
#include "error.h"
#include "grid.h"
#include "particles.h"

EDDY_BEGIN_DECLS

#define EDDY_MATERIAL_NAME_MAX 32

/* One fluid material (Bullet's local parameters). */
typedef struct eddy_material {
    char name[EDDY_MATERIAL_NAME_MAX];
    float rest_density;   /* rho0, kg/m^d (sim units) */
    float particle_mass;  /* m, kg (per unit length in 2D: kg/m) */
    float viscosity;      /* mu, Pa s (sim units), Müller's viscosity strength */
    float stiffness;      /* k in p = k (rho - rho0), m^2/s^2 (sim units) */
    float initial_sum;    /* (0, 1]: self-contribution to density, in units of the poly6 peak m W(0) */
    float particle_dist;  /* derived: the lattice spacing at which poly6 summation with this mass
                           * and the world's smoothing radius gives rest_density (eddy_lattice_density);
                           * within a few % of (m / rho0)^(1/d), sim units */
    eddy_contact_params contact; /* rigid-boundary response */
} eddy_material;

/* Phases whose wall time solvers report for `eddy bench` (eddy_world_add_phase_time). */
typedef enum eddy_phase {
    EDDY_PHASE_GRID = 0,
    EDDY_PHASE_DENSITY = 1,
    EDDY_PHASE_FORCES = 2,
    EDDY_PHASE_INTEGRATE = 3,
    EDDY_PHASE_COUNT = 4
} eddy_phase;

typedef struct eddy_world {
    int dimensions;            /* 2 or 3 */
    double time;               /* simulated time, s */
    uint64_t step;             /* steps taken */
    float smoothing_radius;    /* h, sim units: the support radius of every kernel */
    float gravity[3];          /* sim units / s^2 */
    float simulation_scale;    /* sim length / world length; for hosts only */
    eddy_particles particles;
    eddy_material *materials;  /* [material_count], owned by the world */
    size_t material_count;
    eddy_contact_params *contacts; /* [material_count] copies of materials[m].contact, for helpers */
    eddy_boundaries boundaries;
    eddy_grid grid;            /* valid after eddy_world_init_grid() */
    double phase_ms[EDDY_PHASE_COUNT]; /* accumulated wall time per phase, ms */
} eddy_world;

/* Allocates an empty world for `dimensions`. Release with eddy_world_destroy(). */
EDDY_API int eddy_world_create(int dimensions, eddy_world **out, eddy_error *err);

/* Frees the world and everything it owns. NULL-safe. */
EDDY_API void eddy_world_destroy(eddy_world *w);

/*
 * Poly6 summation density at a particle inside an infinite square (2D) or cubic (3D) lattice of
 * `spacing` with particle `mass` and support radius h: mass * sum_j W_poly6(|x_j|). With
 * mass = rho0 * spacing^d it misses rho0 by up to a few % (1.5% at h = 2 spacing in 2D), which a stiff
 * equation of state turns into a large spurious pressure; hosts therefore derive the mass of a given
 * spacing as rho0 * mass / eddy_lattice_density(mass, ...). Double precision; pure.
 */
EDDY_API double eddy_lattice_density(double mass, double spacing, double h, int dimensions);

/* The lattice spacing at which eddy_lattice_density(mass, spacing, h, d) equals rho0 (found by
 * bisection around (m / rho0)^(1/d)); (m / rho0)^(1/d) itself when h <= 0. This is particle_dist. */
EDDY_API float eddy_rest_spacing(double mass, double rho0, double h, int dimensions);

/*
 * First moment of the spiky kernel gradient on the same lattice, with volumes V = 1 / sum_j W_poly6
 * (the lattice-consistent mass over rho0): V sum_j x_j^2 |grad W_spiky(|x_j|)| / |x_j|, the factor by
 * which sum_j V (p_j - p_i) |grad W| e_ij underestimates a linear pressure gradient (1 in the continuum
 * limit; 0.87 at h = 2 spacing in 2D, 0.95 in 3D). Solvers divide their spiky pressure gradient by it
 * so that a fluid at rest carries exactly rho0 g H. Double precision; pure.
 */
EDDY_API double eddy_lattice_gradient_moment(double spacing, double h, int dimensions);

/* Appends a material (copied). particle_dist is derived here (needs the smoothing radius set); values are validated (positive rest
 * density and mass, non-negative viscosity and stiffness, initial_sum in (0, 1], contact parameters
 * in their ranges) with messages naming the material and the key. */
EDDY_API int eddy_world_add_material(eddy_world *w, const eddy_material *m, eddy_error *err);

/* Appends n particles of a material (eddy_particles_add) and sets their mass from the material.
 * positions / velocities: 3*n floats in simulation units (velocities may be NULL). */
EDDY_API int eddy_world_add_particles(eddy_world *w, size_t n, const float *positions,
                                      const float *velocities, uint32_t material, eddy_error *err);

/* Sets the container (an axis-aligned box that holds the fluid); its walls become plane colliders at
 * the start of the collider list, except on periodic axes. Call before adding colliders. */
EDDY_API int eddy_world_set_container(eddy_world *w, const float min[3], const float max[3],
                                      const int periodic[3], eddy_error *err);

/* Appends a collider (copied). The plane normal is normalized here. */
EDDY_API int eddy_world_add_collider(eddy_world *w, const eddy_collider *c, eddy_error *err);

/* Sets up the grid over the domain [lo, hi] with cell size = smoothing_radius, a backend (NULL: CPU)
 * and the out-of-domain policy. Call once, after the smoothing radius is set. */
EDDY_API int eddy_world_init_grid(eddy_world *w, const float lo[3], const float hi[3],
                                  const int periodic[3], const eddy_grid_backend_vtable *backend,
                                  eddy_domain_policy policy, eddy_error *err);

/* Builds the grid on the current positions (eddy_grid_build) and adds its time to EDDY_PHASE_GRID. */
EDDY_API int eddy_world_build_grid(eddy_world *w, eddy_error *err);

/* Monotonic wall clock in milliseconds. Thread-safe. */
EDDY_API double eddy_time_ms(void);

/* Adds `ms` to a phase's accumulated time. Call from one thread. */
EDDY_API void eddy_world_add_phase_time(eddy_world *w, eddy_phase phase, double ms);

/* --- Integration helpers every solver shares (semi-implicit Euler, Bullet-Fluids reference §2.1) --- */

/* v += (a + gravity) * dt for every particle. `a` is a 3-component field id (e.g. "acceleration"),
 * or -1 for gravity alone. OpenMP-parallel. */
EDDY_API void eddy_world_integrate_velocity(eddy_world *w, int acceleration_field, float dt);

/* x += v * dt for every particle. OpenMP-parallel. */
EDDY_API void eddy_world_integrate_position(eddy_world *w, float dt);

/* Applies the boundary response (eddy_boundaries_respond) with each particle's material. */
EDDY_API void eddy_world_respond_boundaries(eddy_world *w, float dt);

/* The update of the Bullet-Fluids reference (2014) §2.1: eddy_world_integrate_velocity, then the
 * boundary response, then eddy_world_integrate_position; its wall time is added to EDDY_PHASE_INTEGRATE. */
EDDY_API void eddy_world_symplectic_euler(eddy_world *w, int acceleration_field, float dt);

/* Largest particle speed, sim units / s. */
EDDY_API float eddy_world_max_speed(const eddy_world *w);

/* The CFL time step limit cfl * h / (signal_speed + max particle speed); +inf for a world at rest
 * with zero signal speed. */
EDDY_API double eddy_world_cfl_dt(const eddy_world *w, double cfl, double signal_speed);

/*
 * The smallest of the three explicit-SPH stability limits, in seconds, and the name of the one that
 * applies in *limit (a static string: "CFL", "viscous" or "force"; may be NULL):
 *   CFL      cfl * h / (signal_speed + max particle speed)   (eddy_world_cfl_dt)
 *   viscous  0.125 h^2 / nu_max                               (nu_max: kinematic viscosity, sim m^2/s)
 *   force    0.25 sqrt(h / accel_max)                         (accel_max: sim m/s^2, of the last step)
 * A limit whose input is <= 0 does not apply; +inf when none does. Reads the velocities (serial);
 * call from one thread.
 */
EDDY_API double eddy_world_stable_dt(const eddy_world *w, double cfl, double signal_speed,
                                     double nu_max, double accel_max, const char **limit);

EDDY_END_DECLS

#endif /* EDDY_WORLD_H */
