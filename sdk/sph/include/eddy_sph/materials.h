/*
 * eddy_sph/materials.h — per-material tables, the stable time step and save/load of a solver's state.
 *
 * Threads: main thread (create, max_dt, save, load, and eddy_sph_max_accel after a force pass).
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
    float *self_density;   /* (initial_sum - 1) m W_poly6(0) (eddy_sph_self_density), kg/m^3 */
    float *gradient_scale; /* 1 / eddy_lattice_gradient_moment(particle_dist, h, d), dimensionless */
    float *density_scale;  /* density = density_scale * sum + self_density; k.poly6 (eddy_sph_density),
                            * eddy_sph_materials_use_kernel sets another kernel's: the kernel coefficient's
                            * unit, 1/m^9 for poly6 in 3D (1/m^8 in 2D), 1/m^3 for Wendland (1/m^2) (sim) */
    void *block;
} eddy_sph_materials;

/*
 * Fills the tables from the world's materials. viscosity, stiffness and initial_sum are the solver's
 * material parameter descriptors (NULL: not declared; 0, 0 and 1). `who` prefixes the error message
 * (EDDY_SPH_WHO: NULL in a solver, whose errors the host prefixes with its id).
 * EDDY_ERR_OUT_OF_MEMORY on failure, with the tables empty. *t need not be initialized before (it is
 * overwritten: free earlier tables first). A table's default applies where a material has no value
 * (eddy_material_param). The descriptors are read during the call only. [main thread]
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
 * KERNEL kernel (poly6 or wendland)", tables unchanged. Returns EDDY_OK or that error. [main thread]
 */
int eddy_sph_materials_use_kernel(eddy_sph_materials *t, const eddy_world *w, eddy_sph_kernel kernel,
                                  const eddy_param_desc *initial_sum, const char *who, eddy_error *err);

/* Frees the tables and leaves them empty (count 0, every pointer NULL), so a second call or a new
 * init is safe. NULL-safe. */
void eddy_sph_materials_free(eddy_sph_materials *t);

/* Largest kinematic viscosity mu / rho0 over the materials, m^2/s (0 without materials). */
double eddy_sph_nu_max(const eddy_sph_materials *t);

/* Largest stiffness over the materials, in the stiffness parameter's unit (0 without materials). */
double eddy_sph_stiffness_max(const eddy_sph_materials *t);

/* eddy_world_stable_dt with the viscous limit of the tables (eddy_sph_nu_max), in seconds. */
double eddy_sph_stable_dt(const eddy_world *w, double cfl, double signal_speed, const eddy_sph_materials *t,
                          double max_accel, const char **limit);

/*
 * The largest acceleration of a force pass, over every process (sim units / s^2): sqrtf of `amax2`,
 * the largest squared magnitude over this process's owned particles, after eddy_world_reduce MAX
 * (exact: a maximum of floats, and the same as one process's, which sees every particle). max_dt's
 * force limit is then the same on every process, as the global MIN of the time step already made it,
 * and so is the state record of every checkpoint piece: pieces whose records agree merge, so a run
 * written on N processes resumes on any count (docs/mpi.md). Collective: every process calls it after
 * its force pass; in one process there is nothing to combine. Returns eddy_world_reduce's code;
 * *max_accel is written only on success.
 */
int eddy_sph_max_accel(eddy_world *w, float amax2, float *max_accel, eddy_error *err);

/*
 * One state record (<eddy/state.h>) of several float arrays, concatenated in order: parts[i] holds
 * counts[i] floats. save() sets *data to a buffer of *size bytes allocated with malloc() by
 * eddy_state_save_floats, as a solver's save() returns it: the caller owns it and frees it with free()
 * (a solver's save() hands it to the host, which does); on failure (EDDY_ERR_OUT_OF_MEMORY, or
 * EDDY_ERR_INVALID_ARGUMENT for more than UINT32_MAX floats) nothing stays allocated. load()
 * fills the arrays only when the record matches (tag and total count) and is finite; they are left
 * unchanged otherwise (EDDY_ERR_INVALID_ARGUMENT, or EDDY_ERR_OUT_OF_MEMORY). Both copy: the arrays
 * are borrowed for the call. The tag's text is state.h's (e.g. "tait/2").
 */
int eddy_sph_state_save(const char *tag, const float *const *parts, const size_t *counts, size_t nparts,
                        void **data, size_t *size, eddy_error *err);
int eddy_sph_state_load(const char *tag, float *const *parts, const size_t *counts, size_t nparts,
                        const void *data, size_t size, eddy_error *err);

#ifdef __cplusplus
}
#endif

#endif /* EDDY_SPH_MATERIALS_H */
