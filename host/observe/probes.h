/*
 * host/observe/probes.h — measurements a scene declares in its top-level "probes" section, taken the same way
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
 *     { "name": "rho_mean", "kind": "density", "min": [0.1, 0.0], "max": [0.4, 0.2] },
 *     { "name": "drop_bottom", "kind": "front", "axis": "-y", "material": "drop" }
 *   ]
 *
 * Every probe is a component of interface EDDY_INTERFACE_PROBE (observe.h) named by "kind": the
 * host's built-ins "front", "height", "pressure" and "density" (probes_builtin.h has their rules) or
 * any a plugin provides. The host reads the generic keys of an entry here — "kind", "name" (default
 * "<kind>_<index>") and "reference" — and validates every other key against the component's parameter
 * table, with the same FILE:LINE:COL: probes[i].key messages as every scene error. A probe instance is
 * created per world (eddy_probes_open) and measures the one frame snapshot of each output frame.
 *
 * Reference data (optional, any kind): a CSV file named relative to the scene file, '#' lines are
 * comments, a header line, then rows of numbers; `columns` picks the two columns by name (default
 * the first two). The reference's x is time / time_scale, its y is (value - value_offset) /
 * value_scale, so that measured values are drawn in the reference's (typically nondimensional)
 * units: for Martin & Moyce, T = t sqrt(2g/a) and Z = x / a.
 *
 * Threads: main thread.
 */
#ifndef EDDY_HOST_PROBES_H
#define EDDY_HOST_PROBES_H

#include <stdint.h>
#include <stdio.h>

#include <eddy/eddy.h>

#include "frame.h"
#include "scene.h"

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
 * it names; each kind must be a probe component of `registry` and the entry's other keys valid for
 * its parameter table. Errors are EDDY_ERR_INVALID_ARGUMENT in the scene's style, e.g.
 * "scenes/x.json:14:7: probes[1].kind: expected "front", "height", "pressure" or "density", got
 * "speed"" (the registry's probe ids), or for a reference file "...: probes[0].reference.file: cannot
 * read 'scenes/data/x.csv': No such file or directory". *out is owned by the caller:
 * eddy_probes_destroy(). The scene may be freed afterwards; the registry must outlive the set.
 */
int eddy_probes_parse(const eddy_scene *scene, eddy_registry *registry, eddy_probes **out, eddy_error *err);

/*
 * Creates every probe's instance for world `w` (its dimensions, smoothing radius and materials; the
 * particles are not read) with the host's services: the component's create() with the probe's
 * validated parameters and its context "FILE:LINE:COL: probes[i]". Instances of an earlier open are
 * destroyed first. Fails with EDDY_ERR_INVALID_ARGUMENT when the world's dimensions differ from the
 * scene's, or with the first create() error; one about a key the entry gives ("<context>.material: ...",
 * a built-in's material the world lacks) is reworded to point at that key's value as the scene's own
 * errors do: "FILE:LINE:COL: probes[i].material: ...", or "--set 'PATH=VALUE': probes[i].material: ..."
 * for a value an override put in.
 */
int eddy_probes_open(eddy_probes *p, const eddy_world *w, const eddy_host *host, eddy_error *err);

/* Destroys the instances (the parsed set stays, to be opened again for another world). NULL-safe. */
void eddy_probes_close(eddy_probes *p);

/* Frees the set (closing it first). NULL-safe. */
void eddy_probes_destroy(eddy_probes *p);

/* Number of probes (0 for NULL). */
size_t eddy_probes_count(const eddy_probes *p);

/* The probe's name (unique within the set), its kind (the component id), and its unit as the
 * instance reported it ("m", "Pa", "kg/m^3", ...; "" before the first eddy_probes_open). Owned by the
 * set. */
const char *eddy_probes_name(const eddy_probes *p, size_t i);
const char *eddy_probes_kind(const eddy_probes *p, size_t i);
const char *eddy_probes_unit(const eddy_probes *p, size_t i);

/* The probe's reference data, or NULL when it has none. Owned by the set. */
const eddy_probe_reference *eddy_probes_reference(const eddy_probes *p, size_t i);

/*
 * Measures every probe on one frame (frame.h): values[i] for probe i (count entries). Call between
 * eddy_probes_open and eddy_probes_close. Fails with EDDY_ERR_INVALID_ARGUMENT when a particle's
 * material index is outside the material table (naming the particle id), or with a probe's error
 * prefixed by "probe 'NAME': ".
 */
int eddy_probes_measure(const eddy_probes *p, const eddy_frame *frame, double *values, eddy_error *err);

/*
 * Several processes (docs/mpi.md, probes_builtin.h): when every probe of the set is a built-in one
 * (eddy_probes_reducible, true for an empty set) no process needs another's particles. The sums
 * ("pressure", "density"): each process measures the partial sums of its owned particles into
 * eddy_probes_sum_words(p) packed integers (eddy_probes_measure_partial; its errors are
 * eddy_probes_measure's; a walk probe's words are zeros), the words are summed over the processes (an
 * integer MPI_SUM), and eddy_probes_finish turns the sums into the values eddy_probes_measure gives on
 * every particle, bit for bit (it leaves the walks' values alone). The walks ("front", "height"):
 * eddy_probes_measure_walks, collective, exchanges each process's occupied bins (O(bins), not O(N))
 * through comm's integer sums and writes the walks' values, the same bit for bit, on every process.
 * Otherwise the caller measures the particles gathered to one process with eddy_probes_measure.
 */
int eddy_probes_reducible(const eddy_probes *p);
size_t eddy_probes_sum_words(const eddy_probes *p);
int eddy_probes_measure_partial(const eddy_probes *p, const eddy_frame *frame, int64_t *words, eddy_error *err);
void eddy_probes_finish(const eddy_probes *p, const int64_t *words, double *values);

/* How the processes sum integers: sum(ctx, values, count, err) adds `values` over every process in place
 * on every process (eddy_decomp_sum_int64), collectively; rank and size as MPI's. A NULL comm, a NULL
 * sum or size 1: one process. */
typedef struct eddy_probes_comm {
    int rank, size;
    int (*sum)(void *ctx, int64_t *values, size_t count, eddy_error *err);
    void *ctx;
} eddy_probes_comm;

/*
 * Collective over comm's processes, each with its owned particles in `frame`: the value of every
 * "front" and "height" probe of the set into values[i] (the other entries untouched), equal to
 * eddy_probes_measure's on all the particles. No sum when the set has no walk probe. *complete is 0
 * when the values are not all written: after this process's error (returned: a material index outside
 * the table, as eddy_probes_measure words it; out of memory) or another process's (EDDY_OK here; that
 * process stops the run). Three integer sums of 2 + size W, 1 + size W and 4 per occupied bin words
 * (W walk probes).
 */
int eddy_probes_measure_walks(const eddy_probes *p, const eddy_frame *frame, const eddy_probes_comm *comm,
                              double *values, int *complete, eddy_error *err);

/* CSV lines of DIR/probes.csv: the header "time,step,<name>,..." and one row per measurement, reals
 * as %.12g (NaN as "nan"). The caller checks the stream for errors. */
void eddy_probes_csv_header(const eddy_probes *p, FILE *f);
void eddy_probes_csv_row(const eddy_probes *p, FILE *f, double time, uint64_t step, const double *values);

#endif /* EDDY_HOST_PROBES_H */
