/*
 * host/observe/output.h — the files a run leaves in its output folder DIR:
 *
 *   frames                      written by the writers the scene names in output.format, components of
 *                               interface EDDY_INTERFACE_WRITER (observe.h) looked up by id in the
 *                               registry: the built-in "vtk" (DIR/frames/frame_NNNNN.vtp and
 *                               DIR/frames.pvd) and "csv" (DIR/frames/frame_NNNNN.csv), see
 *                               writers_builtin.h, or any a plugin provides. Each gets the one
 *                               eddy_frame of the output frame (frame.h) and its parameters from the
 *                               scene's output.writers.<id>.
 *   DIR/diagnostics.csv         one row per output frame (eddy_output_write_diagnostics).
 *   one more table              e.g. DIR/probes.csv (eddy_output_open_table).
 *
 * Ids: particle ids are 64-bit. The .vtp id array stays UInt32 while every id of a frame is below
 * 2^32 (so files are byte for byte those of ABI 1.x) and becomes UInt64 otherwise; the CSV writes ids
 * in decimal, which is the same text either way.
 *
 * Order: particles are written in increasing id order (the frame's order), not storage order, so that
 * two runs (or two grid backends) that reach the same state write identical files.
 *
 * Files are written to "<name>.tmp" and renamed over <name>, so a run stopped at any moment never leaves
 * a torn frame, series or table behind (a stale .tmp at worst).
 *
 * Overlap (options.overlap): the built-in writers ("vtk", "csv") write each frame on a writer thread of
 * the output's while the caller steps on. eddy_output_write_frame copies what they read (the particle
 * arrays, the id order, the field table: snapshot.h) into a staging snapshot the output owns and hands
 * it to the thread; a plugin's writer is still called at once, on the calling thread, as the ABI
 * promises (observe.h). One frame at most is in flight: the next eddy_output_write_frame (and
 * eddy_output_drain) first waits for it, so the output holds one staging copy of a frame beyond the
 * world (about 48 bytes a particle, plus 4 per registered field component). The files are those of
 * the synchronous path byte for byte, each frame file renamed into place before frames.pvd names it. A
 * write error of the thread is returned, naming the file, by the next eddy_output_write_frame or
 * eddy_output_drain (once); files already complete stay. The pieces of eddy_output_write_piece, the
 * diagnostics rows and the table stay synchronous: their order and content are those of the
 * synchronous path.
 *
 * Overlapped pieces (several processes, eddy_output_submit_piece): each process writes its piece of a
 * frame on its writer thread, and piece 0 holds the frame's .pvtp and its frames.pvd entry back until
 * the caller says that every process's piece of it is complete (eddy_output_commit_pieces), which only
 * a collective over the processes can tell (host/drive/run.c: the outcome of each process's piece rides
 * on the sums of the next frame, or on one reduction at a checkpoint and at the end).
 *
 * Threads: one output per run, used from one thread (plus its own writer thread, which reads only the
 * staging snapshot and the built-in writers' own state).
 */
#ifndef EDDY_HOST_OUTPUT_H
#define EDDY_HOST_OUTPUT_H

#include <stdio.h>

#include <eddy/eddy.h>

#include "diagnostics.h"
#include "frame.h"
#include "scene.h"

typedef struct eddy_output_options {
    /* Writer ids, in the order the writers are called; NULL with format_count 0: {"vtk"}. */
    const char *const *formats;
    size_t format_count;
    /* Where the writers are found; NULL: a registry of the host's built-ins only, owned by the output. */
    eddy_registry *registry;
    /* The scene the formats came from (may be NULL): output.writers.<id> holds each writer's
     * parameters, and errors about a format point at output.format in its file. NULL: defaults. */
    const eddy_scene *scene;
    /* Continue the files of an earlier run that is resumed from a checkpoint at resume_time: keep the
     * frames.pvd entries and diagnostics.csv rows with time <= resume_time and drop the rest (the
     * resumed run writes them again). 0: start fresh (diagnostics.csv truncated; the series is this run's from its first frame).
     * What the folder lacks before resume_time is said (eddy_output_warn), where the scene gives the
     * output interval (frame k at k * output_interval, a row of each table per frame): frame files
     * missing, frames.pvd missing or cut short (its entries rebuilt from the frame files on disk,
     * eddy_builtin_writer_check_resumed), rows of diagnostics.csv or the table missing (none made up). */
    int resume;
    double resume_time;
    /* Several processes (docs/mpi.md): `pieces` > 1 processes write one dataset into the same folder.
     * Every process writes its VTK piece (eddy_output_write_piece); only piece 0 writes the rest
     * (diagnostics.csv, the table, the .pvtp files, frames.pvd and every other writer's files, from
     * the frame of the gathered particles): the others create no file but the frames folder and call
     * nothing but eddy_output_write_piece. 0 or 1: one process. */
    int piece, pieces;
    /* 1: the built-in writers write on the output's writer thread (above); 0: on the caller's. */
    int overlap;
} eddy_output_options;

