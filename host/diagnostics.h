/*
 * host/diagnostics.h — whole-world summary numbers for one instant: kinetic energy, momentum, density
 * error and the largest speed. The run loop computes them at every output frame and hands them to
 * eddy_output_write_diagnostics() (output.h), which appends them to DIR/diagnostics.csv.
 *
 * Units: simulation units throughout (lengths are not divided by the simulation scale), so that the
 * numbers mean the same thing to every solver and need no scene to interpret.
 *
 * Determinism: sums run in double, in increasing particle id order, so the result depends only on the
 * particle state and not on how the grid happened to sort the arrays (the same state gives bit-identical
 * diagnostics with any grid backend or thread count).
 */
#ifndef EDDY_HOST_DIAGNOSTICS_H
#define EDDY_HOST_DIAGNOSTICS_H

#include <eddy/eddy.h>

typedef struct eddy_diagnostics {
    double kinetic_energy;     /* sum 0.5 m |v|^2, m = materials[material].particle_mass */
    double momentum[3];        /* sum m v */
    double mass;               /* sum m */
    double density_error_mean; /* mean over particles of |rho / rho0 - 1| (0 with no particles) */
    double density_error_max;  /* max over particles of |rho / rho0 - 1| */
    double max_speed;          /* max |v|; NaN when any velocity is NaN, so a blow-up shows */
    size_t particles;          /* particle count */
} eddy_diagnostics;

/*
 * Fills *d for the current state of `w`. Fails with EDDY_ERR_INVALID_ARGUMENT (naming the particle id)
 * when a particle's material index is outside the material table, and EDDY_ERR_OUT_OF_MEMORY when the
 * id-order scratch array cannot be allocated. O(N); allocates N * 8 bytes for the duration of the call.
 */
int eddy_diagnostics_compute(const eddy_world *w, eddy_diagnostics *d, eddy_error *err);

/*
 * The permutation that visits the particles of `p` in increasing id order: order[k] is the storage
 * index of the k-th smallest id. Returns a malloc()ed array of max(count, 1) entries that the caller
 * frees, or NULL when out of memory. O(N) (radix sort). Output writers use it too, so that files list
 * particles in the same order whatever the grid sort did.
 */
uint32_t *eddy_order_by_id(const eddy_particles *p);

#endif /* EDDY_HOST_DIAGNOSTICS_H */
