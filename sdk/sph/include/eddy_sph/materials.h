/*
 * eddy_sph/materials.h — per-material tables, the stable time step and save/load of a solver's state.
 *
 * Threads: main thread (create, max_dt, save, load, and eddy_sph_max_accel after a force pass); the
 * tables may then be read from any number of threads at once (the passes do).
 *
 * Bad arguments: the functions that return a status refuse NULL pointers they need, a smoothing radius
 * that is not a positive number, tables made for another world and state records of more than
 * UINT32_MAX floats with EDDY_ERR_INVALID_ARGUMENT and a message; the ones that return a number take
 * NULL tables as tables without materials.
 */
#ifndef EDDY_SPH_MATERIALS_H
#define EDDY_SPH_MATERIALS_H

#include <stddef.h>

#include <eddy/error.h>
#include <eddy/params.h>
#include <eddy/world.h>

#include "defs.h"
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What every SPH solver reads of each material, as floats indexed by material, in simulation units
 * (2D: per unit depth, <eddy/world.h>). Every array has `count` entries, in one allocation (`block`)
 * owned by the tables: free with eddy_sph_materials_free. */
typedef struct eddy_sph_materials {
    size_t count;
    float *rest_density;   /* rho0, kg/m^3 */
    float *mass;           /* particle mass, kg (kg/m in 2D) */
    float *viscosity;      /* the solver's viscosity parameter, in its descriptor's unit (mu, Pa s,
                            * for EDDY_MATERIAL_VISCOSITY_DESC); 0 when it declares none */
    float *stiffness;      /* the solver's stiffness parameter, in its descriptor's unit (k, m^2/s^2,
                            * for EDDY_MATERIAL_STIFFNESS_DESC); 0 when it declares none */
    float *self_density;   /* (initial_sum - 1) m W_poly6(0) (eddy_sph_self_density), kg/m^3; after
                            * eddy_sph_materials_use_kernel the same with that kernel's scaled W(0) */
    float *gradient_scale; /* 1 / eddy_lattice_gradient_moment(particle_dist, h, d), dimensionless (the
                            * spiky kernel's; +inf for a spacing >= h, which the host refuses) */
    float *density_scale;  /* density = density_scale * sum + self_density; k.poly6 (eddy_sph_density),
                            * eddy_sph_materials_use_kernel sets another kernel's: the kernel coefficient's
                            * unit, 1/m^9 for poly6 in 3D (1/m^8 in 2D), 1/m^3 for Wendland (1/m^2) (sim) */
    void *block;
} eddy_sph_materials;

/*
 * Fills the tables from the world's materials. viscosity, stiffness and initial_sum are the solver's
 * material parameter descriptors (NULL: not declared; 0, 0 and 1). `who` prefixes the error message
 * (a string, or NULL: a solver passes NULL, as the host prefixes its errors with its id). The tables own their
 * memory (free with eddy_sph_materials_free); the world and the descriptors are read during the call
 * only. Returns EDDY_OK; EDDY_ERR_INVALID_ARGUMENT for NULL t or w, or a world whose smoothing radius
 * is not a positive finite number (its kernel coefficients would be infinite); EDDY_ERR_OUT_OF_MEMORY.
 * On failure the tables are empty (count 0, NULL arrays) when t is not NULL. *t need not be
 * initialized before (it is overwritten: free earlier tables first). A table's default applies where
 * a material has no value (eddy_material_param). A world without materials gives tables of count 0.
 * [main thread]
 */
int eddy_sph_materials_init(eddy_sph_materials *t, const eddy_world *w, const eddy_param_desc *viscosity,
                            const eddy_param_desc *stiffness, const eddy_param_desc *initial_sum,
                            const char *who, eddy_error *err);

/*
 * Switches the tables to a solver that sums density with `kernel` (EDDY_SPH_POLY6 or EDDY_SPH_WENDLAND,
 * the kernels of eddy_sph_density_pass_kernel_simd) and takes that kernel's gradient in its pressure
 * force: density_scale = the kernel's coefficient times eddy_sph_rest_scale (so the rest lattice sums
 * to rho0), self_density = (initial_sum - 1) m W(0) of the scaled kernel (initial_sum: the solver's
 * descriptor, NULL: 1), gradient_scale = 1 / eddy_sph_lattice_gradient_moment(kernel, ...) of the
 * material's rest spacing. Poly6 leaves the tables as eddy_sph_materials_init made them. Another kernel
 * (spiky, cubic spline) has no density pass: EDDY_ERR_UNSUPPORTED, "[WHO: ]no density pass sums the
 * KERNEL kernel (poly6 or wendland)" ("unknown" for a value outside the enum), tables unchanged.
 * EDDY_ERR_INVALID_ARGUMENT, tables unchanged: NULL t or w, a smoothing radius that is not a positive
 * number, tables of another count of materials than w's (made for another world), or a material whose
 * rest-lattice scale is not a positive number (a lattice that sums to nothing). Returns EDDY_OK or one
 * of these errors. [main thread]
 */
int eddy_sph_materials_use_kernel(eddy_sph_materials *t, const eddy_world *w, eddy_sph_kernel kernel,
                                  const eddy_param_desc *initial_sum, const char *who, eddy_error *err);

/* Frees the tables and leaves them empty (count 0, every pointer NULL), so a second call or a new
 * init is safe. NULL-safe. */
