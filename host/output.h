/*
 * host/output.h — the files a run leaves in its output folder DIR:
 *
 *   DIR/frames/frame_NNNNN.vtp  VTK XML PolyData, one per output frame (format="binary": inline base64,
 *                               UInt32 headers, little endian): Points, one vertex cell per particle
 *                               (Verts, so ParaView draws points), and PointData id, material,
 *                               velocity, density, pressure and every registered field.
 *   DIR/frames.pvd              the ParaView series file listing every frame written so far with its
 *                               time; rewritten after each frame, so it is valid whenever the run stops.
 *   DIR/frames/frame_NNNNN.csv  optional: one row per particle, see eddy_output_write_csv().
 *   DIR/diagnostics.csv         one row per output frame (eddy_output_write_diagnostics).
 *
 * Units: positions and velocities are converted to world units (divided by the simulation scale);
 * density, pressure and registered fields are written as stored (simulation units), since only the
 * solver knows what a registered field measures.
 *
 * Order: particles are written in increasing id order, not storage order, so that two runs (or two grid
 * backends) that reach the same state write identical files.
 *
 * Files are written to "<name>.tmp" and renamed over <name>, so a run stopped at any moment never leaves
 * a torn frame, series or table behind (a stale .tmp at worst).
 *
 * Threads: one writer per run, used from one thread.
 */
#ifndef EDDY_HOST_OUTPUT_H
#define EDDY_HOST_OUTPUT_H

#include <stdio.h>

#include <eddy/eddy.h>

#include "diagnostics.h"

typedef struct eddy_output_options {
    int write_vtk;          /* frames/frame_NNNNN.vtp and frames.pvd */
    int write_csv;          /* frames/frame_NNNNN.csv */
    float simulation_scale; /* sim length / world length for converting output; <= 0: take the world's */
    /* Continue the files of an earlier run that is resumed from a checkpoint at resume_time: keep the
     * frames.pvd entries and diagnostics.csv rows with time < resume_time and drop the rest (the
     * resumed run writes them again). 0: start fresh (diagnostics.csv truncated, empty series). */
    int resume;
    double resume_time;
} eddy_output_options;

/* The defaults: VTK on, CSV off, scale taken from the world, fresh start. */
eddy_output_options eddy_output_default_options(void);

/* An output writer bound to one folder. Opaque. */
typedef struct eddy_output eddy_output;

/*
 * Creates DIR and DIR/frames (like mkdir -p) and DIR/diagnostics.csv with its header line, so that an
 * unwritable folder is reported before the run starts: EDDY_ERR_IO with "cannot create output folder
 * 'DIR': <reason>" or "cannot write 'DIR/diagnostics.csv': <reason>". `opt` may be NULL (defaults).
 * *out is owned by the caller; release with eddy_output_destroy().
 */
int eddy_output_create(const char *dir, const eddy_output_options *opt, eddy_output **out,
                       eddy_error *err);

/* Closes diagnostics.csv and frees the writer. NULL-safe. Files already written stay. */
void eddy_output_destroy(eddy_output *o);

/* The folder the writer was created for, as given. */
const char *eddy_output_dir(const eddy_output *o);

/*
 * Writes frame `frame_index` (0-based; NNNNN is it zero-padded to 5 digits) of world `w` at simulated
 * time `time` (seconds): the .vtp and the updated frames.pvd when VTK is on, the .csv when CSV is on.
 * Writing an index that the series already lists replaces that entry. EDDY_ERR_IO names the file.
 */
int eddy_output_write_frame(eddy_output *o, const eddy_world *w, int frame_index, double time,
                            eddy_error *err);

/*
 * Appends one row to DIR/diagnostics.csv and flushes it. Columns, exactly:
 *   time,step,kinetic_energy,momentum_x,momentum_y,momentum_z,density_error_mean,density_error_max,
 *   max_speed,wall_ms,particles
 * (%.12g for reals). `wall_ms` is whatever wall time the run loop wants recorded (e.g. since start).
 */
int eddy_output_write_diagnostics(eddy_output *o, const eddy_diagnostics *d, double time,
                                  uint64_t step, double wall_ms, eddy_error *err);

/*
 * Opens DIR/<name> as one more CSV table whose first column is the time (e.g. probes.csv): a fresh
 * run truncates it and writes `header` (one line, with its newline); a resumed run keeps the rows up to
 * resume_time. The writer owns *f (closed by eddy_output_destroy); write rows to it, then call
 * eddy_output_flush_table(), which reports write errors naming the file. One table per writer.
 */
int eddy_output_open_table(eddy_output *o, const char *name, const char *header, FILE **f, eddy_error *err);
int eddy_output_flush_table(eddy_output *o, eddy_error *err);

/* --- The pieces, for callers that want one file without a writer (and for tests) --- */

/* Writes the .vtp of `w` to `path` (temp + rename), lengths divided by `simulation_scale` (> 0). */
int eddy_output_write_vtp(const char *path, const eddy_world *w, float simulation_scale,
                          eddy_error *err);

/*
 * Writes the .csv of `w` to `path` (temp + rename). Header exactly
 *   id,x,y,z,vx,vy,vz,density,pressure,material
 * followed by the registered (non-built-in) fields in registration order: a scalar as its name, a
 * 3-component field as name_x,name_y,name_z, any other k components as name_0..name_{k-1}.
 * One row per particle in increasing id order, reals as %.9g (which round-trips a float exactly).
 */
int eddy_output_write_csv(const char *path, const eddy_world *w, float simulation_scale,
                          eddy_error *err);

/* mkdir -p: creates `dir` and any missing parents (mode 0777 before umask). An existing directory is
 * fine; anything else in the way is EDDY_ERR_IO "cannot create output folder 'dir': <reason>". */
int eddy_output_make_dirs(const char *dir, eddy_error *err);

#endif /* EDDY_HOST_OUTPUT_H */
