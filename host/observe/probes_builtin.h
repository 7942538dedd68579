/*
 * host/observe/probes_builtin.h — the host's built-in probes (the "force" and "moment" probes in probe_force.h), components of interface
 * EDDY_INTERFACE_PROBE (observe.h) registered like a plugin's (services.c). Their parameter tables are
 * the whole definition of their keys in a scene's "probes" entries (`eddy describe front` lists them);
 * the host's generic part (probes.h) reads "name", "kind" and "reference".
 *
 * Positions and lengths are in the scene's world units; world->simulation_scale converts them when
 * measuring.
 *
 *   front     how far the liquid reaches along `axis` ("x", "y", "z", or "-x"... for the negative
 *             direction). Walking along the axis from the rearmost particle, the liquid is connected
 *             while consecutive particle coordinates are at most `max_gap` apart (default: the
 *             smoothing radius, beyond which a particle no longer interacts with the bulk); the front
 *             is the last connected particle's coordinate plus half its material's rest spacing (the
 *             edge of its volume, so that a block filled over [0, a] reads exactly a). Droplets
 *             thrown ahead by more than max_gap are not the front. World units ("m").
 *   height    how high the liquid stands along the up `axis` in the column of particles within
 *             `width` (default: the smoothing radius) of `at` on every other axis: walking up from the
 *             base at[axis] with the same max_gap rule, the top of the connected liquid plus half a
 *             rest spacing, minus at[axis]. 0 where no liquid touches the base. World units ("m").
 *   pressure  p(x) = sum_j p_j V_j W(x - x_j) / sum_j V_j W(x - x_j) at `point`: the "pressure"
 *             field Shepard-interpolated with the poly6 kernel of the smoothing radius, V_j = m_j /
 *             rho_j (m_j / rho0 where rho_j is not positive). NaN where no particle lies within one
 *             smoothing radius of the point (no liquid there). Simulation units, as stored ("Pa").
 *   density   the mean "density" of the particles inside the box [`min`, `max`] (inclusive). NaN when
 *             the box holds no particle. Simulation units (kg/m^3, 2D too).
 *
 * Every kind takes an optional `material`, the name of one of the world's materials: the probe then
 * measures that material's particles alone, as if no other were there (a front of a drop falling into
 * a tank of tracers of another material, say); without it every particle counts. A "front" of a
 * material without particles reads NaN, a "height" 0, a "pressure" or "density" NaN. create() resolves
 * the name to the material's index once and refuses a name the world lacks, listing the names it has.
 *
 * Points (`at`, `point`, `min`, `max`) take as many numbers as the world has dimensions (3 are
 * accepted in 2D, z ignored); an axis must exist in the world ("z" is refused in 2D); `max` must
 * exceed `min` on every axis; `width` and `max_gap` must be > 0. create() refuses what the table
 * cannot say, with the probe's context ("FILE:LINE:COL: probes[i]") and the key.
 *
 * Measuring reads the frame only and gives bit-identical values for the same particle state whatever
 * order the grid sorted the particles in (the walks break ties by id). O(N) per probe ("front" and
 * "height": O(N log N) where the occupied bins spread over more than about twice as many indices as
 * they hold particles, e.g. droplets far apart).
 *
 * Several processes (docs/mpi.md): "pressure" and "density" are ratios of sums over particles. Their
 * sums are exact until one rounding (exact_sum.h), so each process takes the partial of its owned
 * particles (eddy_builtin_probe_partial), the packed partials are summed as integers over the
 * processes, and eddy_builtin_probe_finish gives the value one process measures, bit for bit (one
 * process measures through the same partial). A probe's `material` leaves the other materials' particles
 * out of every part alike: of the partials, of the walk's start and of the bins. "front" and "height" are walks along the particles'
 * coordinates, not sums; what the walk reads of the particles is, per occupied bin of width max_gap
 * along the axis, the bin's index, its smallest and largest coordinate and the particle at the
 * largest (smallest id among ties) with its material (eddy_probe_bin). The start is a minimum over
 * the processes (eddy_builtin_walk_start), each process's bins of its owned particles combine with
 * min, max and the smaller id (eddy_probe_bins_merge), neither of which rounds or depends on order,
 * and the walk over the merged bins (eddy_builtin_walk_finish) gives one process's value bit for bit;
 * one process measures the same way, with one part. probes.c exchanges the bins (O(occupied bins), not
 * O(N)). A plugin's probe, and "force" and "moment" (neither reducible nor a walk), are measured on the
 * particles gathered to rank 0.
 */
