/*
 * host/observe/diagnostics.h — whole-world summary numbers for one instant: kinetic energy, momentum, density
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

#include "frame.h"

typedef struct eddy_diagnostics {
    double kinetic_energy;     /* sum 0.5 m |v|^2, m = materials[material].particle_mass */
    double momentum[3];        /* sum m v */
    double mass;               /* sum m */
    double density_error_mean; /* mean over particles of |rho / rho0 - 1| (0 with no particles) */
    double density_error_max;  /* max over particles of |rho / rho0 - 1| */
    double max_speed;          /* max |v|; NaN when any velocity is NaN, so a blow-up shows */
    size_t particles;          /* owned particle count */
} eddy_diagnostics;

/*
 * Fills *d for the frame (frame.h): sums over the owned particles in the frame's id order. Fails with
 * EDDY_ERR_INVALID_ARGUMENT (naming the particle id) when a particle's material index is outside the
 * material table. O(N); allocates nothing.
 */
int eddy_diagnostics_of_frame(const eddy_frame *frame, eddy_diagnostics *d, eddy_error *err);

/*
 * The same for the host copy of `w` as it is (the caller has synced it, or knows it current): sorts
 * the ids itself (eddy_order_by_id, N * 8 bytes for the duration of the call; EDDY_ERR_OUT_OF_MEMORY
 * when they cannot be had). For tools and tests; the run loop uses the frame it took.
 */
int eddy_diagnostics_compute(const eddy_world *w, eddy_diagnostics *d, eddy_error *err);

#endif /* EDDY_HOST_DIAGNOSTICS_H */