/* The defaults: the "vtk" writer alone, built-ins, no scene, fresh start, no overlap. */
eddy_output_options eddy_output_default_options(void);

/* An output bound to one folder. Opaque. */
typedef struct eddy_output eddy_output;

/*
 * Creates DIR (like mkdir -p) and every writer of opt->formats for world `w` (its fields and dimensions;
 * particles are not read), then DIR/diagnostics.csv with its header line, so that an unwritable folder
 * is reported before the run starts: EDDY_ERR_IO with "cannot create output folder 'DIR': <reason>" or
 * "cannot write 'DIR/diagnostics.csv': <reason>". The writers come first so that one that refuses
 * leaves an earlier run in DIR as it was; a fresh start's frames.pvd replaces the earlier run's with
 * its first frame (the run's own clearing of the folder removes it before, run_folder.c). An id the registry has no writer for is
 * EDDY_ERR_NOT_FOUND: "unknown writer 'xml' (available: csv, vtk)", prefixed with the scene file, line,
 * column and "output.format[i]: " when the id came from the scene. `opt` may be NULL (defaults).
 * *out is owned by the caller; release with eddy_output_destroy().
 */
int eddy_output_create(const char *dir, const eddy_output_options *opt, const eddy_world *w,
                       eddy_output **out, eddy_error *err);

/* Waits for the frame in flight (overlap), destroys the writers, closes diagnostics.csv and the table and
 * frees the output. NULL-safe. Files already written stay. */
void eddy_output_destroy(eddy_output *o);

/* The folder the output was created for, as given. */
const char *eddy_output_dir(const eddy_output *o);

/* The writers, in call order: their count and ids. */
size_t eddy_output_writer_count(const eddy_output *o);
const char *eddy_output_writer_id(const eddy_output *o, size_t i);

/*
 * Hands one frame (frame.h) to every writer, in order; the first failure stops and is returned (a
 * writer's EDDY_ERR_IO names the file). Writing an index already written replaces it.
 */
int eddy_output_write_frame(eddy_output *o, const eddy_frame *frame, eddy_error *err);

/*
 * Overlap: waits for the frame in flight and returns its write error (EDDY_ERR_IO "cannot write 'FILE':
 * <reason>"), once; EDDY_OK without overlap or with nothing in flight. Call it before anything that
 * must see every frame on disk (a checkpoint, the end of the run): eddy_output_destroy waits too, but
 * cannot report.
 */
int eddy_output_drain(eddy_output *o, eddy_error *err);

/* Whether the output writes with overlap (its writer thread runs). */
int eddy_output_overlaps(const eddy_output *o);

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
 * resume_time and says which frames' rows it lacks before (output options). The output owns *f (closed by eddy_output_destroy); write rows to it, then call
 * eddy_output_flush_table(), which reports write errors naming the file. One table per output.
 */
int eddy_output_open_table(eddy_output *o, const char *name, const char *header, FILE **f, eddy_error *err);
int eddy_output_flush_table(eddy_output *o, eddy_error *err);

/*
 * What a resumed output (options.resume) refuses to continue, checked without writing anything:
 * DIR/diagnostics.csv and, when `table` is not NULL, DIR/<table> with `header`. A file's first line, when
 * it is not a row, must be the header this eddy writes, or a leading part of it that an older eddy
 * wrote (its rows with as many columns, padded on resume); every row but a last one cut short (left out
 * on resume) must have the header's columns, and the rows' times must not go backwards. A missing file
 * is not refused (the resume says it). EDDY_ERR_IO (a fault of the folder's file, not of the scene)
 * naming the file and the header column or the line at fault. eddy_output_create and
 * eddy_output_open_table refuse the same as they trim, leaving that file as it was, but the writers'
 * series and diagnostics.csv are cut back to the resume point by then: a caller that has the table's
 * header checks first.
 */
int eddy_output_check_tables(const char *dir, const char *table, const char *header, eddy_error *err);

/*
 * Several processes: writes this process's piece of output frame `local` (its owned particles, id
 * order) as DIR/frames/frame_NNNNN_pK.vtp when the "vtk" writer is among the formats; nothing
 * otherwise or on one process. Call it on every process before eddy_output_write_frame (on piece 0,
 * with the gathered frame), which writes DIR/frames/frame_NNNNN.pvtp naming the pieces.
 */
int eddy_output_write_piece(eddy_output *o, const eddy_frame *local, eddy_error *err);