#ifndef EDDY_HOST_PROBES_BUILTIN_H
#define EDDY_HOST_PROBES_BUILTIN_H

#include <eddy/eddy.h>

#include "exact_sum.h"

/* The built-in probe components ("front", "height", "pressure", "density", "force", "moment", in that
 * order), static;
 * *count receives their number. */
const eddy_component *const *eddy_builtin_probes(size_t *count);

/* The sums of a reducible probe over some particles. Pressure: sum[0] = sum p_j V_j W, sum[1] =
 * sum V_j W; density: sum[0] = the densities in the box; count: the particles taking part. */
typedef struct eddy_probe_partial {
    eddy_xsum sum[2];
    int64_t count;
} eddy_probe_partial;
#define EDDY_PROBE_PARTIAL_WORDS (2 * EDDY_XSUM_WORDS + 1)

/* True for the built-in components whose value is a ratio of sums ("pressure", "density"). */
int eddy_builtin_probe_reducible(const eddy_component *c);
/* The partial of a reducible probe's instance over the frame's owned particles; EDDY_ERR_INVALID_ARGUMENT
 * for another kind or a world of other dimensions. */
int eddy_builtin_probe_partial(const eddy_probe *pr, const eddy_frame *frame, eddy_probe_partial *out,
                               eddy_error *err);
/* The value of the (combined) partial: each sum rounded once, then the ratio (NaN as measure gives). */
double eddy_builtin_probe_finish(const eddy_probe *pr, const eddy_probe_partial *p);
/* Packed words that add up over processes (an integer MPI_SUM), and back. */
void eddy_probe_partial_pack(const eddy_probe_partial *p, int64_t *words);
void eddy_probe_partial_unpack(eddy_probe_partial *p, const int64_t *words);

/* ---- "front" and "height" over parts of the particles (see above) ---- */

/* One occupied bin of a walk: index k = floor((u - start) / gap) along u = sign * x[axis] (sim units),
 * its smallest and largest u, and the particle at the largest (the smaller id among ties). */
typedef struct eddy_probe_bin {
    int64_t k;
    float min, max;
    uint64_t top_id;
    uint32_t top_material; /* the walk's end adds half its rest spacing */
} eddy_probe_bin;
#define EDDY_PROBE_BIN_WORDS 4

/* True for the built-in components that walk ("front", "height"). */
int eddy_builtin_probe_walks(const eddy_component *c);
/* The walk's start from this part: "front", the smallest finite u of the frame's particles (INFINITY
 * for none; the whole run's is the minimum over the parts); "height", the base (the same for every
 * part). */
double eddy_builtin_walk_start(const eddy_probe *pr, const eddy_frame *frame);
/* The occupied bins of the frame's particles (the whole run's start and particle count `total`: the
 * walk reads bins below total + 1), merged and in increasing k, into *bins (malloc()ed; free() it) and
 * *count. None for a start that is not finite. EDDY_ERR_OUT_OF_MEMORY otherwise. */
int eddy_builtin_walk_bins(const eddy_probe *pr, const eddy_frame *frame, double start, uint64_t total,
                           eddy_probe_bin **bins, size_t *count, eddy_error *err);
/* Bins from several parts (any order) into the whole set's: one per index, increasing k; *count shrinks. */
int eddy_probe_bins_merge(eddy_probe_bin *bins, size_t *count, eddy_error *err);
/* The probe's value from the whole run's start and merged bins (world: materials, scale, radius). */
double eddy_builtin_walk_finish(const eddy_probe *pr, const eddy_world *w, double start, const eddy_probe_bin *bins,
                                size_t count);
/* EDDY_PROBE_BIN_WORDS integers per bin that survive a sum with zeros (a gather by integer MPI_SUM). */
void eddy_probe_bin_pack(const eddy_probe_bin *b, int64_t *words);
void eddy_probe_bin_unpack(eddy_probe_bin *b, const int64_t *words);

#endif /* EDDY_HOST_PROBES_BUILTIN_H */