void eddy_sph_materials_free(eddy_sph_materials *t);

/* Largest kinematic viscosity mu / rho0 over the materials, m^2/s (sim units; 0 without materials or
 * for NULL t). Pure; [any thread]. */
double eddy_sph_nu_max(const eddy_sph_materials *t);

/* Largest stiffness over the materials, in the stiffness parameter's unit (0 without materials or for
 * NULL t). Pure; [any thread]. */
double eddy_sph_stiffness_max(const eddy_sph_materials *t);

/*
 * The stable time step, s: eddy_world_stable_dt with the viscous limit of the tables, the smallest of
 *   CFL      cfl h / (signal_speed + max particle speed)   (eddy_world_max_speed)
 *   viscous  0.125 h^2 / nu_max                             (nu_max = eddy_sph_nu_max(t))
 *   force    0.25 sqrt(h / max_accel)                       (max_accel: eddy_sph_max_accel's, m/s^2)
 * with h the world's smoothing radius, in sim units. A limit whose input is <= 0 (a speed sum, nu_max
 * or max_accel) does not apply; +inf when none does. *limit (may be NULL) receives the name of the one
 * that applies: "CFL", "viscous" or "force" (static strings), or "acceleration overflow" for the force
 * limit of an infinite max_accel (eddy_sph_max_accel's when a squared acceleration overflows a float),
 * which is 0: the host then stops the run naming the state's acceleration, not the solver's max_dt.
 * NULL t: no viscous limit. w must not be NULL. [main thread]
 */
double eddy_sph_stable_dt(const eddy_world *w, double cfl, double signal_speed, const eddy_sph_materials *t,
                          double max_accel, const char **limit);

/*
 * The largest acceleration of a force pass, over every process (sim units / s^2): sqrtf of `amax2`,
 * the largest squared magnitude over this process's owned particles, after eddy_world_reduce MAX
 * (exact: a maximum of floats, and the same as one process's, which sees every particle). max_dt's
 * force limit is then the same on every process, as the global MIN of the time step already made it,
 * and so is the state record of every checkpoint piece: pieces whose records agree merge, so a run
 * written on N processes resumes on any count (docs/mpi.md). Collective: every process calls it after
 * its force pass; in one process there is nothing to combine. Returns eddy_world_reduce's code, or
 * EDDY_ERR_INVALID_ARGUMENT for NULL w or max_accel; *max_accel is written only on success. A NaN
 * amax2 (a state that exploded) gives NaN, which the force limit of eddy_sph_stable_dt ignores: the
 * host's check after the step names the explosion. An infinite one (finite accelerations whose square
 * overflows a float, as velocities of about 1e18 give) gives +inf, a force limit of 0 named
 * "acceleration overflow" (eddy_sph_stable_dt).
 */
int eddy_sph_max_accel(eddy_world *w, float amax2, float *max_accel, eddy_error *err);

/*
 * The height H the owned particles of every process span along gravity, m (sim units): the largest
 * minus the smallest of -x.g/|g| (halo copies left out), 0 without gravity or particles. What a
 * weakly compressible solver derives its speed of sound from, c0 = 10 sqrt(2 |g| H) (Monaghan 1994:
 * ten times the speed of a fall over H, which keeps density errors near 1%; tait's default). The
 * extent is reduced with eddy_world_reduce, so a run on several processes derives the same H as one:
 * collective, every process calls it. Scenes are y-up in 2D and 3D, but nothing here assumes an axis.
 * Returns EDDY_ERR_INVALID_ARGUMENT for NULL w or height, or eddy_world_reduce's code (its message
 * prefixed "fall height: "); *height is written only on success. [main thread]
 */
int eddy_sph_fall_height(eddy_world *w, double *height, eddy_error *err);

/*
 * One state record (<eddy/state.h>) of several float arrays, concatenated in order: parts[i] holds
 * counts[i] floats. save() sets *data to a buffer of *size bytes allocated with malloc() by
 * eddy_state_save_floats, as a solver's save() returns it: the caller owns it and frees it with free()
 * (a solver's save() hands it to the host, which does); on failure (EDDY_ERR_OUT_OF_MEMORY, or
 * EDDY_ERR_INVALID_ARGUMENT for more than UINT32_MAX floats) nothing stays allocated. load()
 * fills the arrays only when the record matches (tag and total count) and is finite; they are left
 * unchanged otherwise (EDDY_ERR_INVALID_ARGUMENT, or EDDY_ERR_OUT_OF_MEMORY). Both copy: the arrays
 * are borrowed for the call. The tag's text is state.h's (e.g. "tait/2"). nparts may be 0 (a record of
 * the tag alone), and a part of count 0 needs no array. Both refuse, with EDDY_ERR_INVALID_ARGUMENT
 * and before reading any array: a NULL tag, NULL counts or parts while nparts > 0, a NULL array of a
 * part with values, counts that sum past UINT32_MAX, save() without data or size, load() of NULL data
 * with size > 0. Pure apart from the allocation: [any thread].
 */
int eddy_sph_state_save(const char *tag, const float *const *parts, const size_t *counts, size_t nparts,
                        void **data, size_t *size, eddy_error *err);
int eddy_sph_state_load(const char *tag, float *const *parts, const size_t *counts, size_t nparts,
                        const void *data, size_t size, eddy_error *err);

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_MATERIALS_H */
