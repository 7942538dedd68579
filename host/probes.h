/*
 * host/probes.h — measurements a scene declares in its top-level "probes" section, taken the same way
 * for every solver: `eddy run` writes them to DIR/probes.csv at each output frame, `eddy compare` to
 * DIR/<solver>/probes.csv, its summary and its plots. docs/compare.md documents the JSON.
 *
 *   "probes": [
 *     { "name": "front", "kind": "front", "axis": "x",
 *       "reference": { "file": "data/martin_moyce_1952_front.csv", "label": "Martin & Moyce (1952)",
 *                      "time_scale": 0.0713944, "value_scale": 0.1,
 *                      "time_label": "T = t sqrt(2g/a)", "value_label": "Z = x / a" } },
 *     { "name": "height_left_wall", "kind": "height", "axis": "y", "at": [0, 0] },
 *     { "name": "p_bottom", "kind": "pressure", "point": [0.25, 0.01] },
 *     { "name": "rho_mean", "kind": "density", "min": [0.1, 0.0], "max": [0.4, 0.2] }
 *   ]
 *
 * Kinds and their rules (positions and lengths in the scene's world units; the world's
 * simulation_scale converts them when measuring):
 *
 *   front     how far the liquid reaches along `axis` ("x", "y", "z", or "-x"... for the negative
 *             direction). Walking along the axis from the rearmost particle, the liquid is connected
 *             while consecutive particle coordinates are at most `max_gap` apart (default: the
 *             smoothing radius, beyond which a particle no longer interacts with the bulk); the front
 *             is the last connected particle's coordinate plus half its material's rest spacing (the
 *             edge of its volume, so that a block filled over [0, a] reads exactly a). Droplets
 *             thrown ahead by more than max_gap are not the front. World units.
 *   height    how high the liquid stands along the up `axis` in the column of particles within
 *             `width` (default: the smoothing radius) of `at` on every other axis: walking up from the
 *             base at[axis] with the same max_gap rule, the top of the connected liquid plus half a
 *             rest spacing, minus at[axis]. 0 where no liquid touches the base. World units.
 *   pressure  p(x) = sum_j p_j V_j W(x - x_j) / sum_j V_j W(x - x_j) at `point`: the "pressure"
 *             field Shepard-interpolated with the poly6 kernel of the smoothing radius, V_j = m_j /
 *             rho_j (m_j / rho0 where rho_j is not positive). NaN where no particle lies within one
 *             smoothing radius of the point (no liquid there). Simulation units, as stored.
 *   density   the mean "density" of the particles inside the box [`min`, `max`] (inclusive). NaN when
 *             the box holds no particle. Simulation units.
 *
 * Reference data (optional, any kind): a CSV file named relative to the scene file, '#' lines are
 * comments, a header line, then rows of numbers; `columns` picks the two columns by name (default
 * the first two). The reference's x is time / time_scale, its y is (value - value_offset) /
 * value_scale, so that measured values are drawn in the reference's (typically nondimensional)
 * units: for Martin & Moyce, T = t sqrt(2g/a) and Z = x / a.
 *
 * Measuring is O(N) per probe, reads the world only, and gives bit-identical values for the same
 * particle state whatever order the grid sorted the particles in (sums run in increasing id order).
 *
 * Threads: a parsed probe set is read-only; measure may be called from any one thread at a time.
 */
#ifndef EDDY_HOST_PROBES_H
#define EDDY_HOST_PROBES_H

#include <stdint.h>
#include <stdio.h>

#include <eddy/eddy.h>

#include "scene.h"

typedef enum eddy_probe_kind {
    EDDY_PROBE_FRONT = 0,
    EDDY_PROBE_HEIGHT = 1,
    EDDY_PROBE_PRESSURE = 2,
    EDDY_PROBE_DENSITY = 3
} eddy_probe_kind;

/* A probe's reference data, converted nothing: the file's own columns. */
typedef struct eddy_probe_reference {
    const char *file;          /* as resolved (scene folder + name) */
    const char *label;         /* legend text; default: the file name */
    const char *x_label;       /* the reference's time axis; default: the column name */
    const char *y_label;       /* the reference's value axis; default: the column name */
    const double *x, *y;       /* [count], as read */
    size_t count;
    double time_scale;         /* reference x = t / time_scale (t in s); > 0, default 1 */
    double value_scale;        /* reference y = (value - value_offset) / value_scale; > 0, default 1 */
    double value_offset;       /* default 0 */
} eddy_probe_reference;

/* A parsed probe set. Opaque. */
typedef struct eddy_probes eddy_probes;

/*
 * Reads the scene's "probes" section (an absent section gives zero probes) and every reference file
 * it names. Errors are EDDY_ERR_INVALID_ARGUMENT in the scene's style, e.g.
 * "scenes/x.json:14:7: probes[1].axis: expected "x", "y", "-x" or "-y", got "w"", or for a reference
 * file "...: probes[0].reference.file: cannot read 'scenes/data/x.csv': No such file or directory".
 * *out is owned by the caller: eddy_probes_destroy(). The scene may be freed afterwards.
 */
int eddy_probes_parse(const eddy_scene *scene, eddy_probes **out, eddy_error *err);

/* Frees the set. NULL-safe. */
void eddy_probes_destroy(eddy_probes *p);

/* Number of probes (0 for NULL). */
size_t eddy_probes_count(const eddy_probes *p);

/* The probe's name (unique within the set; default "<kind>_<index>"), kind, and unit ("m" for
 * front and height, "Pa" for pressure, "kg/m^3" or "kg/m^2" in 2D for density). Owned by the set. */
const char *eddy_probes_name(const eddy_probes *p, size_t i);
eddy_probe_kind eddy_probes_kind(const eddy_probes *p, size_t i);
const char *eddy_probes_unit(const eddy_probes *p, size_t i);

/* The probe's reference data, or NULL when it has none. Owned by the set. */
const eddy_probe_reference *eddy_probes_reference(const eddy_probes *p, size_t i);

/*
 * Measures every probe on the current state of `w`: values[i] for probe i (count entries). Fails with
 * EDDY_ERR_INVALID_ARGUMENT when the world's dimensions differ from the scene's or a particle's
 * material index is outside the material table (naming the particle id), EDDY_ERR_OUT_OF_MEMORY when
 * the scratch arrays (at most 16 bytes per particle, for the duration of the call) cannot be had.
 */
int eddy_probes_measure(const eddy_probes *p, const eddy_world *w, double *values, eddy_error *err);

/* CSV lines of DIR/probes.csv: the header "time,step,<name>,..." and one row per measurement, reals
 * as %.12g (NaN as "nan"). The caller checks the stream for errors. */
void eddy_probes_csv_header(const eddy_probes *p, FILE *f);
void eddy_probes_csv_row(const eddy_probes *p, FILE *f, double time, uint64_t step, const double *values);

#endif /* EDDY_HOST_PROBES_H */