/*
 * Overlapped pieces (options.overlap, several processes, the "vtk" writer among the formats; only where
 * the caller writes no whole frame from gathered particles, whose .pvtp would be written before the
 * pieces it names are complete): eddy_output_submit_piece waits for this process's piece in flight
 * (call eddy_output_drain first to see its error: here it would merely be returned), copies `local`
 * into the staging snapshot and hands the piece to the writer thread. Without overlap it is
 * eddy_output_write_piece. From the first submit on, eddy_output_write_frame on piece 0 writes no .pvtp
 * and no series entry: it keeps the frame's clock and field table as the pending frame, until
 * eddy_output_commit_pieces, called once every process's piece of it is known complete, writes its .pvtp
 * and names it in frames.pvd; with `complete` 0 (a piece of it failed somewhere) it forgets it, so
 * that it is never named (a later write_frame, too, replaces a frame still pending). Both are no-ops
 * on the other processes and with nothing pending.
 * eddy_output_overlaps_pieces: whether submit overlaps (alike on every process of a run).
 */
int eddy_output_submit_piece(eddy_output *o, const eddy_frame *local, eddy_error *err);
int eddy_output_commit_pieces(eddy_output *o, int complete, eddy_error *err);
int eddy_output_overlaps_pieces(const eddy_output *o);
/* The first error of this process's overlapped pieces that eddy_output_drain (or submit) returned, kept
 * (a later collective must still say that a piece is missing); EDDY_OK when every piece was written. */
int eddy_output_piece_lost(const eddy_output *o, eddy_error *err);

/* "eddy: warning: MESSAGE" on stderr (terminal-safe, one write), whatever --quiet says, as the log's
 * warnings: what a resume found damaged in the folder and could not keep. */
void eddy_output_warn(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* --- The pieces, for callers that want one file without an output (and for tests) --- */

/* Writes the .vtp of the host copy of `w` (as the "vtk" writer does; the caller has synced it) to
 * `path` (temp + rename), lengths divided by `simulation_scale` (> 0). */
int eddy_output_write_vtp(const char *path, const eddy_world *w, float simulation_scale,
                          eddy_error *err);

/* Writes the .csv of `w` to `path` as the "csv" writer does (writers_builtin.h has the columns). */
int eddy_output_write_csv(const char *path, const eddy_world *w, float simulation_scale,
                          eddy_error *err);

/* A file written under "<path>.tmp" and renamed over <path> by eddy_atomic_commit (writers use it). */
typedef struct eddy_atomic_file {
    FILE *f;          /* write here */
    char *tmp;        /* owned until commit */
    const char *path; /* borrowed: must stay valid until commit */
} eddy_atomic_file;

/* Opens "<path>.tmp" for writing (1 MiB buffer). EDDY_ERR_IO "cannot write 'path': <reason>". */
int eddy_atomic_open(eddy_atomic_file *af, const char *path, eddy_error *err);

/* Closes and renames over the path; on any write error removes the temporary file and returns
 * EDDY_ERR_IO "cannot write 'path': <reason>" (a full disk shows up here). */
int eddy_atomic_commit(eddy_atomic_file *af, eddy_error *err);

/* Removes a FIFO found at `path` (itself, or a link to one): a file about to be opened for writing
 * there would wait for a reader for ever. Anything else is left for the open to use or refuse (a
 * folder fails it; the tests' links to /dev/full stand for a full disk). */
void eddy_output_remove_fifo(const char *path);

/* mkdir -p: creates `dir` and any missing parents (mode 0777 before umask). An existing directory is
 * fine; anything else in the way is EDDY_ERR_IO "cannot create output folder 'dir': <reason>". */
int eddy_output_make_dirs(const char *dir, eddy_error *err);

/* "dir/name" (one '/' between them), malloc'ed: the caller frees it. NULL when out of memory. */
char *eddy_output_join_path(const char *dir, const char *name);

/* Removes DIR/NAME if it is there (a file eddy wrote, or the temporary of one). */
void eddy_output_remove_in(const char *dir, const char *name);

/* Removes the files of DIR/SUB (SUB "frames" or "render") named as frames are: "frame_" and five or
 * more digits, then '.' and an extension, or "_p", digits (a piece), '.' and an extension, the
 * "*.tmp" files a killed write left included (called before a run writes anything, so no write is in
 * progress there); never a folder of such a name. Nothing when DIR/SUB is missing. */
void eddy_output_remove_frames(const char *dir, const char *sub);

/* Whether NAME is one of a frame's file names eddy writes: "frame_" five or more digits, an optional
 * "_p" and digits (a process's piece), "." and an extension. */
int eddy_output_frame_name(const char *name);

#endif /* EDDY_HOST_OUTPUT_H */
