/*
 * host/observe/diagnostics.h — whole-world summary numbers for one instant: kinetic, potential and total
 * mechanical energy, momentum, density error and the largest speed. The run loop computes them at every output frame and hands them to
 * eddy_output_write_diagnostics() (output.h), which appends them to DIR/diagnostics.csv.
 *
 * Units: simulation units throughout (lengths are not divided by the simulation scale), so that the
 * numbers mean the same thing to every solver and need no scene to interpret. Masses are per unit depth
 * in 2D (world.h), so energies are J/m there and momenta kg/s (J and kg m/s in 3D, at scale 1).
 *
 * Potential energy: E_p = -sum m (g . x), the gravitational energy relative to the origin of the
 * simulation coordinates (g the world's gravity, x the position): the reference that needs no scene,
 * and the same for every solver, so E_k + E_p of two solvers compare directly. With a constant g and
 * no other external force E_k + E_p is what the solver should conserve (viscosity and resting walls
 * take energy out, a moving collider can put it in); a change of reference shifts E_p by -M (g . x0), a constant.
 *
 * Determinism: the sums are exact until one final rounding (exact_sum.h), so they depend on the set of
 * particles only: not on how the grid sorted the arrays, nor on how a run on several processes split
 * them (docs/mpi.md). There each process takes the partial of its owned particles
 * (eddy_diagnostics_partial_of_frame), the packed partials are summed as integers and their maxima
 * combined (eddy_diagnostics_pack / _unpack), and eddy_diagnostics_finish gives every process the
 * numbers one process computes for the same state, bit for bit.
 */
#ifndef EDDY_HOST_DIAGNOSTICS_H
#define EDDY_HOST_DIAGNOSTICS_H

#include <eddy/eddy.h>

#include "exact_sum.h"
#include "frame.h"

typedef struct eddy_diagnostics {
    double kinetic_energy;     /* sum 0.5 m |v|^2, m = materials[material].particle_mass */
    double potential_energy;   /* -sum m (g . x), g = world gravity: relative to the origin (above) */
    double total_energy;       /* kinetic_energy + potential_energy */
    double momentum[3];        /* sum m v */
    double mass;               /* sum m */
    double density_error_mean; /* mean over particles of |rho / rho0 - 1| (0 with no particles) */
    double density_error_max;  /* max over particles of |rho / rho0 - 1| */
    double density_error_p99;  /* the 99th percentile of |rho / rho0 - 1|: the value of rank ceil(0.99 n) of the
                                * n particles' in increasing order (NumPy's percentile, method
                                * "inverted_cdf"); NaN where any is NaN, 0 with no particles. A maximum
                                * is one particle's, often a splash's lone droplet; this one is the bulk's
                                * worst and converges as the discretization error does */
    double max_speed;          /* max |v|; NaN when any velocity is NaN, so a blow-up shows */
    size_t particles;          /* owned particle count */
} eddy_diagnostics;

/* The part of the diagnostics over some particles: exact sums and maxima. */
typedef struct eddy_diagnostics_partial {
    eddy_xsum kinetic_energy, momentum[3], mass, density_error, potential_energy;
    double density_error_max, speed2_max; /* over the terms that are not NaN (0 with none) */
    int64_t nan_density_error, nan_speed2; /* terms that are NaN */
    int64_t particles;
} eddy_diagnostics_partial;

/* The packed form: integers that add up over processes (an integer MPI_SUM), then maxima (MPI_MAX). */
#define EDDY_DIAGNOSTICS_SUMS 7
#define EDDY_DIAGNOSTICS_SUM_WORDS (EDDY_DIAGNOSTICS_SUMS * EDDY_XSUM_WORDS + 3)
#define EDDY_DIAGNOSTICS_MAX_VALUES 2

/*
 * The partial of the frame's owned particles (frame.h). Fails with EDDY_ERR_INVALID_ARGUMENT (naming
 * the particle id) when a particle's material index is outside the material table. O(N). The
 * percentile is not a sum: a split run takes it collectively (eddy_diagnostics_density_error_quantile)
 * into the finished numbers.
 */
int eddy_diagnostics_partial_of_frame(const eddy_frame *frame, eddy_diagnostics_partial *p, eddy_error *err);
void eddy_diagnostics_pack(const eddy_diagnostics_partial *p, int64_t *sums, double *maxima);
void eddy_diagnostics_unpack(eddy_diagnostics_partial *p, const int64_t *sums, const double *maxima);
/* The numbers of a partial: each sum rounded once, the mean divided after, NaN maxima where a term was. */
void eddy_diagnostics_finish(const eddy_diagnostics_partial *p, eddy_diagnostics *d);

/*
 * A sum of integers over the processes a run is split on, in place (the run's integer MPI_SUM):
 * returns EDDY_OK or the reduction's error. NULL where the run is one process.
 */
typedef int (*eddy_diagnostics_sum_fn)(void *ctx, int64_t *values, size_t count, eddy_error *err);

/*
 * The density error's quantile q (0 < q <= 1) over the frame's owned particles of every process: the
 * value of rank ceil(q n) of the n errors |rho / rho0 - 1| in increasing order, exactly (a selection,
 * not a histogram's bin), NaN when any error is NaN, 0 when there are no particles. Collective where
 * `sum` is not NULL: eight integer sums of 258 words, every process gets the same value. The errors
 * are non-negative doubles, whose bit patterns sort as the numbers do, so the selection walks their
 * bytes from the top: each round counts the errors under the prefix found so far by their next byte.
 * Eight O(N) passes; allocates nothing. Fails only with the sum's error, or EDDY_ERR_INVALID_ARGUMENT
 * for a particle whose material is outside the table (as eddy_diagnostics_partial_of_frame).
 */
int eddy_diagnostics_density_error_quantile(const eddy_frame *frame, double q, eddy_diagnostics_sum_fn sum,
                                            void *ctx, double *out, eddy_error *err);

/*
 * Fills *d for the frame (frame.h): the partial of its owned particles, finished, and the 99th
 * percentile of the density error. Fails with
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
